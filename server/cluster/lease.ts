// One owner per room clock (cluster mode): a lease in Redis with a fencing token.
//
// The lease is a key `opsroom:lease:{CODE}` holding "<node>#<token>" with a time to live. It is taken only when
// free (SET NX PX), renewed and released only by its holder (compare-and-set in Lua), and each taking draws the
// next fencing token from the room's counter `opsroom:fence:{CODE}` (INCR, never reset by a release). A minute
// is committed with its token, and the database refuses a token lower than the last one it stored: a process
// that lost its lease (paused, partitioned, or too slow to renew) can no longer commit, whatever it believes.
// The braces are a Redis Cluster hash tag: a room's two keys live in the same slot, as scripts require.
import type { Redis } from 'ioredis';
import { realClock, type Clock, type Timer } from '../lib/clock.ts';

export interface Lease {
  readonly room: string;
  readonly node: string;
  /** The fencing token: higher than every token handed out for this room before. */
  readonly token: number;
  /**
   * Local time until which the lease is surely still ours: measured from before the request that took or
   * renewed it was sent, so clock drift and network delay only make it shorter.
   */
  readonly validUntil: number;
}

export interface LeaseOptions {
  /** This process's name in the cluster, unique among the live ones. */
  node: string;
  /** Time to live of a lease without renewal (default 10 s: a dead owner's rooms move within that). */
  ttlMs?: number;
  /** Key prefix (default "opsroom"). */
  prefix?: string;
  clock?: Clock;
}

export const DEFAULT_LEASE_TTL_MS = 10_000;

// KEYS: lease, fence. ARGV: node, ttl, floor. Returns the new token, or false when someone holds the lease.
const ACQUIRE = `
local token = (tonumber(redis.call('GET', KEYS[2])) or 0) + 1
local floor = tonumber(ARGV[3])
if token <= floor then token = floor + 1 end
if not redis.call('SET', KEYS[1], ARGV[1] .. '#' .. token, 'NX', 'PX', ARGV[2]) then return false end
redis.call('SET', KEYS[2], token)
return token`;
// KEYS: lease. ARGV: holder value, ttl. 1 when renewed, 0 when another process holds the lease, -1 when nobody does
// (it ran out, or Redis restarted without it).
const RENEW = `
local v = redis.call('GET', KEYS[1])
if v == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if v then return 0 end
return -1`;
// KEYS: lease. ARGV: holder value. 1 when released, 0 when the lease was not the holder's.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

interface LeaseCommands {
  opsroomLeaseAcquire(lease: string, fence: string, node: string, ttl: number, floor: number): Promise<number | null>;
  opsroomLeaseRenew(lease: string, holder: string, ttl: number): Promise<1 | 0 | -1>;
  opsroomLeaseRelease(lease: string, holder: string): Promise<number>;
}

const holderValue = (l: Pick<Lease, 'node' | 'token'>) => `${l.node}#${l.token}`;

export class RoomLeases {
  readonly node: string;
  readonly ttlMs: number;
  private readonly prefix: string;
  private readonly clock: Clock;
  private readonly redis: Redis & LeaseCommands;

  constructor(redis: Redis, opts: LeaseOptions) {
    if (!opts.node || opts.node.includes('#'))
      throw new Error(`lease node name ${JSON.stringify(opts.node)}: non-empty, without '#'`);
    this.node = opts.node;
    this.ttlMs = opts.ttlMs ?? DEFAULT_LEASE_TTL_MS;
    if (!Number.isInteger(this.ttlMs) || this.ttlMs < 10)
      throw new Error(`lease ttl ${this.ttlMs} ms: an integer of at least 10`);
    this.prefix = opts.prefix ?? 'opsroom';
    this.clock = opts.clock ?? realClock;
    // defineCommand sends each script by its hash (EVALSHA), loading it on the first NOSCRIPT.
    const r = redis as Redis & Partial<LeaseCommands>;
    if (!r.opsroomLeaseAcquire) {
      redis.defineCommand('opsroomLeaseAcquire', { numberOfKeys: 2, lua: ACQUIRE });
      redis.defineCommand('opsroomLeaseRenew', { numberOfKeys: 1, lua: RENEW });
      redis.defineCommand('opsroomLeaseRelease', { numberOfKeys: 1, lua: RELEASE });
    }
    this.redis = redis as Redis & LeaseCommands;
  }

