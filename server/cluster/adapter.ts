// socket.io across processes (cluster mode): the Redis adapter as published, sharded Pub/Sub (Redis ≥ 7.0) in its
// static mode — every process receives every broadcast on one channel and delivers it to its own sockets in the
// room. One channel keeps a room owner's messages in the order it sent them: a socket it puts in its team's
// channel (a join through the adapter) is in it before the minute it broadcasts next, wherever that socket is
// connected. The cost is that each process reads the other processes' broadcasts too; docs/scaling.md has the
// figures.
import { createShardedAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';
import type { ServerOptions } from 'socket.io';
import { withoutCredentials } from '../net/service-url.ts';

export interface RedisAdapter {
  adapter: NonNullable<ServerOptions['adapter']>;
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
  return {
    adapter: createShardedAdapter(pub, sub, {
      channelPrefix: opts.channelPrefix ?? 'opsroom',
      subscriptionMode: 'static',
    }),
    async close() {
      await Promise.allSettled([pub.quit(), sub.quit()]);
    },
  };
}
