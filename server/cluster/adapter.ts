// socket.io across processes (cluster mode): the Redis adapter with sharded Pub/Sub (Redis ≥ 7.0), one Redis
// channel per classroom room.
//
// Why this adapter: Opsroom broadcasts to one channel at a time (`r:CODE:t:TEAM`, `r:CODE:teacher`, …). The sharded
// adapter's "dynamic" mode gives each socket.io room its own Redis channel, and a process subscribes only to the
// rooms its own sockets are in: a minute's snapshots reach the one or two processes that serve that class, not
// every process, and Redis Cluster spreads the channels over its shards. The Redis streams adapter instead reads
// every broadcast of every room in every process (one stream, or a few, XREAD by all) — its gain, replaying what
// a process missed during a Redis blip, Opsroom gets anyway: a client that reconnects is sent the room's state.
//
// One channel per classroom room rather than per socket.io room: every broadcast to any `r:CODE…` room travels on
// the channel of `r:CODE`, which a process subscribes to while one of its sockets is in `r:CODE` (every seated
// socket is). A socket about to take a seat joins `r:CODE` first and waits for the subscription
// (`await sub.ping()`); the room's owner then puts it in its team's channel through the adapter — a message on
// the same Redis connection as the owner's later broadcasts, so it is in the channel before the next minute
// arrives. With a channel per socket.io room, the process would only subscribe to a team's channel once told of
// the join, and a minute published in between would be lost.
import type { ServerOptions } from 'socket.io';
import { createShardedAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';
import { withoutCredentials } from '../net/service-url.ts';

export interface RedisAdapter {
  adapter: NonNullable<ServerOptions['adapter']>;
  /** The subscriber connection: `await sub.ping()` returns once every subscription sent before it is in place. */
  sub: Redis;
  pub: Redis;
  close(): Promise<void>;
}

interface Warner {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

/**
 * A connection to Redis, connected: or an error that says which Redis could not be reached. Afterwards a lost
 * connection is said once (and its return), while ioredis reconnects by itself; commands wait meanwhile.
 */
export async function openRedis(url: string, log?: Warner, name = 'redis'): Promise<Redis> {
  const r = new Redis(url, { lazyConnect: true });
  let down: Error | null = null;
  let ready = false;
  r.on('error', (err: Error) => {
    if (ready && !down)
      log?.warn({ connection: name, reason: err.message }, 'lost the connection to Redis: reconnecting');
    down = err;
  });
  r.on('ready', () => {
    if (down && ready) log?.info({ connection: name }, 'connected to Redis again');
    down = null;
    ready = true;
  });
  try {
    await r.connect();
  } catch (e) {
    r.disconnect();
    throw new Error(`Redis at ${withoutCredentials(url)} cannot be reached: ${(down ?? (e as Error)).message}`);
  }
  return r;
}

export async function createRedisAdapter(
  url: string,
  opts: { channelPrefix?: string; log?: Warner } = {},
): Promise<RedisAdapter> {
  const [pub, sub] = await Promise.all(
    [openRedis(url, opts.log, 'adapter-pub'), openRedis(url, opts.log, 'adapter-sub')].map((p) =>
      p.catch((e: Error) => e),
    ),
  );
  if (pub instanceof Error || sub instanceof Error) {
    for (const c of [pub, sub]) if (!(c instanceof Error)) c.disconnect();
    throw pub instanceof Error ? pub : sub;
  }
  const sharded = createShardedAdapter(pub, sub, {
    channelPrefix: opts.channelPrefix ?? 'opsroom',
    subscriptionMode: 'dynamic',
  });
  // socket.io calls the option with `new`: a plain function that returns the adapter, as createShardedAdapter's.
  // biome-ignore lint/complexity/useArrowFunction: an arrow function cannot be called with `new`.
  const adapter = function (nsp: unknown) {
    return classChannels(sharded(nsp));
  } as unknown as RedisAdapter['adapter'];
  return {
    adapter,
    pub,
    sub,
    async close() {
      await Promise.allSettled([pub.quit(), sub.quit()]);
    },
  };
}

/** `r:CODE` of any classroom channel `r:CODE…`, or null. */
export function classOf(room: unknown): string | null {
  if (typeof room !== 'string') return null;
  const m = /^(r:[^:]+)(?::|$)/.exec(room);
  return m ? m[1] : null;
}

/** socket.io-adapter's MessageType.BROADCAST (socket.io-adapter 2.5, under socket.io 4.8). */
const BROADCAST = 3;

interface ShardedInternals {
  channel: string;
  dynamicChannel(room: string): string;
  computeChannel(message: { type: number; data: { requestId?: unknown; opts?: { rooms: unknown[] } } }): string;
  shouldUseASeparateNamespace(room: string): boolean;
}

/**
 * Routes the adapter's broadcasts to one Redis channel per classroom room (see the top of this file). Both methods
 * are the sharded adapter's own hooks (@socket.io/redis-adapter 8.3): which rooms get a subscription, and which
 * channel a message is published on; test/cluster/adapter.test.ts holds them to it.
 */
function classChannels<A>(adapter: A): A {
  const a = adapter as A & ShardedInternals;
  a.shouldUseASeparateNamespace = (room) => classOf(room) === room;
  a.computeChannel = (message) => {
    const rooms = message.data.opts?.rooms;
    const cls =
      message.type === BROADCAST && message.data.requestId === undefined && rooms?.length === 1
        ? classOf(rooms[0])
        : null;
    return cls ? a.dynamicChannel(cls) : a.channel;
  };
  return adapter;
}
