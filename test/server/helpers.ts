// Test helpers: a real server on port 0 with a manual clock, and typed socket.io clients.
import type { FastifyInstance } from 'fastify';
import { io as ioClient, type Socket } from 'socket.io-client';
import WebSocket from 'ws';
import type { ClientToServer, ServerToClient } from '../../shared/protocol/events.ts';
import type { AckResult } from '../../shared/protocol/types.ts';
import { buildApp, type AppOptions } from '../../server/app.ts';
import { SqliteEngine } from '../../server/db/sqlite.ts';
import { SqlStore } from '../../server/db/store.ts';
import { ManualClock } from '../../server/lib/clock.ts';

export type Client = Socket<ServerToClient, ClientToServer>;

export interface TestServer {
  app: FastifyInstance;
  url: string;
  clock: ManualClock;
  clients: Client[];
  close(): Promise<void>;
}

export async function startServer(opts: Partial<AppOptions> = {}): Promise<TestServer> {
  const clock = (opts.clock as ManualClock | undefined) ?? new ManualClock();
  const app = await buildApp({ databasePath: ':memory:', webRoot: null, ...opts, clock });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const clients: Client[] = [];
  return {
    app,
    url,
    clock,
    clients,
    async close() {
      for (const c of clients) c.disconnect();
      await app.close();
    },
  };
}

/** Moves a test server's clock and waits until every room has handled (stored and sent) what fell due. */
export async function advance(server: TestServer, ms: number): Promise<void> {
  server.clock.advance(ms);
  await server.app.rooms.settled();
}

/** The value of one series of a Prometheus text scrape (0 when absent), matched by name and labels. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const m = /^([\w:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return 0;
}

/** How many refusals of one limit a test server's /metrics counts. */
export async function refusals(server: TestServer, limit: string): Promise<number> {
  return sample(await (await fetch(`${server.url}/metrics`)).text(), 'opsroom_rate_limited_total', { limit });
}

/** The SQLite connection under a test server's store, for counting rows directly. */
export function sqliteOf(server: TestServer) {
  const { store } = server.app;
  if (!(store instanceof SqlStore && store.engine instanceof SqliteEngine))
    throw new Error('the test server does not run on SQLite');
  return store.engine.db;
}

/** The transport each client had when it connected (before any upgrade). */
export const firstTransport = new WeakMap<Client, string>();

export function connect(server: TestServer, transports: ('websocket' | 'polling')[] = ['websocket']): Promise<Client> {
  const c: Client = ioClient(server.url, { transports, forceNew: true, reconnection: false });
  server.clients.push(c);
  // The engine opens on its first transport; an upgrade to websocket may follow before 'connect'.
  c.io.once('open', () => firstTransport.set(c, c.io.engine.transport.name));
  return new Promise((resolve, reject) => {
    c.once('connect', () => resolve(c));
    c.once('connect_error', reject);
  });
}

/** Emits an event and resolves with its acknowledgement. */
export function request<E extends keyof ClientToServer>(
  c: Client,
  event: E,
  payload: Parameters<ClientToServer[E]>[0],
): Promise<AckResult<any>> {
  return new Promise((resolve) => (c.emit as (...a: unknown[]) => void)(event, payload, resolve));
}

/** Like request, but fails the test unless the answer is ok. */
export async function ok<E extends keyof ClientToServer>(
  c: Client,
  event: E,
  payload: Parameters<ClientToServer[E]>[0],
): Promise<any> {
  const r = await request(c, event, payload);
  if (!r.ok) throw new Error(`${event} failed: ${JSON.stringify(r.error)}`);
  return r;
}

/** Collects every payload of an event a client receives. */
export function collect<E extends keyof ServerToClient>(c: Client, event: E): Parameters<ServerToClient[E]>[0][] {
  const out: Parameters<ServerToClient[E]>[0][] = [];
  (c.on as (e: string, fn: (p: unknown) => void) => void)(event, (p) =>
    out.push(p as Parameters<ServerToClient[E]>[0]),
  );
  return out;
}

/** `p`'s value, and how many turns of the event loop passed until it settled (work done in slices gives many). */
export async function turnsUntil<T>(p: Promise<T>): Promise<{ value: T; turns: number }> {
  let done = false;
  const settled = p.finally(() => {
    done = true;
  });
  let turns = 0;
  while (!done) {
    await new Promise((r) => setImmediate(r));
    turns++;
  }
  return { value: await settled, turns };
}

/** Resolves when `cond` holds, polling on the event loop (no timers of the manual clock involved). */
export async function until(cond: () => boolean, what = 'condition', ms = 5000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

export async function createRoom(
  server: TestServer,
  body: object = {},
  key?: string,
): Promise<{ code: string; teacherKey: string; room: any }> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/rooms',
    payload: body,
    headers: key ? { authorization: `Bearer ${key}` } : {},
  });
  if (res.statusCode !== 201) throw new Error(`create room: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** A room created over HTTP on a server at `url` (a process of its own, or a proxy in front of some), as a page does. */
export async function createRoomAt(url: string, body: object = {}): Promise<{ code: string; teacherKey: string }> {
  const res = await fetch(`${url}/api/rooms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`create room: ${res.status} ${await res.text()}`);
  return res.json();
}

/** The plain WebSocket feed of a room, with every message it has sent so far (parsed). */
export function openFeed(server: TestServer, code: string): Promise<{ ws: WebSocket; messages: any[] }> {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/api/rooms/${code}/feed`);
  const messages: any[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(String(d))));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, messages }));
    ws.once('error', reject);
  });
}
