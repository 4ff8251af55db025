// socket.io across processes (cluster mode): the Redis adapter with sharded Pub/Sub (Redis ≥ 7.0).
//
// Why this adapter: Opsroom broadcasts to one channel at a time (`r:CODE:t:TEAM`, `r:CODE:teacher`, …). In the
// sharded adapter's "dynamic" mode each such room is its own Redis channel, and a process subscribes only to the
// rooms its own sockets are in: a minute's snapshots reach the one or two processes that serve that class, not
// every process, and Redis Cluster spreads the channels over its shards. The Redis streams adapter instead reads
// every broadcast of every room in every process (one stream, or a few, XREAD by all) — its gain, replaying what
// a process missed during a Redis blip, Opsroom gets anyway: a client that reconnects is sent the room's state.
import type { ServerOptions } from 'socket.io';
import { createShardedAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';

export interface RedisAdapter {
  adapter: NonNullable<ServerOptions['adapter']>;
  /** The subscriber connection: `await sub.ping()` returns once every subscription sent before it is in place. */
  sub: Redis;
  pub: Redis;
  close(): Promise<void>;
}

export async function createRedisAdapter(url: string, opts: { channelPrefix?: string } = {}): Promise<RedisAdapter> {
  const pub = new Redis(url, { lazyConnect: true });
  const sub = pub.duplicate();
  await Promise.all([pub.connect(), sub.connect()]);
  const adapter = createShardedAdapter(pub, sub, { channelPrefix: opts.channelPrefix ?? 'opsroom', subscriptionMode: 'dynamic' });
  return {
    adapter,
    pub,
    sub,
    async close() {
      await Promise.allSettled([pub.quit(), sub.quit()]);
    },
  };
}
