// Token buckets for rate limits that Fastify's hooks cannot see (socket.io events and joins).
import type { Clock } from '../rooms/clock.ts';

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
    const now = this.clock.now();
    this.tokens = Math.min(this.cfg.capacity, this.tokens + ((now - this.at) / 1000) * this.cfg.refillPerSecond);
    this.at = now;
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
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
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size >= this.maxKeys) this.sweep();
      b = new TokenBucket(this.cfg, this.clock);
      this.buckets.set(key, b);
    }
    return b.take();
  }
  private sweep(): void {
    for (const [k, b] of this.buckets) {
      b.take(0);
      if (b.full) this.buckets.delete(k);
    }
  }
}