  private leaseKey = (room: string) => `${this.prefix}:lease:{${room}}`;
  private fenceKey = (room: string) => `${this.prefix}:fence:{${room}}`;

  /**
   * Takes the room's lease if nobody holds it; null when someone does. `atLeast`: the highest token the
   * database has stored for this room, so tokens keep rising even if Redis lost its counter.
   */
  async acquire(room: string, opts: { atLeast?: number } = {}): Promise<Lease | null> {
    const atLeast = opts.atLeast ?? 0;
    if (!Number.isSafeInteger(atLeast) || atLeast < 0) throw new Error(`atLeast ${atLeast}: a non-negative integer`);
    const sent = this.clock.now();
    const token = await this.redis.opsroomLeaseAcquire(
      this.leaseKey(room),
      this.fenceKey(room),
      this.node,
      this.ttlMs,
      atLeast,
    );
    if (token === null) return null;
    return { room, node: this.node, token: Number(token), validUntil: sent + this.ttlMs };
  }

  /** Extends the lease; null when it is no longer ours (expired, or taken by another process since). */
  async renew(lease: Lease): Promise<Lease | null> {
    const r = await this.extend(lease);
    return typeof r === 'string' ? null : r;
  }

  /** Extends the lease, or says why not: another process holds it (`taken`), or nobody does (`free`). */
  async extend(lease: Lease): Promise<Lease | 'taken' | 'free'> {
    const sent = this.clock.now();
    const r = await this.redis.opsroomLeaseRenew(this.leaseKey(lease.room), holderValue(lease), this.ttlMs);
    if (r === 1) return { ...lease, validUntil: sent + this.ttlMs };
    return r === 0 ? 'taken' : 'free';
  }

  /** Gives the lease up (another process may take it at once); false when it was not ours any more. */
  async release(lease: Lease): Promise<boolean> {
    return (await this.redis.opsroomLeaseRelease(this.leaseKey(lease.room), holderValue(lease))) === 1;
  }

  /** Who holds the room's lease now, and for how much longer; null when nobody does. */
  async holder(room: string): Promise<{ node: string; token: number; ttlMs: number } | null> {
    const key = this.leaseKey(room);
    const [[, value], [, ttl]] = (await this.redis.multi().get(key).pttl(key).exec()) as [
      [null, string | null],
      [null, number],
    ];
    if (value === null || ttl < 0) return null;
    const at = value.lastIndexOf('#');
    return { node: value.slice(0, at), token: Number(value.slice(at + 1)), ttlMs: ttl };
  }

  /** Which process holds each room's lease (null: nobody), in one round trip. */
  async holders(rooms: readonly string[]): Promise<(string | null)[]> {
    if (rooms.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const room of rooms) pipeline.get(this.leaseKey(room));
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([err, value]) => {
      if (err) throw err;
      return typeof value === 'string' ? value.slice(0, value.lastIndexOf('#')) : null;
    });
  }

  /** The last fencing token handed out for the room (0 if none). */
  async lastToken(room: string): Promise<number> {
    return Number((await this.redis.get(this.fenceKey(room))) ?? 0);
  }

  /** Renews `lease` in the background until stopped or lost (see LeaseKeeper). */
  keep(lease: Lease, events: KeeperEvents | ((lease: Lease, reason: string) => void)): LeaseKeeper {
    return new LeaseKeeper(this, lease, this.clock, typeof events === 'function' ? { lost: events } : events);
  }
}

export interface KeeperEvents {
  /** Another process holds the lease now (or took the room meanwhile): for good. Called once. */
  lost(lease: Lease, reason: string): void;
  /**
   * Nobody holds the lease any more (it ran out while Redis could not be reached, or Redis restarted without it):
   * take it again, with a token above the old one, if the room is still this process's (its stored fence is still
   * the old token). Resolves with the new lease, or null when the room is another process's. Without it, the lease
   * is lost.
   */
  retake?(old: Lease): Promise<Lease | null>;
  /** Whether the lease is surely held changed: false when it lapsed (Redis out of reach), true when it is again. */
  sure?(held: boolean): void;
}

/**
 * Keeps a lease alive: renews it every third of its time to live. It is lost when Redis says another process holds
 * it (`lost`, once). When its validity runs out before a renewal succeeds (Redis out of reach or hanging) it lapses:
 * `valid()` is false — nothing is committed under it — but it is not given up; the renewals go on, and once Redis
 * answers the lease is renewed, or taken again if nobody holds it (`retake`), and is sure again. The owner checks
 * `valid()` before it commits; the fencing token covers the rest (a commit already on its way when the lease went).
 */
