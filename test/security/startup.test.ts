// Start-up and the database (issue 13 items 7 and 8): a bad DATABASE_PATH fails fast with one line and
// exit code 78; a round that cannot be rebuilt is logged and skipped while the rest are served;
// health reports SQLite's quick check and whether the database can be written.
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { EXIT_CODES } from '../../server/config.ts';
import { PROBE_EVERY_MS } from '../../server/db/health.ts';
import { ManualClock } from '../../server/lib/clock.ts';
import { advance, connect, createRoom, ok, sqliteOf, startServer, type TestServer } from '../server/helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'opsroom-startup-'));
// Open to other users, so that the locked case below tests the lock, not this folder.
chmodSync(dir, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const main = fileURLToPath(new URL('../../server/main.ts', import.meta.url));

/** Runs server/main.ts until it exits (killed after 15 s: a spinning start fails the test). */
function runMain(databasePath: string, asNobody = false): Promise<{ code: number | null; stderr: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', main], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_PATH: databasePath, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(asNobody ? { uid: 65534, gid: 65534 } : {}),
  });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
  return new Promise((resolve) =>
    proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

describe('a bad DATABASE_PATH fails fast with one clear line', () => {
  const notADb = join(dir, 'not-a-db.db');
  writeFileSync(
    notADb,
    'this is a text file, not an SQLite database, and it is long enough to have a header\n'.repeat(4),
  );
  const file = join(dir, 'plain-file');
  writeFileSync(file, '');
  const locked = join(dir, 'locked');
  mkdirSync(locked);
  const root = process.getuid?.() === 0;
  // Root ignores file modes: the locked case runs as `nobody` then; otherwise the folder is made read-only.
  if (!root) chmodSync(locked, 0o555);

  test.each([
    ['/proc/x/y.db', /database path \/proc\/x\/y\.db: cannot create the folder \/proc\/x/, false],
    [dir, /is a folder, not a file/, false],
    [join(file, 'x.db'), /plain-file is not a folder/, false],
    [notADb, /cannot open a database there \(SQLITE_NOTADB/, false],
    [join(locked, 'sub', 'x.db'), /cannot create the folder .*locked\/sub \(EACCES/, root],
  ] as const)('%s', async (path, message, asNobody) => {
    const { code, stderr } = await runMain(path, asNobody);
    expect(code).toBe(EXIT_CODES.databaseUnusable);
    const lines = stderr.trim().split('\n');
    expect(lines, stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^opsroom: /);
    expect(lines[0]).toMatch(message);
  });
});

/** A logger whose lines the test can read. */
function capture(): { logger: object; lines: () => any[] } {
  const out: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      out.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: { level: 'info', stream }, lines: () => out.map((l) => JSON.parse(l)) };
}

/** Two rooms with a round each, left paused by a clean shutdown: `a` short, `b` long and played last. */
async function twoPausedRounds(dbPath: string): Promise<{ a: string; b: string }> {
  const server = await startServer({ databasePath: dbPath, clock: new ManualClock() });
  const codes: string[] = [];
  for (const minutes of [5, 40]) {
    const { code, teacherKey } = await createRoom(server, { teamCount: 1, minutes, tempo: 1 });
    const teacher = await connect(server);
    await ok(teacher, 'teacher:join', { code, key: teacherKey });
    await ok(teacher, 'teacher:clock', { action: 'start' });
    await advance(server, (minutes - 1) * 1000);
    await ok(teacher, 'teacher:clock', { action: 'pause' });
    codes.push(code);
  }
  await server.close();
  return { a: codes[0], b: codes[1] };
}

describe('recovery and health', () => {
  let server: TestServer | undefined;
  afterAll(() => server?.close());

  test('a round whose rows are damaged is logged and skipped; the other round is served', async () => {
    const dbPath = join(dir, 'bad-row.db');
    const { a, b } = await twoPausedRounds(dbPath);
    const raw = new Database(dbPath);
    const roundB = raw
      .prepare('SELECT rounds.id FROM rounds JOIN rooms ON rooms.id = rounds.room_id WHERE rooms.code = ?')
      .pluck()
      .get(b);
    raw.prepare("UPDATE rounds SET scenario = 'vanished' WHERE id = ?").run(roundB);
    raw.close();

    const log = capture();
    server = await startServer({ databasePath: dbPath, logger: log.logger as never });
    expect(server.app.rooms.peek(a)?.view('teacher').round.state).toBe('paused');
    expect(server.app.rooms.peek(b)).toBeUndefined();
    expect(log.lines().find((l) => l.msg === 'could not recover the room')).toMatchObject({ level: 50, round: roundB });
    const ready = await server.app.inject({ method: 'GET', url: '/api/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ ready: true, database: { intact: true, writable: true } });
    await server.close();
    server = undefined;
  });

  test('a damaged page: the quick check finds it, readiness says not ready, the intact round is served', async () => {
    const dbPath = join(dir, 'bad-page.db');
    const { a, b } = await twoPausedRounds(dbPath);
    const raw = new Database(dbPath);
    raw.pragma('wal_checkpoint(TRUNCATE)');
    const pageSize = raw.pragma('page_size', { simple: true }) as number;
    // Room b's minutes were written last: the last leaf page of the snapshots table holds only them.
    const pages = raw
      .prepare("SELECT pageno FROM dbstat WHERE name = 'snapshots' AND pagetype = 'leaf' ORDER BY pageno")
      .pluck()
      .all() as number[];
    raw.close();
    expect(pages.length).toBeGreaterThan(2);
    const fd = openSync(dbPath, 'r+');
    writeSync(fd, Buffer.alloc(64, 0xff), 0, 64, (pages[pages.length - 1] - 1) * pageSize);
    closeSync(fd);

    const log = capture();
    server = await startServer({ databasePath: dbPath, logger: log.logger as never });
    expect(server.app.rooms.peek(a)?.view('teacher').round.state).toBe('paused');
    expect(server.app.rooms.peek(b)).toBeUndefined();
    expect(log.lines().some((l) => l.msg.startsWith('the database failed its quick check'))).toBe(true);
    const ready = await server.app.inject({ method: 'GET', url: '/api/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({
      ready: false,
      reasons: ['the database failed its check at start'],
      database: { intact: false, writable: true, problems: [expect.any(String)] },
    });
    // The process itself works: liveness says so.
    expect((await server.app.inject({ method: 'GET', url: '/api/health' })).json()).toMatchObject({ ok: true });
    await server.close();
    server = undefined;
  });

  test('readiness says not ready while the database cannot be written, and ready again after; liveness stays ok', async () => {
    server = await startServer({ databasePath: join(dir, 'health.db') });
    const health = () => server!.app.inject({ method: 'GET', url: '/api/ready' });
    expect((await health()).json()).toMatchObject({ ready: true, database: { intact: true, writable: true } });
    // SQLite refuses every write from now on, as it would on a read-only or failing disk.
    sqliteOf(server).pragma('query_only = ON');
    await advance(server, PROBE_EVERY_MS);
    const down = await health();
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({
      ready: false,
      reasons: ['the database cannot be written'],
      database: { writable: false, writeError: expect.stringMatching(/readonly/) },
    });
    expect((await server.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    sqliteOf(server!).pragma('query_only = OFF');
    await advance(server!, PROBE_EVERY_MS);
    expect((await health()).statusCode).toBe(200);
    // From the first moment of a stop, not ready: a load balancer sends nobody new.
    server!.app.rooms.stopTaking();
    expect((await health()).json()).toMatchObject({ ready: false, reasons: ['the server is stopping'] });
    expect((await server!.app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
  });
});
