// What a bench server reports about itself over the measured window, driven by its parent (fanout.ts):
// - {"do":"measure"} on stdin starts the window, {"do":"report"} ends it and prints {"probe": {...}}: the event
//   loop's delay (p50, p99, max, beyond the sampling interval) and the garbage collections (count and total and
//   longest pause, by kind) — what a late minute waited for;
// - with CPU_PROFILE_DIR set, the first SIGUSR2 starts V8's CPU profiler and the second writes
//   DIR/<name>-<pid>.cpuprofile and prints {"profiled": path} (the bench's `--cpu-prof DIR`: the measured
//   window only, unlike `node --cpu-prof`).
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver, constants } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

const RESOLUTION_MS = 10;
const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak',
};

export interface ProbeReport {
  loopDelayMs: { p50: number; p99: number; max: number };
  gc: Record<string, { count: number; totalMs: number; maxMs: number }>;
  /** process.memoryUsage() at the end of the window, in MB. */
  memoryMB: { rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number };
}

const print = (msg: object) => process.stdout.write(`${JSON.stringify(msg)}\n`);

export function probeServer(name: string): void {
  const loop = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  let gc: ProbeReport['gc'] = {};
  const gcs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = GC_KINDS[(e as unknown as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
      gc[kind] ??= { count: 0, totalMs: 0, maxMs: 0 };
      const k = gc[kind];
      k.count++;
      k.totalMs += e.duration;
      k.maxMs = Math.max(k.maxMs, e.duration);
    }
  });
  // The delay histogram holds the intervals between samples: what exceeds the resolution is the delay.
  const delay = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  createInterface({ input: process.stdin }).on('line', (line) => {
    const cmd = JSON.parse(line) as { do: 'measure' | 'report' };
    if (cmd.do === 'measure') {
      gc = {};
      loop.reset();
      loop.enable();
      gcs.observe({ entryTypes: ['gc'] });
    } else if (cmd.do === 'report') {
      loop.disable();
      gcs.disconnect();
      const m = process.memoryUsage();
      const mb = (b: number) => Math.round(b / 2 ** 20);
      const memoryMB = {
        rss: mb(m.rss),
        heapUsed: mb(m.heapUsed),
        heapTotal: mb(m.heapTotal),
        external: mb(m.external),
        arrayBuffers: mb(m.arrayBuffers),
      };
      print({
        probe: {
          loopDelayMs: { p50: delay(loop.percentile(50)), p99: delay(loop.percentile(99)), max: delay(loop.max) },
          gc,
          memoryMB,
        } satisfies ProbeReport,
      });
    }
  });

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
      print({ profiled: err ? null : path });
    });
  });
}