export class LeaseKeeper {
  private renewTimer: Timer | null = null;
  private expiryTimer: Timer | null = null;
  private lostReason: string | null = null;
  private lapsedAt: number | null = null;
  private stopped = false;
  private inFlight: Promise<void> | null = null;

  constructor(
    private readonly leases: RoomLeases,
    private lease: Lease,
    private readonly clock: Clock,
    private readonly events: KeeperEvents,
  ) {
    this.armExpiry();
    this.scheduleRenewal();
  }

  get current(): Lease {
    return this.lease;
  }

  /** Why the lease was lost, or null while it is held. */
  get lost(): string | null {
    return this.lostReason;
  }

  /** Whether the lease ran out without news from Redis and has not been renewed since. */
  get lapsed(): boolean {
    return this.lapsedAt !== null;
  }

  /** Whether the lease is surely still ours now. */
  valid(): boolean {
    return (
      this.lostReason === null && this.lapsedAt === null && !this.stopped && this.clock.now() < this.lease.validUntil
    );
  }

  /** Resolves when the renewal under way (if any) has finished: for tests and orderly shutdown. */
  async settled(): Promise<void> {
    await this.inFlight;
  }

  /** Counts the lease as lapsed now, without waiting for its validity to run out (Redis is known to be out of reach). */
  lapse(): void {
    if (this.lostReason !== null || this.stopped || this.lapsedAt !== null) return;
    this.lapsedAt = this.clock.now();
    this.events.sure?.(false);
  }

  /** Renews the lease now (or takes it again); resolves with whether it is held. */
  async confirm(): Promise<boolean> {
    await this.inFlight;
    if (this.stopped || this.lostReason !== null) return false;
    this.clock.clearTimeout(this.renewTimer);
    this.renewTimer = null;
    this.inFlight = this.renewOnce().finally(() => {
      this.inFlight = null;
    });
    await this.inFlight;
    return this.valid();
  }

  /**
   * Stops renewing; with `release`, gives the lease up so another process can take the room at once. Also after
   * a loss: a lease given up for lack of news may still be ours in Redis, and a release never frees another's.
   */
  async stop(opts: { release?: boolean } = {}): Promise<void> {
    this.stopped = true;
    this.clearTimers();
    await this.inFlight;
    if (opts.release) await this.leases.release(this.lease).catch(() => false);
  }

  private clearTimers(): void {
    this.clock.clearTimeout(this.renewTimer);
    this.clock.clearTimeout(this.expiryTimer);
    this.renewTimer = this.expiryTimer = null;
  }

  private armExpiry(): void {
    this.clock.clearTimeout(this.expiryTimer);
    this.expiryTimer = this.clock.setTimeout(() => this.lapse(), this.lease.validUntil - this.clock.now());
  }

  private scheduleRenewal(): void {
    if (this.stopped || this.lostReason !== null) return;
    this.renewTimer = this.clock.setTimeout(
      () => {
        this.renewTimer = null;
        this.inFlight = this.renewOnce().finally(() => {
          this.inFlight = null;
        });
      },
      Math.floor(this.leases.ttlMs / 3),
    );
  }

  private async renewOnce(): Promise<void> {
    let next: Lease | null;
    try {
      const r = await this.leases.extend(this.lease);
      if (r === 'taken') next = null;
      else if (r === 'free') {
        if (!this.events.retake) return this.lose('its lease ran out');
        next = await this.events.retake(this.lease);
        if (!next) return this.lose('another process took the room while its lease could not be renewed');
      } else next = r;
    } catch {
      // Redis out of reach: tried again at the next interval; the lease lapses if none succeeds in time.
      this.scheduleRenewal();
      return;
    }
    if (this.stopped || this.lostReason !== null) return;
    if (!next) return this.lose('another process holds the lease');
    this.lease = next;
    this.armExpiry();
    if (this.lapsedAt !== null) {
      this.lapsedAt = null;
      this.events.sure?.(true);
    }
    this.scheduleRenewal();
  }

  private lose(reason: string): void {
    if (this.lostReason !== null || this.stopped) return;
    this.lostReason = reason;
    this.clearTimers();
    this.events.lost(this.lease, reason);
  }
}
