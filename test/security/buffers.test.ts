// Clients that do not read (issue 13 item 1): every connection has a cap on the bytes waiting to be sent
// to it — socket.io on both transports and the plain feed — and is cut past it, while a class in another
// room keeps getting its minutes. The feed is read-only: a client that keeps sending is cut off too.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_CONNECTION_LIMITS } from '../../server/realtime/guard.ts';
import {
  advance,
  collect,
  connect,
  createRoom,
  ok,
  refusals,
  startServer,
  until,
  type Client,
  type TestServer,
} from '../server/helpers.ts';
import { rawFeed, rawSocketIo } from './raw-clients.ts';

let server: TestServer;
/** Room A: a class at work, whose minutes must keep coming. */
let classroom: { code: string; student: Client };
/** Room B: 30 teams in a long round, whose answers are large (a team's history ~260 KB, the teacher's ~500 KB). */
let big: { code: string; teacherKey: string; teamId: number };

beforeAll(async () => {
  server = await startServer();
  const a = await createRoom(server, { teamCount: 1, minutes: 240, tempo: 5 });
  const b = await createRoom(server, { teamCount: 30, minutes: 240, tempo: 1 });
  const teacherA = await connect(server);
  await ok(teacherA, 'teacher:join', { code: a.code, key: a.teacherKey });
  const student = await connect(server);
  await ok(student, 'student:join', { code: a.code, name: 'Ann' });
  const teacherB = await connect(server);
  await ok(teacherB, 'teacher:join', { code: b.code, key: b.teacherKey });
  const bob = await connect(server);
  const joined = await ok(bob, 'student:join', { code: b.code, name: 'Bob' });
  await ok(teacherB, 'teacher:clock', { action: 'start' });
  // 200 minutes, ten at a time: the teacher's page reads them as they come.
  for (let i = 0; i < 20; i++) await advance(server, 10_000);
  await ok(teacherA, 'teacher:clock', { action: 'start' });
  classroom = { code: a.code, student };
  big = { code: b.code, teacherKey: b.teacherKey, teamId: joined.room.players[0].teamId };
});
afterAll(() => server.close());

/** Bytes the server holds for a socket: in engine.io's write buffer and in the websocket's. */
function heldFor(s: TestServer, sid: string): number {
  const conn = s.app.io.sockets.sockets.get(sid)?.conn as unknown as
    | { writeBuffer: { data?: string }[]; transport: { socket?: { bufferedAmount?: number } } }
    | undefined;
  return conn
    ? conn.writeBuffer.reduce((n, p) => n + (p.data?.length ?? 0), 0) + (conn.transport.socket?.bufferedAmount ?? 0)
    : 0;
}

/** The class in room A gets its next minute after the clock moves. */
async function classGetsNextMinute() {
  const minutes = collect(classroom.student, 'minute');
  await advance(server, 5000);
  await until(() => minutes.length === 1, 'the class in another room to get its minute');
}

test('a teacher answer is large, and a reading client gets it whole', async () => {
  const reader = await connect(server);
  await ok(reader, 'teacher:join', { code: big.code, key: big.teacherKey });
  const r = await ok(reader, 'teacher:team', { teamId: big.teamId });
  expect(JSON.stringify(r.history).length).toBeGreaterThan(200_000);
  expect(r.history.snapshots.length).toBeGreaterThan(200);
  expect(reader.connected).toBe(true);
});

