// Minutes are serialised once: the text stored for a snapshot is the text broadcast, what clients receive is
// what JSON.stringify of the payload would have given, and views nobody can receive are not built or sent.
import { createServer } from 'node:http';
import { Server } from 'socket.io';
import * as parser from 'socket.io-parser';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import WebSocket from 'ws';
import type { RoomMinute, TeamMinute } from '../../shared/protocol/types.ts';
import { encodesRawJson, RawJsonEncoder, rawEventParts, rawJson, rawJsonParts } from '../../server/realtime/encoder.ts';
import { FeedHub } from '../../server/realtime/feed.ts';
import { DEFAULT_CONNECTION_LIMITS } from '../../server/realtime/guard.ts';
import { socketOutput, type IoServer } from '../../server/realtime/socket.ts';
import { roomMinuteParts, snapshotJson, teamMinuteParts } from '../../server/rooms/views.ts';
import type { Snapshot } from '../../shared/sim/types.ts';
import { collect, connect, createRoom, ok, startServer, until, type TestServer } from './helpers.ts';
import { roomEnv } from './rooms.ts';

// A minute's text, whole: what its pieces make.
const teamMinuteJson = (m: TeamMinute) => teamMinuteParts(m).join('');
const roomMinuteJson = (m: RoomMinute) => roomMinuteParts(m).join('');

const silentLog = { info() {}, warn() {}, error() {} };

/** The value a client gets when the payload is serialised the ordinary way. */
const asSent = (x: unknown) => JSON.parse(JSON.stringify(x));

async function playedRoom(minutes: number) {
  const env = roomEnv();
  const { room } = await env.manager.create({ teamCount: 3, tempo: 1, seed: 5, minutes: 5 });
  await room.dispatch({ type: 'clock', action: 'start' });
  await env.advance(minutes * 1000);
  return { env, room };
}

test('a minute written from its snapshot texts is the JSON of the payload, and holds the stored text', async () => {
  const { env, room } = await playedRoom(5);
  const minutes = env.out.of('minute');
  const roomMinutes = env.out.of('room:minute');
  expect(minutes).toHaveLength(3 * 6);
  expect(roomMinutes).toHaveLength(6);
  for (const m of minutes) expect(JSON.parse(teamMinuteJson(m))).toEqual(asSent(m));
  for (const m of roomMinutes) expect(JSON.parse(roomMinuteJson(m))).toEqual(asSent(m));
  // A team with no score yet, and a snapshot holding text that needs escaping.
  const m0: TeamMinute = {
    ...minutes[0],
    score: null,
    snapshot: { ...minutes[0].snapshot, events: ['a "quoted"\nline'] } as never,
  };
  expect(JSON.parse(teamMinuteJson(m0))).toEqual(asSent(m0));

  const stored = await env.store.snapshotsOfRound(room.round.id);
  expect(stored).toHaveLength(3 * 6);
  for (const m of minutes) {
    const row = stored.find((r) => r.teamId === m.teamId && r.minute === m.snapshot.minute)!;
    expect(teamMinuteJson(m)).toContain(`"snapshot":${row.data},`);
    // The stored text is one of the pieces the frame is written from, not copied into a larger string.
    expect(teamMinuteParts(m)).toContain(row.data);
  }
});

test('a snapshot’s text is made once while recent, and made again alike once let go', () => {
  const snaps = Array.from(
    { length: 40_000 },
    (_, i) => ({ minute: i, indicators: { x: i / 3 } }) as unknown as Snapshot,
  );
  const first = snapshotJson(snaps[0]);
  expect(first).toBe(JSON.stringify(snaps[0]));
  // Made once: asked again, it is not serialised again.
  const spy = vi.spyOn(JSON, 'stringify');
  expect(snapshotJson(snaps[0])).toBe(first);
  expect(spy).not.toHaveBeenCalled();
  for (const s of snaps) snapshotJson(s);
  const made = spy.mock.calls.length;
  expect(made).toBe(snaps.length - 1);
  // Long gone from the recent ones: made again, with the same text.
  expect(snapshotJson(snaps[0])).toBe(first);
  expect(spy.mock.calls.length).toBe(made + 1);
  spy.mockRestore();
});

