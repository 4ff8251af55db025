// Token buckets for rate limits that Fastify's hooks cannot see (socket.io events and joins), and the
// one limit on unknown room codes that every path shares.
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { addressKey } from '../http/client-address.ts';
import type { Clock } from '../rooms/clock.ts';
import type { Logger } from '../rooms/room.ts';
import { noMetrics, type Metrics } from '../ops/metrics.ts';
import { refusalsByKey } from '../ops/refusals.ts';

const quiet: Logger = { info() {}, warn() {}, error() {} };

export interface BucketConfig {
  /** Burst size. */
  capacity: number;
  /** Tokens added per second. */
  refillPerSecond: number;
}

export class TokenBucket {
  private tokens: number;
  private at: number;
  constructor(
    private readonly cfg: BucketConfig,
    private readonly clock: Clock,
  ) {
    this.tokens = cfg.capacity;
    this.at = clock.now();
  }
  take(n = 1): boolean {
    if (!this.has(n)) return false;
    this.tokens -= n;
    return true;
  }
  /** Takes `n` tokens even if they are not there: the bucket goes into debt and refills from below zero. */
  charge(n = 1): void {
    this.has(0);
    this.tokens -= n;
  }
  /** Whether `n` tokens are there, without taking them. */
  has(n: number): boolean {
    const now = this.clock.now();
    this.tokens = Math.min(this.cfg.capacity, this.tokens + ((now - this.at) / 1000) * this.cfg.refillPerSecond);
    this.at = now;
    return this.tokens >= n;
  }
  get full(): boolean {
    return this.tokens >= this.cfg.capacity;
  }
}

/** One bucket per key (an IP address); idle full buckets are forgotten. */
export class KeyedLimiter {
  private buckets = new Map<string, TokenBucket>();
  constructor(
    private readonly cfg: BucketConfig,
    private readonly clock: Clock,
    private readonly maxKeys = 100_000,
  ) {}
  take(key: string): boolean {
    return this.bucket(key).take();
  }
  /** Whether `key` has a token, without taking it. */
  has(key: string): boolean {
    return this.bucket(key).has(1);
  }
  /** Takes a token from `key` even into debt. */
  charge(key: string): void {
    this.bucket(key).charge();
  }
  private bucket(key: string): TokenBucket {
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= this.maxKeys) this.sweep();
      b = new TokenBucket(this.cfg, this.clock);
      this.buckets.set(key, b);
    }
    return b;
  }
  /** Forgets full buckets; if that is not enough, the oldest tenth too (so a sweep is rare, not per key). */
  private sweep(): void {
    for (const [k, b] of this.buckets) {
      if (b.has(0) && b.full) this.buckets.delete(k);
    }
    for (const k of this.buckets.keys()) {
      if (this.buckets.size < this.maxKeys * 0.9) break;
      this.buckets.delete(k);
    }
  }
}

/** 20 unknown codes in a burst, then one every 6 s (10 a minute). */
export const DEFAULT_GUESS_LIMIT: BucketConfig = { capacity: 20, refillPerSecond: 1 / 6 };

/**
 * Unknown-code attempts per address, shared by every way of naming a room: the HTTP look-up, the
 * feed, and socket.io's student, teacher and observer joins. Only misses take a token, so a class
 * behind one school NAT joins freely; once an address has no token left every look-up from it is
 * refused unanswered (answering known codes would tell a guesser which codes exist).
 */
export class CodeGuesses {
  private readonly misses: KeyedLimiter;
  private readonly refuse: (key: string, limit: string) => void;
  constructor(cfg: BucketConfig, clock: Clock, metrics: Metrics = noMetrics, log: Logger = quiet) {
    this.misses = new KeyedLimiter(cfg, clock);
    this.refuse = refusalsByKey(metrics, log, 'too many unknown room codes from one address');
  }

  /** Runs a look-up for `address` on `path` (http, feed, socket): refused when it has guessed too much; a ROOM_NOT_FOUND counts. */
  async attempt<T>(address: string, path: string, lookup: () => Promise<T>): Promise<T> {
    const key = addressKey(address);
    if (!this.misses.has(key)) {
      this.refuse(key, `unknown-codes:${path}`);
      throw new ClassroomError(ErrorCode.RATE_LIMITED, 'too many unknown room codes from this address: wait a little');
    }
    try {
      return await lookup();
    } catch (e) {
      // Only a miss costs, so a class behind one NAT joining at once is never held back. Misses in flight
      // together may take the bucket below zero: the debt delays the next guesses, so the rate still holds.
      if (e instanceof ClassroomError && e.code === ErrorCode.ROOM_NOT_FOUND) this.misses.charge(key);
      throw e;
    }
  }
}
