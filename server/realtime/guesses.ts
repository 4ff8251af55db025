// The one limit on unknown room codes that every path shares (the HTTP look-up, the feed, socket.io's joins).
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { addressKey } from '../http/client-address.ts';
import type { Clock } from '../lib/clock.ts';
import { KeyedLimiter, type BucketConfig } from '../lib/limiter.ts';
import { quietLog, type Logger } from '../lib/log.ts';
import { noMetrics, type Metrics } from '../lib/metrics.ts';
import { refusalsByKey } from '../ops/refusals.ts';

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
  constructor(cfg: BucketConfig, clock: Clock, metrics: Metrics = noMetrics, log: Logger = quietLog) {
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