test('the observers’ summary is built only when someone can receive it', async () => {
  const watched = await playedRoom(3);
  const env = roomEnv();
  env.out.deaf.add('observers');
  const { room } = await env.manager.create({ teamCount: 3, tempo: 1, seed: 5, minutes: 5 });
  await room.dispatch({ type: 'clock', action: 'start' });
  await env.advance(3000);
  // Without listeners: every minute, no summary. With: one per minute, as before.
  expect(env.out.of('minute')).toEqual(watched.env.out.of('minute'));
  expect(env.out.of('summary')).toEqual([]);
  const summaries = watched.env.out.of('summary');
  expect(summaries.map((s) => [s.minute, s.state])).toEqual([0, 1, 2, 3].map((m) => [m, 'running']));
  expect(summaries[3].teams).toHaveLength(3);
});

test('the encoder frames raw JSON exactly as socket.io serialises the value, and leaves other packets to socket.io', () => {
  const plain = new parser.Encoder();
  const ours = new RawJsonEncoder();
  const value = { a: 1, b: [1.5, 'x"y\u2028'], c: null, d: { e: -0.25 } };
  const text = JSON.stringify(value);
  for (const [nsp, id] of [
    ['/', undefined],
    ['/admin', 7],
  ] as const) {
    const packet = { type: parser.PacketType.EVENT, nsp, id, data: ['room:minute', value] };
    expect(ours.encode({ ...packet, data: ['room:minute', rawJson(text)] })).toEqual(plain.encode(packet));
  }
  // As a cluster adapter carries a broadcast to another process (JSON here; msgpack keeps plain objects too).
  const carried = JSON.parse(
    JSON.stringify({ type: parser.PacketType.EVENT, nsp: '/', data: ['minute', rawJson(text)] }),
  );
  expect(ours.encode(carried)).toEqual(
    plain.encode({ type: parser.PacketType.EVENT, nsp: '/', data: ['minute', value] }),
  );

  // In pieces, as minutes are made (views.ts): the same text, here and carried to another process.
  const pieces = rawJsonParts([text.slice(0, 7), text.slice(7, 30), text.slice(30)]);
  const whole = plain.encode({ type: parser.PacketType.EVENT, nsp: '/', data: ['minute', value] });
  expect(ours.encode({ type: parser.PacketType.EVENT, nsp: '/', data: ['minute', pieces] })).toEqual(whole);
  const piecesCarried = JSON.parse(
    JSON.stringify({ type: parser.PacketType.EVENT, nsp: '/', data: ['minute', pieces] }),
  );
  expect(ours.encode(piecesCarried)).toEqual(whole);
  // What a frame is written from (frames.ts): engine.io's message type, then the same text.
  const framed = rawEventParts({ type: parser.PacketType.EVENT, nsp: '/admin', id: 7, data: ['minute', pieces] });
  expect(framed?.join('')).toBe(
    `4${plain.encode({ type: parser.PacketType.EVENT, nsp: '/admin', id: 7, data: ['minute', value] })[0]}`,
  );
  expect(rawEventParts({ type: parser.PacketType.EVENT, nsp: '/', data: ['minute', value] })).toBeNull();

  const others: parser.Packet[] = [
    { type: parser.PacketType.EVENT, nsp: '/', data: ['x', { $json: 5 }] },
    { type: parser.PacketType.EVENT, nsp: '/', data: ['x', { $parts: ['{}', 5] }] },
    { type: parser.PacketType.EVENT, nsp: '/', data: ['x', rawJson(text), 'second argument'] },
    { type: parser.PacketType.ACK, nsp: '/', id: 3, data: [{ ok: true }] },
    { type: parser.PacketType.CONNECT, nsp: '/', data: { sid: 'abc' } },
    { type: parser.PacketType.EVENT, nsp: '/', data: ['bin', Buffer.from([1, 2, 3])] },
  ];
  for (const p of others) expect(ours.encode(p)).toEqual(plain.encode(p));
});

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

