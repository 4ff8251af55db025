// The load generator's native receiver (fanout/receiver.c, fanout/native.ts): it takes sockets over from the
// generator's wire client and reads, counts and answers as the generator's JavaScript does.
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { Histogram } from './stats.ts';
import { buildReceiver, NativeReceiver } from './fanout/native.ts';
import { WireSocket } from './fanout/wire.ts';

/** A server that speaks engine.io's and socket.io's handshakes, then lets the test write to each client. */
let wss: WebSocketServer;
let url: string;
const clients: { ws: WebSocket; received: string[]; heard: (pred: (m: string) => boolean) => Promise<string> }[] = [];

beforeAll(async () => {
  wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((r) => wss.once('listening', r));
  url = `http://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  wss.on('connection', (ws) => {
    const received: string[] = [];
    const waiting: { pred: (m: string) => boolean; resolve: (m: string) => void }[] = [];
    ws.on('message', (data) => {
      const text = data.toString();
      received.push(text);
      if (text === '40') ws.send('40{"sid":"s"}');
      const i = waiting.findIndex((w) => w.pred(text));
      if (i >= 0) waiting.splice(i, 1)[0].resolve(text);
    });
    const heard = (pred: (m: string) => boolean) => {
      const already = received.find(pred);
      return already ? Promise.resolve(already) : new Promise<string>((resolve) => waiting.push({ pred, resolve }));
    };
    clients.push({ ws, received, heard });
    ws.send('0{"sid":"e","pingInterval":25000,"pingTimeout":20000}');
  });
});
/** The server side's TCP socket of a client, to write bytes that are not whole frames. */
const tcpOf = (ws: WebSocket) => (ws as unknown as { _socket: Socket })._socket;

afterAll(() => {
  for (const c of clients) c.ws.terminate();
  return new Promise((r) => wss.close(r));
});

const binary = () => {
  const built = buildReceiver();
  if ('error' in built) throw new Error(built.error);
  return built.path;
};

/** A student's minute as Opsroom writes it, padded to about `bytes`. */
const minute = (round: number, m: number, sentAt: number, bytes = 200) => {
  const head = `42["minute",{"roundId":${round},"teamId":1,"snapshot":{"minute":${m},"x":"`;
  return `${head}${'é'.repeat(Math.max(0, (bytes - head.length) / 2))}"},"sentAt":${sentAt}}]`;
};

describe('the native receiver', () => {
  it('reads minutes in frames of every length and in pieces, counts gaps, answers both kinds of ping and sends changes', async () => {
    const first = clients.length;
    const wires = [await WireSocket.connect(url), await WireSocket.connect(url)];
    const [a, b] = [clients[first], clients[first + 1]];
    const checked: { read: number[]; packet: string }[] = [];
    const change = JSON.stringify(['student:control', { key: 'fleet', value: 4 }]);
    const receiver = await NativeReceiver.start(
      binary(),
      wires.map((w, i) => ({ socket: w.handOver(), changes: i === 0 ? [change] : [] })),
      {
        changeProbability: 1,
        seed: 7,
        mode: 'opsroom',
        check: (read, packet) => checked.push({ read: [...read], packet }),
      },
    );
    await receiver.measure();
    // Minute 0 was due 20 s ago: minute m arrives about 20 − m s late.
    const base = Date.now() - 20_000;
    const at = (m: number) => base + m * 1000;
    // a: minutes 0, 1, 2 (the last of ~70 KB: an 8-byte length), 4 (3 missed), 4 again, 3 (out of order).
    for (const [m, bytes] of [
      [0, 100],
      [1, 300],
      [2, 70_000],
      [4, 200],
      [4, 200],
      [3, 200],
    ])
      a.ws.send(minute(1, m, at(m), bytes));
    // b: a minute split between writes, then round 2 from its minute 1 (minute 0 missed), then an ack and a ping.
    const socket = tcpOf(b.ws);
    const frame = Buffer.concat([Buffer.from([0x81, 126, 0, 0]), Buffer.from(minute(1, 0, at(0), 150))]);
    frame.writeUInt16BE(frame.length - 4, 2);
    socket.write(frame.subarray(0, 3));
    socket.write(frame.subarray(3, 40));
    socket.write(frame.subarray(40));
    b.ws.send(minute(2, 1, at(1)));
    // A's changes (one a minute, probability 1) are answered: one refused, one refused because the round is over.
    const changes = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => a.heard((m) => m.startsWith(`42${i}[`))));
    expect(changes[0]).toBe(`420${change}`);
    a.ws.send('430[{"ok":false,"error":{"code":"NOT_YOUR_ROLE","message":"no"}}]');
    a.ws.send('431[{"ok":false,"error":{"code":"ROUND_FINISHED","message":"over"}}]');
    a.ws.send('432[{"ok":true}]');
    // A WebSocket ping (not engine.io's) is answered with its payload.
    const pong = new Promise<Buffer>((resolve) => b.ws.once('pong', resolve));
    b.ws.ping('hi');
    expect((await pong).toString()).toBe('hi');
    // A ping after everything: its pong says the frames before it were read.
    a.ws.send('2');
    b.ws.send('2');
    await Promise.all([a.heard((m) => m === '3'), b.heard((m) => m === '3')]);
    expect(b.received.filter((m) => m.startsWith('42'))).toEqual([]); // b has no changes to send

    const r = await receiver.report();
    expect(r.missed).toBe(1 + 1);
    expect(r.outOfOrder).toBe(1);
    expect(r.repeated).toBe(1);
    expect(r.changesSent).toBe(6);
    expect(r.changeErrors).toBe(1);
    const late = Histogram.fromJSON(r.student);
    expect(late.n).toBe(8);
    expect(late.quantile(0)).toBeGreaterThanOrEqual(16_000);
    expect(late.max()).toBeLessThan(30_000);
    expect(r.wireFrames).toBe(8 + 3 + 2);
    expect(r.stalled).toBe(0);
    // The first minute read is checked against its packet, as the generator parses it.
    expect(checked).toHaveLength(1);
    expect(checked[0].read).toEqual([1, 0, at(0)]);
    expect(JSON.parse(checked[0].packet.slice(checked[0].packet.indexOf(',') + 1, -1)).sentAt).toBe(at(0));
    for (const w of wires) w.close();
  });

  it('passes a minute it cannot read to the check, and counts nothing for it', async () => {
    const first = clients.length;
    const wire = await WireSocket.connect(url);
    const checked: number[][] = [];
    const receiver = await NativeReceiver.start(binary(), [{ socket: wire.handOver(), changes: [] }], {
      changeProbability: 0,
      seed: 1,
      mode: 'opsroom',
      check: (read) => checked.push([...read]),
    });
    await receiver.measure();
    const c = clients[first];
    c.ws.send(minute(1, 0, Date.now()));
    c.ws.send('42["minute",{"roundId":1,"snapshot":{"minute":1}}]');
    c.ws.send('2');
    await c.heard((m) => m === '3');
    const r = await receiver.report();
    expect(checked).toEqual([expect.any(Array), [1, 1, -1]]);
    expect(Histogram.fromJSON(r.student).n).toBe(1);
    wire.close();
  });

  it('is not given a socket of which part of a frame was read', async () => {
    const first = clients.length;
    const wire = await WireSocket.connect(url);
    const socket = tcpOf(clients[first].ws);
    // The head of a frame of 5 bytes: read, but none of its payload yet.
    socket.write(Buffer.from([0x81, 0x05]));
    const receiver = (wire as unknown as { ws: { _receiver: { _state: number } } }).ws._receiver;
    await vi.waitFor(() => expect(receiver._state).not.toBe(0));
    expect(() => wire.handOver()).toThrow(/in the middle of a frame \(0 bytes of it read\)/);
    wire.close();
  });
});
