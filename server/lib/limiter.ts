// Token buckets: the rate limits that Fastify's hooks cannot see (socket.io events and joins, feed messages, packets),
// one bucket per connection or one per key (an address).
import type { Clock } from './clock.ts';

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
