// `npm run bench -- --only startup`: how long `npm start` takes to serve, as a teacher runs it after `npm ci` — from
// the command to the first `200` of /api/health (polled every 20 ms), five times on a fresh database and five on the
// same file; and what the start prints. Needs the build (`npm ci` or `npm run build`). ~20 s.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt } from './stats.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One start: ms until /api/health answers 200, and everything the process printed until then and on its stop. */
async function once(databasePath: string, port: number): Promise<{ ms: number; output: string; code: number | null }> {
  const t0 = performance.now();
  const proc = spawn('npm', ['start'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), DATABASE_PATH: databasePath },
  });
  let output = '';
  proc.stdout.on('data', (d) => (output += d));
  proc.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((r) => proc.once('exit', r));
  let ms = Number.NaN;
  for (let tries = 0; tries < 1500 && proc.exitCode === null; tries++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/health`)).status === 200) {
        ms = performance.now() - t0;
        break;
      }
    } catch {
      // Not listening yet.
    }
    await sleep(20);
  }
  proc.kill('SIGTERM');
  return { ms, output, code: await exited };
}

export async function benchStartup(runs = 5) {
  if (!existsSync(join(root, 'dist/server/main.js')) || !existsSync(join(root, 'build/index.html')))
    throw new Error('no build: run npm ci or npm run build first');
  const dir = mkdtempSync(join(tmpdir(), 'opsroom-startup-'));
  try {
    const fresh: number[] = [];
    const again: number[] = [];
    let first: Awaited<ReturnType<typeof once>> | null = null;
    for (let i = 0; i < runs; i++) {
      const r = await once(join(dir, `fresh-${i}.db`), 3950 + i);
      first ??= r;
      fresh.push(r.ms);
    }
    for (let i = 0; i < runs; i++) again.push((await once(join(dir, 'fresh-0.db'), 3960 + i)).ms);
    return { fresh, again, first: first as Awaited<ReturnType<typeof once>> };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function reportStartup(r: Awaited<ReturnType<typeof benchStartup>>): string {
  const range = (ms: number[]) => {
    const s = [...ms].sort((a, b) => a - b);
    return `${fmt(s[0] / 1000, 2)}–${fmt(s[s.length - 1] / 1000, 2)} s (median ${fmt(s[s.length >> 1] / 1000, 2)})`;
  };
  return [
    `  to the first 200 of /api/health: a fresh database ${range(r.fresh)}, an existing one ${range(r.again)}`,
    `  what the first start printed (exit ${r.first.code}):`,
    ...r.first.output
      .trimEnd()
      .split('\n')
      .map((l) => `    ${l}`),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(reportStartup(await benchStartup()));
