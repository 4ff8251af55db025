// `npm run cluster`'s launcher (dist/server/cli/cluster.js, compiled as the script runs it): Caddy serves both
// members on one address, a member killed with SIGKILL is started again while the other goes on behind that same
// address, Caddy killed is started again, and a SIGTERM — what npm passes on, the script exec'ing the
// launcher so that it is the one that gets it — stops the members, then PostgreSQL and Redis, and removes their data.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, test } from 'vitest';
import { freePort } from '../../server/cluster/services.ts';
import { compiledServer } from '../server/compiled.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('the npm script execs the launcher, so that a signal through npm reaches it', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  expect(pkg.scripts.cluster).toMatch(/&& exec node dist\/server\/cli\/cluster\.js$/);
});

test('one address through Caddy; a member that dies is started again; SIGTERM stops everything, data included', async () => {
  const launcher = join(compiledServer(), '..', 'cli', 'cluster.js');
  // Free ports in a row for Caddy (PORT) and the members (PORT+1, PORT+2).
  let port = await freePort();
  while (port > 65000) port = await freePort();
  const proc = spawn(process.execPath, [launcher], {
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve: (l: string) => void }[] = [];
  for (const s of [proc.stdout, proc.stderr])
    createInterface({ input: s }).on('line', (l) => {
      lines.push(l);
      for (const w of [...waiters]) if (w.re.test(l)) waiters.splice(waiters.indexOf(w), 1) && w.resolve(l);
    });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const line = (re: RegExp, ms = 60_000) =>
    new Promise<string>((resolve, reject) => {
      const found = lines.find((l) => re.test(l));
      if (found) return resolve(found);
      waiters.push({ re, resolve });
      setTimeout(() => reject(new Error(`no line ${re} within ${ms} ms:\n${lines.join('\n')}`)), ms);
    });
  try {
    await line(/Opsroom cluster is ready/);
    const caddy = Number(/Caddy .*\(pid (\d+);/.exec(await line(/ {2}Caddy /))![1]);
    expect(await line(/ {2}Caddy /)).toContain(`http://localhost:${port} `);
    const first = Number(/opsroom-1 .*\(pid (\d+)\)/.exec(await line(/ {2}opsroom-1 /))![1]);
    expect(await line(/ {2}opsroom-2 /)).toContain(`http://127.0.0.1:${port + 2} `);
    const data = /data in (\S+)\)/.exec(await line(/PostgreSQL {2}/))![1];
    expect(existsSync(data)).toBe(true);
    // Through Caddy: a page, and a process's readiness.
    const page = await fetch(`http://127.0.0.1:${port}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    expect((await fetch(`http://127.0.0.1:${port}/api/ready`)).status).toBe(200);

    process.kill(first, 'SIGKILL');
    await line(/opsroom-1 \(pid \d+\) stopped \(SIGKILL\); the other one goes on/);
    // The one address still answers while opsroom-1 is down: Caddy tries the other.
    for (let i = 0; i < 4; i++) expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
    const back = await line(/opsroom-1 is back \(pid (\d+)\)/);
    const again = Number(/pid (\d+)/.exec(back)![1]);
    expect(again).not.toBe(first);
    expect((await fetch(`http://127.0.0.1:${port + 1}/api/health`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port + 2}/api/health`)).status).toBe(200);

    // Caddy killed: started again on the same address.
    process.kill(caddy, 'SIGKILL');
    await line(/Caddy \(pid \d+\) stopped \(SIGKILL\); starting it again/);
    const caddyAgain = Number(/pid (\d+)/.exec(await line(/Caddy is back \(pid \d+\)/))![1]);
    expect(caddyAgain).not.toBe(caddy);
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);

    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(lines.some((l) => /Stopped; the temporary data folder is removed/.test(l))).toBe(true);
    expect(alive(again)).toBe(false);
    expect(alive(caddyAgain)).toBe(false);
    expect(existsSync(data)).toBe(false);
  } finally {
    if (proc.exitCode === null) proc.kill('SIGKILL');
  }
}, 120_000);