describe('socket.io', () => {
  test('websocket: a teacher socket that asks for large answers and never reads them is cut past the cap', async () => {
    const before = server.app.io.engine.clientsCount;
    const c = await rawSocketIo(server.url);
    c.stopReading();
    // 30 teacher:join answers of ~500 KB (30 teams, 200 minutes): ~15 MB, far past what the kernel's
    // buffers hold (~4 MB on loopback) plus the cap.
    for (let i = 0; i < 30; i++) c.emit('teacher:join', { code: big.code, key: big.teacherKey }, i + 1);
    await until(() => server.app.io.engine.clientsCount === before, 'the non-reading socket to be cut');
    expect(await refusals(server, 'socket:queued-bytes')).toBe(1);
    c.resumeReading();
    await c.closed;
    // What reached the client is at most the kernel's share plus the cap: far from the 30 answers asked.
    expect(c.frames.filter((f) => f.startsWith('43')).length).toBeLessThan(30);
    await classGetsNextMinute();
  });

  test('long-polling: a session that never polls for its answers is cut past the cap', async () => {
    const base = `${server.url}/socket.io/?EIO=4&transport=polling`;
    const open = await (await fetch(base)).text();
    const sid = JSON.parse(open.slice(1)).sid as string;
    const url = `${base}&sid=${sid}`;
    const post = (body: string) =>
      fetch(url, { method: 'POST', body, headers: { 'content-type': 'text/plain;charset=UTF-8' } });
    await post('40');
    expect(await (await fetch(url)).text()).toMatch(/^40/);
    await post(`421${JSON.stringify(['teacher:join', { code: big.code, key: big.teacherKey }])}`);
    expect(await (await fetch(url)).text()).toMatch(/^431\[\{"ok":true/);
    // Asks for 30 large answers and never polls: they would pile up in the session's buffer.
    const ask = Array.from(
      { length: 30 },
      (_, i) => `42${i + 10}${JSON.stringify(['teacher:team', { teamId: big.teamId }])}`,
    );
    const res = await post(ask.join('\x1e'));
    expect(res.status).toBeLessThan(500);
    // The session is gone: polling it again is refused.
    const after = await fetch(url);
    expect(after.status).toBe(400);
    expect(await after.json()).toMatchObject({ message: 'Session ID unknown' });
    await classGetsNextMinute();
  });
});

describe('the feed', () => {
  test('a feed client that does not read is cut past the cap', async () => {
    const feed = await rawFeed(server.url, big.code);
    await until(() => feed.frames.length === 1, 'hello');
    feed.stopReading();
    // A long day of minutes for this room: its real summary, many times over (~12 MB).
    const summary = { type: 'summary' as const, ...(await server.app.rooms.get(big.code)).summary() };
    const copies = Math.ceil((12 << 20) / JSON.stringify(summary).length);
    for (let i = 0; i < copies; i++) server.app.feed.send(big.code, summary);
    await until(() => server.app.feed.count(big.code) === 0, 'the non-reading feed to be cut');
    expect(await refusals(server, 'feed:queued-bytes')).toBe(1);
    feed.resumeReading();
    await feed.closed;
    await classGetsNextMinute();
  });

  test('the feed is read-only: a client that keeps sending is cut off after a few answers', async () => {
    const feed = await rawFeed(server.url, big.code);
    await until(() => feed.frames.length === 1, 'hello');
    for (let i = 0; i < 1000 && feed.ws.readyState === 1; i++) feed.ws.send('x');
    await until(() => feed.ws.readyState === feed.ws.CLOSED, 'the feed to close');
    expect(await feed.closed).toBe(1008);
    const errors = feed.frames.filter((f) => JSON.parse(f).type === 'error');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.length).toBeLessThanOrEqual(DEFAULT_CONNECTION_LIMITS.feedMessages.capacity);
  });
});

describe('a slow reader', () => {
  let slow: TestServer;
  let room: { code: string; teacherKey: string; teamId: number };
  beforeAll(async () => {
    // A hard cap out of reach, so that only the slow-reader cap can act.
    slow = await startServer({
      connectionLimits: { maxQueuedBytes: 1 << 30, slowQueuedBytes: 256 << 10, slowReaderMs: 10_000 },
    });
    const r = await createRoom(slow, { teamCount: 1, minutes: 240, tempo: 1 });
    const teacher = await connect(slow);
    await ok(teacher, 'teacher:join', { code: r.code, key: r.teacherKey });
    const started = await ok(teacher, 'teacher:clock', { action: 'start' });
    await advance(slow, 200_000);
    room = { code: r.code, teacherKey: r.teacherKey, teamId: started.room.teams[0].id };
  });
  afterAll(() => slow.close());

  test('more than the slow-reader cap waiting for 10 s on end: cut then, not before', async () => {
    const before = slow.app.io.engine.clientsCount;
    const c = await rawSocketIo(slow.url);
    expect(await c.request('teacher:join', { code: room.code, key: room.teacherKey })).toMatchObject({ ok: true });
    c.stopReading();
    // ~8 MB asked: well past the kernel's buffers, so megabytes wait in the server.
    for (let i = 0; i < 30; i++) c.emit('teacher:team', { teamId: room.teamId }, i + 1);
    await until(() => heldFor(slow, c.sid) > 256 << 10, 'answers to pile up in the server');
    await advance(slow, 9_000);
    expect(slow.app.io.engine.clientsCount).toBe(before + 1);
    await advance(slow, 1_000);
    await until(() => slow.app.io.engine.clientsCount === before, 'the slow reader to be cut');
    expect(await refusals(slow, 'socket:slow-reader')).toBe(1);
    expect(await refusals(slow, 'socket:queued-bytes')).toBe(0);
    c.resumeReading();
    await c.closed;
  });
});
