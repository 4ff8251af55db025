// Starts the server in a child process (for SIGKILL tests) and talks to it over HTTP and socket.io.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { io as ioClient } from 'socket.io-client';
import type { Client } from './helpers.ts';

const fixture = fileURLToPath(new URL('./fixtures/serve.ts', import.meta.url));

export interface ChildServer {
  proc: ChildProcess;
  url: string;
  clients: Client[];
  advance(ms: number): Promise<void>;
  connect(): Promise<Client>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function startChild(databasePath: string, clockStart?: number): Promise<ChildServer> {
  const proc = spawn(process.execPath, ['--import', 'tsx', fixture], {
    env: { ...process.env, DATABASE_PATH: databasePath, ...(clockStart ? { CLOCK_START: String(clockStart) } : {}) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const first = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: proc.stdout! });
    rl.once('line', (l) => resolve(l));
    proc.once('exit', (code) => reject(new Error(`server exited early (${code})`)));
  });
  const url = `http://127.0.0.1:${JSON.parse(first).port}`;
  const clients: Client[] = [];
  return {
    proc,
    url,
    clients,
    async advance(ms) {
      const r = await fetch(`${url}/__test/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ms }),
      });
      if (!r.ok) throw new Error(`advance: ${r.status}`);
    },
    connect() {
      const c: Client = ioClient(url, { transports: ['websocket'], forceNew: true, reconnection: false });
      clients.push(c);
      return new Promise((resolve, reject) => {
        c.once('connect', () => resolve(c));
        c.once('connect_error', reject);
      });
    },
    async kill(signal = 'SIGKILL') {
      for (const c of clients) c.disconnect();
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill(signal);
      await exited;
    },
  };
}

/**
 * Server processes on one database file in a scratch folder, for a test file: every process started
 * through it is killed, and the folder removed, after the file's tests.
 */
export function childServers(prefix: string): { dbPath: string; start(clockStart?: number): Promise<ChildServer> } {
  const dir = mkdtempSync(join(tmpdir(), `opsroom-${prefix}-`));
  const dbPath = join(dir, 'opsroom.db');
  const children: ChildServer[] = [];
  afterAll(async () => {
    for (const c of children) await c.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dbPath,
    async start(clockStart) {
      const c = await startChild(dbPath, clockStart);
      children.push(c);
      return c;
    },
  };
}
