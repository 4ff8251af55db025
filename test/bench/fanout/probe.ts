// A CPU profile of the measured window only (the bench's `--cpu-prof DIR`): the first SIGUSR2 starts V8's
// profiler, the second writes DIR/<name>-<pid>.cpuprofile (open it in Chrome DevTools or speedscope) and prints
// {"profiled": path}. Set-up and warm-up stay out of it, unlike `node --cpu-prof`.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function profileOnSignal(name: string): void {
  const dir = process.env.CPU_PROFILE_DIR;
  if (!dir) return;
  const session = new Session();
  session.connect();
  let running = false;
  process.on('SIGUSR2', () => {
    if (!running) {
      running = true;
      session.post('Profiler.enable', () => session.post('Profiler.start'));
      return;
    }
    running = false;
    session.post('Profiler.stop', (err, res) => {
      const path = join(dir, `${name}-${process.pid}.cpuprofile`);
      if (!err) writeFileSync(path, JSON.stringify(res.profile));
      process.stdout.write(JSON.stringify({ profiled: err ? null : path }) + '\n');
    });
  });
}
