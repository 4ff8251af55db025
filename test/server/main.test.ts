// `npm start`'s server process, compiled and run by node as `npm start` runs it: checks its environment, listens
// on PORT with DATABASE_PATH, says where to join and nothing else, and on SIGTERM pauses running rounds, tells every
// socket, closes the database and says so.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, expect, test } from 'vitest';
import { io as ioClient } from 'socket.io-client';
import type { ProtocolNotice, RoomView } from '../../shared/protocol/types.ts';
import { openSqlite } from '../../server/db/open.ts';
import { compiledServer } from './compiled.ts';
import { collect, createRoomAt, ok, type Client } from './helpers.ts';

const main = compiledServer();
const dir = mkdtempSync(join(tmpdir(), 'opsroom-main-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** dist/server/main.js in a child process, as `npm start` runs it; its stdout lines (JSON: stdout is not a terminal) as they come. */
function startMain(env: Record<string, string>) {
  const proc = spawn(process.execPath, [main], {
    env: { ...process.env, LOG_FORMAT: '', LOG_LEVEL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: string[] = [];
  const err: string[] = [];
  const waiters: { match: (l: string) => boolean; resolve: (l: string) => void }[] = [];
  createInterface({ input: proc.stdout! }).on('line', (l) => {
    out.push(l);
    for (const w of [...waiters]) {
      if (!w.match(l)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(l);
    }
  });
  createInterface({ input: proc.stderr! }).on('line', (l) => err.push(l));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  return {
    proc,
    out,
    err,
    exited,
    /** The first JSON log line with this message. */
    line(msg: string): Promise<Record<string, any>> {
      const found = out.find((l) => l.includes(`"msg":"${msg}`));
      const text = found
        ? Promise.resolve(found)
        : new Promise<string>((resolve, reject) => {
            waiters.push({ match: (l) => l.includes(`"msg":"${msg}`), resolve });
            exited.then((c) => reject(new Error(`exited ${c} before "${msg}": ${err.join('\n')}`)));
          });
      return text.then((l) => JSON.parse(l));
    },
  };
}

test('npm start runs the compiled server with node, without flags', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  expect(pkg.scripts.start).toBe('exec node dist/server/main.js');
});

test('a terminal sees the start block and nothing else until the stop', async () => {
  const dbPath = join(dir, 'quiet.db');
  const server = startMain({ PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: dbPath, LOG_FORMAT: 'pretty' });
  try {
    await new Promise<void>((resolve, reject) => {
      const seen = () => server.out.some((l) => l.startsWith('  To stop'));
      const timer = setInterval(() => {
        if (seen()) {
          clearInterval(timer);
          resolve();
        }
      }, 20);
      server.exited.then((c) => reject(new Error(`exited ${c}: ${server.err.join('\n')}`)));
    });
    // Each line's label: the text before its first run of spaces.
    expect(server.out.map((l) => l.trim().split(/\s{2,}/)[0])).toEqual([
      'Opsroom is ready.',
      'Students join at',
      'On this computer',
      'Database',
      'Metrics',
      'To stop',
    ]);
    expect(server.err).toEqual([]);
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
  }
}, 30_000);

test('serves, pauses the running round on SIGTERM, tells every socket, closes the database and says so', async () => {
  const dbPath = join(dir, 'nested', 'opsroom.db');
  const server = startMain({ PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: dbPath });
  const clients: Client[] = [];
  try {
    const ready = await server.line('Opsroom is ready');
    expect(ready).toMatchObject({
      level: 30,
      database: dbPath,
      loopbackOnly: true,
      join: [],
      local: `http://localhost:${ready.port}`,
    });
    const url = `http://127.0.0.1:${ready.port}`;
    expect(existsSync(dbPath)).toBe(true);
    expect(await (await fetch(`${url}/api/health`)).json()).toMatchObject({ ok: true });

    // Tempo 20: no minute comes on its own during the test (the server runs on the real clock).
    const { code, teacherKey } = await createRoomAt(url, { teamCount: 1, tempo: 20, minutes: 30 });
    const connect = async (transports: ('websocket' | 'polling')[]) => {
      const c: Client = ioClient(url, { transports, reconnection: false, forceNew: true });
      clients.push(c);
      await new Promise<void>((r) => c.once('connect', () => r()));
      return c;
    };
    // A long-polling client gets the notice too: the stop waits until it is handed over.
    const teacher = await connect(['websocket']);
    await ok(teacher, 'teacher:join', { code, key: teacherKey });
    const student = await connect(['polling']);
    await ok(student, 'student:join', { code, name: 'Ann' });
    const started = await ok(teacher, 'teacher:clock', { action: 'start' });
    expect(started.room.round.state).toBe('running');
    const roundId = started.room.round.id;

    // Each socket hears why, and the paused room, before its connection closes.
    const heard = clients.map((c) => {
      const notices = collect(c, 'notice');
      const rooms = collect(c, 'room');
      return new Promise<{ notices: ProtocolNotice[]; rooms: RoomView[] }>((r) =>
        c.once('disconnect', () => r({ notices, rooms })),
      );
    });
    server.proc.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    for (const h of await Promise.all(heard)) {
      expect(h.notices.map((n) => n.code)).toEqual(['SERVER_STOPPING']);
      expect(h.rooms.at(-1)?.round.state).toBe('paused');
    }
    const stopped = await server.line('stopped');
    expect(stopped).toMatchObject({ roundsPaused: 1, pauseFailed: 0, socketsTold: 2, feedsClosed: 0 });
    expect(stopped.msg).toBe(
      `stopped: 1 running round paused and stored, 2 sockets told, 0 feeds closed, database ${dbPath} closed`,
    );
    expect(server.err).toEqual([]);

    // The database, closed cleanly, says paused at minute 0.
    const store = openSqlite(dbPath);
    expect(await store.roundById(roundId)).toMatchObject({ state: 'paused', minute: 0 });
    await store.close();
  } finally {
    for (const c of clients) c.disconnect();
    if (server.proc.exitCode === null) server.proc.kill('SIGKILL');
  }
}, 30_000);

test('a bad PORT stops the start with exit code 2 and one line naming it', async () => {
  const server = startMain({ PORT: 'abc', DATABASE_PATH: join(dir, 'never.db') });
  expect(await server.exited).toBe(2);
  expect(server.err).toEqual(['opsroom: PORT=abc: must be a whole number from 0 to 65535']);
  expect(server.out).toEqual([]);
  expect(existsSync(join(dir, 'never.db'))).toBe(false);
}, 30_000);