test('clients receive pre-encoded minutes as ordinary events, from a server with the parser and from one without', async () => {
  const { code, teacherKey } = await createRoom(server, { teamCount: 2, minutes: 5, tempo: 1, seed: 3 });
  const teacher = await connect(server);
  const student = await connect(server);
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  const joined = await ok(student, 'student:join', { code, name: 'Ada' });
  const teamMinutes = collect(student, 'minute');
  const roomMinutes = collect(teacher, 'room:minute');
  expect(encodesRawJson(server.app.io)).toBe(true);
  await ok(teacher, 'teacher:clock', { action: 'start' });
  for (let m = 0; m < 2; m++) server.clock.advance(1000);
  await until(() => teamMinutes.length === 3 && roomMinutes.length === 3, 'three minutes');
  const room = server.app.rooms.peek(code)!;
  const team = room.round.teams.get(joined.room.players[0].teamId)!;
  expect(teamMinutes[2]).toEqual(
    asSent({
      roundId: room.round.id,
      sentAt: roomMinutes[2].sentAt,
      teamId: team.teamId,
      snapshot: team.snapshot,
      progress: team.progress,
      score: team.score,
      ledger: team.ledger,
    }),
  );
  expect(roomMinutes[2].teams.map((t: RoomMinute['teams'][number]) => t.snapshot.minute)).toEqual([2, 2]);

  // A socket.io server built without rawJsonParser gets the payloads themselves.
  const http = createServer();
  const io: IoServer = new Server(http, { serveClient: false });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  try {
    expect(encodesRawJson(io)).toBe(false);
    io.on('connection', (s) => void s.join('r:X:t:1'));
    const { io: ioClient } = await import('socket.io-client');
    const c = ioClient(`http://127.0.0.1:${(http.address() as { port: number }).port}`, {
      transports: ['websocket'],
      reconnection: false,
    });
    const got = collect(c as never, 'minute');
    await until(() => io.sockets.adapter.rooms.get('r:X:t:1')?.size === 1, 'the plain client joined');
    socketOutput(io, new FeedHub(DEFAULT_CONNECTION_LIMITS, server.clock, silentLog)).emit(
      'X',
      { kind: 'team', teamId: 1 },
      'minute',
      teamMinutes[2],
    );
    await until(() => got.length === 1, 'the plain minute');
    expect(got[0]).toEqual(teamMinutes[2]);
    c.disconnect();
  } finally {
    io.close();
  }
});

test('listens: nobody in an empty channel; the observers when a feed is open; a socket once it joined', async () => {
  const { code } = await createRoom(server, { teamCount: 1 });
  const out = socketOutput(server.app.io, server.app.feed);
  expect(out.listens!(code, { kind: 'observers' })).toBe(false);
  expect(out.listens!(code, { kind: 'all' })).toBe(false);

  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/api/rooms/${code}/feed`);
  await new Promise((r) => ws.once('open', r));
  await until(() => server.app.feed.count(code) === 1, 'the feed to open');
  expect(out.listens!(code, { kind: 'observers' })).toBe(true);
  expect(out.listens!(code, { kind: 'teacher' })).toBe(false);
  ws.close();
  await until(() => server.app.feed.count(code) === 0, 'the feed to close');
  expect(out.listens!(code, { kind: 'observers' })).toBe(false);

  const observer = await connect(server);
  await ok(observer, 'observer:join', { code });
  expect(out.listens!(code, { kind: 'observers' })).toBe(true);
  expect(out.listens!(code, { kind: 'all' })).toBe(true);
});
