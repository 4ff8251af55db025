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
import { unsure } from '../rooms/ownership.ts';

export interface RedisAdapter {
  adapter: NonNullable<ServerOptions['adapter']>;
  close(): Promise<void>;
}

interface Warner {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

/** How long a command waits for Redis's answer before it fails (Redis hanging, not closing). */
const COMMAND_TIMEOUT_MS = 3000;

/** An error of the connection to Redis (out of reach, closed, hanging), not of a command. */
export function isRedisUnreachable(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as NodeJS.ErrnoException).code;
  return (
    e.name === 'MaxRetriesPerRequestError' ||
    /^(Connection is closed\.|Stream isn't writeable|Command timed out)/.test(e.message) ||
    (code !== undefined && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH'].includes(code))
  );
}

/** Rethrows: an error of Redis's connection as the class's pause (UNAVAILABLE, nothing changed), any other as it is. */
export function unreachableRedis(e: unknown): never {
  throw isRedisUnreachable(e) ? unsure() : e;
}

/**
 * Whether this process reaches Redis: every connection up, or not. A connection lost is said once for the
 * process (not once per connection, nor per failed command), and so is the return of the last one; `onChange`
 * hears both.
 */
export class RedisLink {
  private readonly down = new Set<string>();
  private readonly listeners: ((up: boolean) => void)[] = [];
  private closing = false;

  constructor(private readonly log?: Warner) {}

  get up(): boolean {
    return this.down.size === 0;
  }

  onChange(fn: (up: boolean) => void): void {
    this.listeners.push(fn);
  }

  /** The process is closing its connections: that is no outage. */
  close(): void {
    this.closing = true;
  }

  report(connection: string, up: boolean, reason?: string): void {
    if (this.closing) return;
    const was = this.up;
    if (up) this.down.delete(connection);
    else this.down.add(connection);
    if (was === this.up) return;
    if (this.up) this.log?.info({ connection }, 'connected to Redis again: the rounds go on');
    else
      this.log?.warn(
        { connection, reason },
        'lost the connection to Redis: rounds wait, answers say so, until it is back (reconnecting)',
      );
    for (const fn of this.listeners) fn(this.up);
  }
}

/**
 * A connection to Redis, connected: or an error that says which Redis could not be reached. Afterwards ioredis
 * reconnects by itself; meanwhile commands fail at once (no offline queue, so nothing waits behind an outage), and
 * `link` hears when it goes and comes back.
 */
export async function openRedis(url: string, link?: RedisLink, name = 'redis'): Promise<Redis> {
  const r = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // Tried again every second at most (ioredis's default waits up to 2 s): the rounds go on soon after Redis is back.
    retryStrategy: (times: number) => Math.min(times * 50, 1000),
  });
  let reason: string | undefined;
  let ready = false;
  r.on('error', (err: Error) => {
    reason = err.message;
  });
  r.on('close', () => {
    if (ready) link?.report(name, false, reason);
  });
  r.on('ready', () => {
    ready = true;
    reason = undefined;
    link?.report(name, true);
  });
  try {
    await r.connect();
  } catch (e) {
    r.disconnect();
    throw new Error(
      `Redis at ${withoutCredentials(url)} cannot be reached: ${(reason ? new Error(reason) : (e as Error)).message}`,
    );
  }
  return r;
}

export async function createRedisAdapter(
  url: string,
  opts: { channelPrefix?: string; link?: RedisLink } = {},
): Promise<RedisAdapter> {
  const [pub, sub] = await Promise.all(
    [openRedis(url, opts.link, 'adapter-pub'), openRedis(url, opts.link, 'adapter-sub')].map((p) =>
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
