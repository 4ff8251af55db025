// A test cluster: a throwaway PostgreSQL and Redis (server/cluster/services.ts) and Opsroom processes on them
// (fixtures/node.ts), each killed — and the services stopped — after the file's tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { io as ioClient } from 'socket.io-client';
import { afterAll, beforeAll } from 'vitest';
import { startServices } from '../../server/cluster/services.ts';
import { openPostgres } from '../../server/db/open.ts';
import type { SqlStore } from '../../server/db/store.ts';
import type { Client } from '../server/helpers.ts';

const fixture = fileURLToPath(new URL('./fixtures/node.ts', import.meta.url));

export interface Node {
  name: string;
  proc: ChildProcess;
  /** What the process printed, a line each. */
  lines: string[];
  url: string;
  clients: Client[];
  /** Moves this process's room clock; resolves once what fell due is stored and sent. */
  advance(ms: number): Promise<void>;
  /** Looks for rooms nobody holds now (as the process does every few seconds by itself). */
  scan(): Promise<string[]>;
  rooms(): Promise<{
    held: { code: string; state: string; minute: number }[];
    events: { msg: string; room?: string; reason?: string; failover?: boolean }[];
    /** Every line the process logged at warn or above, and its lines about Redis and storage coming back. */
    logs: { level: number; msg: string; room?: string }[];
  }>;
  connect(): Promise<Client>;
  post(path: string, body: object): Promise<Response>;
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** The process has not exited. */
  alive(): boolean;
}

export function testCluster(prefix: string) {
  let services: Awaited<ReturnType<typeof startServices>> | null = null;
  let databaseUrl = '';
  const nodes: Node[] = [];
  const extras: { close(): unknown }[] = [];
  afterAll(async () => {
    for (const n of nodes) await n.kill();
    for (const e of extras) await e.close();
    await services?.stop();
  });
  return {
    async services() {
      services = await startServices();
      databaseUrl = await services.postgres.createDatabase();
      return { databaseUrl, redisUrl: services.redis.url, postgres: services.postgres, redis: services.redis };
    },
    /** A connection of the test's own to the cluster's Redis. */
    redis(): Redis {
      const r = new Redis(services!.redis.url);
      extras.push({ close: () => r.disconnect() });
      return r;
    },
    /** The cluster's database, read by the test. */
    async store(): Promise<SqlStore> {
      const s = await openPostgres(databaseUrl);
      extras.push(s);
      return s;
    },
    async start(name: string, env: Record<string, string> = {}): Promise<Node> {
      const proc = spawn(process.execPath, ['--import', 'tsx', fixture], {
        env: {
          ...process.env,
          DATABASE_URL: databaseUrl,
          REDIS_URL: services!.redis.url,
          NODE_NAME: `${prefix}-${name}`,
          ...env,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const lines: string[] = [];
      const first = await new Promise<string>((resolve, reject) => {
        const rl = createInterface({ input: proc.stdout! });
        rl.on('line', (l) => {
          lines.push(l);
          if (lines.length === 1) resolve(l);
        });
        proc.once('exit', (code) => reject(new Error(`${name} exited early (${code})`)));
      });
      const url = `http://127.0.0.1:${JSON.parse(first).port}`;
      const clients: Client[] = [];
      const post = (path: string, body: object) =>
        fetch(`${url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const node: Node = {
        name: JSON.parse(first).node,
        proc,
        lines,
        url,
        clients,
        post,
        async advance(ms) {
          const r = await post('/__test/advance', { ms });
          if (!r.ok) throw new Error(`advance: ${r.status}`);
        },
        async scan() {
          return (await (await post('/__test/scan', {})).json()).taken;
        },
        async rooms() {
          return (await fetch(`${url}/__test/rooms`)).json();
        },
        connect() {
          const c: Client = ioClient(url, { transports: ['websocket'], forceNew: true, reconnection: false });
          clients.push(c);
          return new Promise((resolve, reject) => {
            c.once('connect', () => resolve(c));
            c.once('connect_error', reject);
          });
        },
        alive: () => proc.exitCode === null && proc.signalCode === null,
        async kill(signal = 'SIGKILL') {
          // A graceful stop tells its sockets first: they stay connected until it closes them.
          if (signal === 'SIGKILL') for (const c of clients) c.disconnect();
          if (proc.exitCode !== null || proc.signalCode !== null) return;
          const exited = new Promise((r) => proc.once('exit', r));
          proc.kill(signal);
          await exited;
        },
      };
      nodes.push(node);
      return node;
    },
  };
}

/**
 * Two processes, A and B, on the file's fresh services, and the test's own connection to the cluster's database:
 * started before the file's tests (read the fields inside a test).
 */
export function nodePair(cluster: ReturnType<typeof testCluster>): { a: Node; b: Node; store: SqlStore } {
  const pair = {} as { a: Node; b: Node; store: SqlStore };
  beforeAll(async () => {
    await cluster.services();
    [pair.a, pair.b] = await Promise.all([cluster.start('a'), cluster.start('b')]);
    pair.store = await cluster.store();
  });
  return pair;
}
