// A broadcast's frame written straight to idle websockets (server/realtime/frames.ts): the same text reaches
// every transport, in order with what each socket is sent one by one, and a socket with bytes still waiting goes
// through socket.io's buffer, where the outbound guard counts it and cuts a client that does not read.
import { createServer } from 'node:http';
import { Server } from 'socket.io';
import { io as ioClient, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rawJsonParser, rawJsonParts } from '../../server/realtime/encoder.ts';
import { FrameAdapter } from '../../server/realtime/frames.ts';
import { rawSocketIo } from '../security/raw-clients.ts';
import {
  advance,
  collect,
  connect,
  createRoom,
  ok,
  refusals,
  sample,
  startServer,
  until,
  type TestServer,
} from './helpers.ts';

describe('the adapter alone', () => {
  let io: Server;
  let url: string;
  const clients: Socket[] = [];
  beforeAll(async () => {
    const http = createServer();
    io = new Server(http, { adapter: FrameAdapter, parser: rawJsonParser });
    io.on('connection', (s) => {
      s.on('join', (room: string, ack: () => void) => {
        for (const r of s.rooms) if (r !== s.id) s.leave(r);
        s.join(room);
        ack();
      });
      // A per-socket message between two broadcasts: its order with them is what is checked.
      s.on('own', (n: number) => s.emit('n', { n, own: true }));
      // Two messages of its own, then a broadcast, in one turn: the first leaves engine.io's transport busy, the
      // second waits in engine.io's buffer — the broadcast must not overtake it.
      s.on('mix', (room: string) => {
        s.emit('n', { n: 0, own: true });
        s.emit('n', { n: 1, own: true });
        io.to(room).emit('n', { n: 2 });
      });
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const addr = http.address();
    url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await io.close();
  });

  const client = async (transports: ('websocket' | 'polling')[], room = 'room') => {
    const c = ioClient(url, { transports, forceNew: true, reconnection: false });
    clients.push(c);
    await new Promise<void>((r) => c.once('connect', () => r()));
    await new Promise<void>((r) => c.emit('join', room, r));
    return c;
  };
  const adapter = () => io.sockets.adapter as FrameAdapter;

  test('websocket and long-polling receivers get the same messages in the same order, own messages in between', async () => {
    const ws = await client(['websocket']);
    const polling = await client(['polling']);
    const got = { ws: collect(ws as never, 'n' as never), polling: collect(polling as never, 'n' as never) };
    const before = { ...adapter().counts };
    const expected: unknown[] = [];
    for (let n = 0; n < 200; n++) {
      if (n % 7 === 3) {
        // Asked by both clients; answered to each socket alone, between the broadcasts around it.
        ws.emit('own', n);
        polling.emit('own', n);
        await until(() => got.ws.length === expected.length + 1 && got.polling.length === expected.length + 1, 'own');
        expected.push({ n, own: true });
        continue;
      }
      const payload = { n, text: `é${'x'.repeat(n * 37)}` };
      io.to('room').emit('n', payload);
      expected.push(payload);
    }
    await until(() => got.ws.length === expected.length && got.polling.length === expected.length, 'every message');
    expect(got.ws).toEqual(expected);
    expect(got.polling).toEqual(expected);
    // The websocket took most broadcasts directly; the polling client every one through socket.io.
    const broadcasts = expected.filter((e) => !(e as { own?: boolean }).own).length;
    expect(adapter().counts.direct - before.direct).toBeGreaterThan(broadcasts / 2);
    expect(adapter().counts.queued - before.queued).toBeGreaterThanOrEqual(broadcasts);
  });

  test('a text given in pieces reaches every transport as the value it stands for, written piece by piece', async () => {
    const ws = await client(['websocket'], 'pieces');
    const polling = await client(['polling'], 'pieces');
    const got = { ws: collect(ws as never, 'p' as never), polling: collect(polling as never, 'p' as never) };
    const before = { ...adapter().counts };
    // Multi-byte characters in several pieces, and texts on both sides of the frame header's 126 and 65,536 bytes.
    const expected = [0, 40, 41, 200, 21_844, 21_845, 30_000].map((n) => ({
      n,
      s: 'é€'.repeat(n),
      t: ['\u2028', 'x"y'],
    }));
    for (const value of expected) {
      const text = JSON.stringify(value);
      const cut = [5, Math.floor(text.length / 2), text.length - 3];
      const pieces = [
        text.slice(0, cut[0]),
        text.slice(cut[0], cut[1]),
        '',
        text.slice(cut[1], cut[2]),
        text.slice(cut[2]),
      ];
      io.to('pieces').emit('p', rawJsonParts(pieces));
    }
    await until(() => got.ws.length === expected.length && got.polling.length === expected.length, 'every piece');
    expect(got.ws).toEqual(expected);
    expect(got.polling).toEqual(expected);
    expect(adapter().counts.direct - before.direct).toBeGreaterThan(0);
    expect(adapter().counts.queued - before.queued).toBeGreaterThanOrEqual(expected.length);
  });

  test('a burst larger than the socket takes at once stays whole and in order', async () => {
    const ws = await client(['websocket'], 'burst');
    const got = collect(ws as never, 'n' as never);
    const before = { ...adapter().counts };
    // ~24 MB in one turn of the event loop: the kernel's buffers fill and the rest waits in the server.
    const big = 'y'.repeat(60_000);
    for (let n = 0; n < 400; n++) io.to('burst').emit('n', { n, big });
    await until(() => got.length === 400, 'the burst', 20_000);
    expect(got.map((m) => (m as { n: number }).n)).toEqual([...Array(400).keys()]);
    expect(got.every((m) => (m as { big: string }).big === big)).toBe(true);
    // Once bytes were waiting, the next frames went behind them through socket.io.
    expect(adapter().counts.queued - before.queued).toBeGreaterThan(0);
  });

  test('a frame still waiting in one socket is not overwritten by the next frame to another', async () => {
    // The direct frames are written into one buffer kept from frame to frame (FrameScratch); a frame the kernel
    // did not take at once must keep its bytes while the next broadcast is framed for another socket.
    const slow = await client(['websocket'], 'slow');
    const fast = await client(['websocket'], 'fast');
    const gotSlow = collect(slow as never, 'n' as never);
    const gotFast = collect(fast as never, 'n' as never);
    const raw = (slow.io.engine.transport as unknown as { ws: { _socket: { pause(): void; resume(): void } } }).ws
      ._socket;
    raw.pause();
    const before = { ...adapter().counts };
    const sentSlow: unknown[] = [];
    // Until the slow socket stops taking frames at once: the last one written directly is then partly pending.
    for (let n = 0; adapter().counts.queued === before.queued; n++) {
      const payload = { n, text: 'a'.repeat(200_000) };
      io.to('slow').emit('n', payload);
      sentSlow.push(payload);
      if (n > 10_000) throw new Error('the paused socket never filled');
    }
    const sentFast = Array.from({ length: 5 }, (_, n) => ({ n, text: 'b'.repeat(200_000 + n) }));
    for (const p of sentFast) io.to('fast').emit('n', p);
    await until(() => gotFast.length === sentFast.length, 'the fast socket’s frames');
    raw.resume();
    await until(() => gotSlow.length === sentSlow.length, 'the slow socket’s frames', 20_000);
    expect(gotFast).toEqual(sentFast);
    expect(gotSlow).toEqual(sentSlow);
  });

  test('a broadcast does not overtake what waits in engine.io for the same socket', async () => {
    const ws = await client(['websocket'], 'mix');
    const got = collect(ws as never, 'n' as never);
    const before = { ...adapter().counts };
    for (let i = 0; i < 20; i++) {
      ws.emit('mix', 'mix');
      await until(() => got.length === 3 * (i + 1), 'the three messages');
    }
    expect(got.map((m) => (m as { n: number }).n)).toEqual(Array(20).fill([0, 1, 2]).flat());
    expect(adapter().counts.queued - before.queued).toBe(20);
  });

  test('volatile broadcasts take socket.io’s own path, which drops them for a busy transport', async () => {
    const ws = await client(['websocket']);
    const got = collect(ws as never, 'v' as never);
    const before = { ...adapter().counts };
    io.to('room').volatile.emit('v', 1);
    await until(() => got.length === 1, 'the volatile message');
    expect(got).toEqual([1]);
    expect(adapter().counts.direct).toBe(before.direct);
  });
});

describe('in the app', () => {
  let server: TestServer;
  beforeAll(async () => {
    // A small hard cap: a client that stops reading the room's minutes reaches it within the round.
    server = await startServer({ connectionLimits: { maxQueuedBytes: 256 << 10, slowQueuedBytes: 128 << 10 } });
  });
  afterAll(() => server.close());

  /** A room at one minute per second, its teacher and one student (whose minutes are collected) seated. */
  async function seatedClass(teamCount: number, minutes: number) {
    const { code, teacherKey } = await createRoom(server, { teamCount, minutes, tempo: 1 });
    const teacher = await connect(server);
    await ok(teacher, 'teacher:join', { code, key: teacherKey });
    const ann = await connect(server);
    const got = collect(ann, 'minute');
    await ok(ann, 'student:join', { code, name: 'Ann' });
    return { code, teacherKey, teacher, ann, minutes: got };
  }

  test('the app writes minutes directly to a reading class', async () => {
    const { teacher, minutes } = await seatedClass(2, 10);
    const adapter = server.app.io.sockets.adapter as FrameAdapter;
    expect(adapter).toBeInstanceOf(FrameAdapter);
    const before = adapter.counts.direct;
    await ok(teacher, 'teacher:clock', { action: 'start' });
    await advance(server, 10_000);
    await until(() => minutes.length === 11, 'every minute');
    expect(minutes.map((m) => m.snapshot.minute)).toEqual([...Array(11).keys()]);
    expect(adapter.counts.direct - before).toBeGreaterThanOrEqual(11);
    // An operator reads both paths on /metrics.
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(sample(text, 'opsroom_broadcast_writes_total', { path: 'direct' })).toBe(adapter.counts.direct);
    expect(sample(text, 'opsroom_broadcast_writes_total', { path: 'queued' })).toBe(adapter.counts.queued);
  });

  test('a teacher socket that stops reading the room’s minutes is cut past the cap; the class goes on', async () => {
    // 30 teams: each room minute to the teacher is ~50 KB, 240 of them ~12 MB, past the kernel's buffers.
    const { code, teacherKey, teacher, ann, minutes } = await seatedClass(30, 240);
    const stuck = await rawSocketIo(server.url);
    expect(await stuck.request('teacher:join', { code, key: teacherKey })).toMatchObject({ ok: true });
    const before = server.app.io.engine.clientsCount;
    stuck.stopReading();
    await ok(teacher, 'teacher:clock', { action: 'start' });
    for (let s = 0; s < 240 && server.app.io.engine.clientsCount === before; s++) await advance(server, 1000);
    await until(() => server.app.io.engine.clientsCount === before - 1, 'the non-reading teacher socket to be cut');
    expect(await refusals(server, 'socket:queued-bytes')).toBe(1);
    stuck.resumeReading();
    await stuck.closed;
    // The reading student and teacher kept every minute so far.
    const last = minutes.length - 1;
    expect(minutes.map((m) => m.snapshot.minute)).toEqual([...Array(last + 1).keys()]);
    expect(teacher.connected && ann.connected).toBe(true);
  });
});
