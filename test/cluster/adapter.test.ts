// socket.io across processes: two servers on port 0 share one Redis through the sharded adapter in its static mode,
// as two Opsroom processes do. A broadcast to a room from one reaches a client of the other; the other's sockets
// can be put in a room from the first (placing a player), in order with the broadcasts that follow.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { io as ioClient, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createRedisAdapter, openRedis, type RedisAdapter } from '../../server/cluster/adapter.ts';
import { startRedis, type RedisService } from '../../server/cluster/services.ts';

interface Node {
  io: Server;
  http: HttpServer;
  redis: RedisAdapter;
  url: string;
}

let redis: RedisService;
let nodes: Node[] = [];
let clients: Socket[] = [];

async function startNode(): Promise<Node> {
  const adapter = await createRedisAdapter(redis.url);
  const http = createServer();
  const io = new Server(http, { serveClient: false, adapter: adapter.adapter });
  // As the classroom protocol does: the server decides which channels a socket is in.
  io.on('connection', (socket) =>
    socket.on('join', (channel: string, ack: () => void) => {
      void socket.join(channel);
      ack();
    }),
  );
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const node = { io, http, redis: adapter, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}` };
  nodes.push(node);
  return node;
}

async function connect(node: Node): Promise<Socket> {
  const s = ioClient(node.url, { transports: ['websocket'], forceNew: true, reconnection: false });
  clients.push(s);
  await new Promise<void>((resolve, reject) => {
    s.once('connect', resolve);
    s.once('connect_error', reject);
  });
  return s;
}

const next = <T>(s: Socket, event: string) => new Promise<T>((resolve) => s.once(event, resolve));
/** Joins the channel on the socket's own server. */
async function join(s: Socket, _node: Node, channel: string): Promise<void> {
  await new Promise<void>((resolve) => s.emit('join', channel, resolve));
}

let redisClient: Redis;
beforeAll(async () => {
  redis = await startRedis();
  redisClient = await openRedis(redis.url);
});
afterAll(async () => {
  redisClient?.disconnect();
  await redis?.stop();
});
afterEach(async () => {
  for (const c of clients) c.disconnect();
  clients = [];
  for (const n of nodes) {
    await n.io.close(); // closes the HTTP server and the adapter's subscriptions
    await n.redis.close();
  }
  nodes = [];
});

describe('two socket.io servers sharing the Redis adapter', () => {
  it('a broadcast to a room from one server reaches the room’s clients on both', async () => {
    const [one, two] = [await startNode(), await startNode()];
    const onTwo = await connect(two);
    const onOne = await connect(one);
    const elsewhere = await connect(two);
    await join(onTwo, two, 'r:ABCD:t:1');
    await join(onOne, one, 'r:ABCD:t:1');
    await join(elsewhere, two, 'r:ABCD:t:2');
    const got = Promise.all([next<{ minute: number }>(onTwo, 'minute'), next<{ minute: number }>(onOne, 'minute')]);
    let wrong = 0;
    elsewhere.on('minute', () => wrong++);
    one.io.to('r:ABCD:t:1').emit('minute', { minute: 7, text: 'é'.repeat(2000) });
    const [a, b] = await got;
    expect(a).toEqual({ minute: 7, text: 'é'.repeat(2000) });
    expect(b).toEqual(a);
    // A broadcast to the other team, sent after, arrives after: nothing of team 1's reached team 2's client.
    const other = next<{ minute: number }>(elsewhere, 'minute');
    one.io.to('r:ABCD:t:2').emit('minute', { minute: 8 });
    expect(await other).toEqual({ minute: 8 });
    expect(wrong).toBe(1);
  });

  it('keeps the order of one server’s broadcasts to a room', async () => {
    const [one, two] = [await startNode(), await startNode()];
    const s = await connect(two);
    await join(s, two, 'r:ABCD:teacher');
    const seen: number[] = [];
    const done = new Promise<void>((resolve) =>
      s.on('room:minute', (m: { minute: number }) => {
        seen.push(m.minute);
        if (seen.length === 50) resolve();
      }),
    );
    for (let minute = 0; minute < 50; minute++) one.io.to('r:ABCD:teacher').emit('room:minute', { minute });
    await done;
    expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('puts a socket of the other server in a room, and it then receives that room’s broadcasts', async () => {
    const [one, two] = [await startNode(), await startNode()];
    const s = await connect(two);
    await join(s, two, 'r:ABCD');
    // The socket's id is known everywhere through the adapter: place it from server one, as a teacher's move would.
    const [remote] = await one.io.fetchSockets();
    expect(remote.id).toBe(s.id);
    one.io.in(s.id!).socketsJoin('r:ABCD:t:3');
    // fetchSockets travels the same channel after the join: when it answers, the join has been applied.
    const [after] = await one.io.in('r:ABCD:t:3').fetchSockets();
    expect(after.id).toBe(s.id);
    const got = next<{ minute: number }>(s, 'minute');
    one.io.to('r:ABCD:t:3').emit('minute', { minute: 1 });
    expect(await got).toEqual({ minute: 1 });
    one.io.in(s.id!).socketsLeave('r:ABCD:t:3');
    expect(await one.io.in('r:ABCD:t:3').fetchSockets()).toEqual([]);
  });

  it('a socket placed from another server gets the broadcast sent right after, every time', async () => {
    const [one, two] = [await startNode(), await startNode()];
    const sockets: Socket[] = [];
    const got: number[][] = [];
    for (let i = 0; i < 20; i++) {
      // A fresh classroom room each time: its channel is new to server two, as for the first student of a class.
      const s = await connect(two);
      await join(s, two, `r:PL${i}`);
      const seen: number[] = [];
      s.on('minute', (m: { minute: number }) => seen.push(m.minute));
      sockets.push(s);
      got.push(seen);
      one.io.in(s.id!).socketsJoin(`r:PL${i}:t:1`);
      one.io.to(`r:PL${i}:t:1`).emit('minute', { minute: i });
    }
    // A last broadcast to each room's `all` channel, after which everything before it has arrived.
    const done = Promise.all(sockets.map((s) => next(s, 'end')));
    for (let i = 0; i < 20; i++) one.io.to(`r:PL${i}`).emit('end');
    await done;
    expect(got).toEqual(Array.from({ length: 20 }, (_, i) => [i]));
  });

  it('every server reads one channel per namespace, whatever rooms its sockets are in', async () => {
    const [one, two] = [await startNode(), await startNode()];
    const s = await connect(two);
    await join(s, two, 'r:WXYZ:t:0');
    const subscribers = async (channel: string) => {
      const [, n] = (await redisClient.call('PUBSUB', 'SHARDNUMSUB', channel)) as [string, number];
      return n;
    };
    expect(await subscribers('opsroom#/#')).toBe(2);
    expect(await subscribers('opsroom#/#r:WXYZ:t:0#')).toBe(0);
    expect(await one.io.of('/').adapter.serverCount()).toBe(2);
  });
});
