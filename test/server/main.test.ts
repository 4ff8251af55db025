// `npm start`'s server process: listens on PORT with DATABASE_PATH, answers, and exits cleanly on SIGTERM.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { io as ioClient } from 'socket.io-client';

test('server/main.ts serves on PORT with DATABASE_PATH and shuts down cleanly on SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'opsroom-main-'));
  const dbPath = join(dir, 'nested', 'opsroom.db');
  const main = fileURLToPath(new URL('../../server/main.ts', import.meta.url));
  const proc = spawn(process.execPath, ['--import', 'tsx', main], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: dbPath, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      createInterface({ input: proc.stdout! }).on('line', (line) => {
        const m = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
        if (m) resolve(m[1]);
      });
      proc.once('exit', (c) => reject(new Error(`exited ${c}`)));
    });
    expect(existsSync(dbPath)).toBe(true);
    const health = await fetch(`${url}/api/health`);
    expect(await health.json()).toMatchObject({ ok: true });
    const created = await fetch(`${url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(created.status).toBe(201);
    // A connected socket does not keep the process from stopping.
    const client = ioClient(url, { transports: ['websocket'], reconnection: false });
    await new Promise<void>((r) => client.once('connect', () => r()));
    const disconnected = new Promise<void>((r) => client.once('disconnect', () => r()));
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    await disconnected;
  } finally {
    if (proc.exitCode === null) proc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);
