// Group commit: the write lists asked for in the same turn of the event loop (every room whose minute
// fell due in one timers phase, say) go to the Store as one transaction — one fsync — and each
// caller hears only once it is stored. If the shared transaction fails, each list is tried alone,
// so one room's bad write fails that room only. With slots (`slotMs`), at most one transaction starts
// per slot of the clock: what is asked for after it waits for the next slot's start, where the rooms'
// minutes of that slot fall due too (Room's beat slots), and goes with them.
import { realClock, type Clock } from '../rooms/clock.ts';
import { noMetrics, type Metrics } from '../ops/metrics.ts';
import type { Store } from './store.ts';
import type { Write } from './writes.ts';

/**
 * Callers told per turn of the event loop once their transaction is stored (release), while none are behind. Each
 * goes on to broadcast its room's minute (1–2 ms of sends at 10,000 students), and the loop's timers (the next
 * minutes' beats) and its answers from the writer thread wait until the turn ends. Told a whole transaction a turn (up
 * to 32), the beats at the p99 started 45–69 ms late; two a turn, 29–44 ms where the host ran steadily, at the same
 * CPU per snapshot (docs/performance-log.md, "The twenty-seventh stretch"). When callers are behind, more a turn
 * (RELEASE_SHARE).
 */
export const RELEASE_CHUNK = 2;
/**
 * With callers still to be told, a turn tells at least this share of them: a slow turn (a host that slows, a long
 * collection) must not leave a backlog that every later minute queues behind. At two a turn and no more, a slow
 * phase let the release fall behind: one pair's p99 from due reached 241 ms, its store phase 182 ms at the p99 where
 * the wait for the transaction and the transaction took 48 and 23.
 */
export const RELEASE_SHARE = 1 / 4;

interface Waiting {
  writes: readonly Write[];
  /** When it was asked for (performance.now()). */
  at: number;
  resolve(): void;
  reject(e: unknown): void;
}

export class Committer {
  private batch: Waiting[] = [];
  private scheduled = false;
  /** The transaction under way; the next one starts after it (and takes everything asked for meanwhile). */
  private flushing: Promise<void> = Promise.resolve();

  /** The slot in which the last transaction was started (or is about to be). */
  private lastSlot = -Infinity;

  constructor(
    private readonly store: Store,
    private readonly metrics: Metrics = noMetrics,
    /** One transaction per slot of this many ms at most; 0: one per turn of the event loop. */
    private readonly slotMs = 0,
    private readonly clock: Clock = realClock,
  ) {}

  /** One transaction, measured: its duration and the room-minutes it stored. */
  private async write(lists: readonly (readonly Write[])[]): Promise<void> {
    const t0 = performance.now();
    await this.store.commit(lists);
    let minutes = 0;
    for (const l of lists) for (const w of l) if (w.op === 'insertSnapshots') minutes++;
    this.metrics.committed(performance.now() - t0, minutes);
  }

  /** Resolves once the writes are stored (with whatever else was asked for in this turn). */
  commit(writes: readonly Write[]): Promise<void> {
    if (writes.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.batch.push({ writes, at: performance.now(), resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        this.schedule();
      }
    });
  }

  /** The next flush: after this turn, or, if this slot had its transaction, at the next slot's start. */
  private schedule(): void {
    const later = () => setImmediate(() => void this.flush());
    if (this.slotMs <= 0) return void later();
    const now = this.clock.now();
    const slot = Math.floor(now / this.slotMs);
    if (slot > this.lastSlot) {
      this.lastSlot = slot;
      return void later();
    }
    this.clock.setTimeout(
      () => {
        this.lastSlot = Math.max(this.lastSlot, slot + 1);
        later();
      },
      (slot + 1) * this.slotMs - now,
    );
  }

  /** Resolves when everything asked for so far has been stored or refused. */
  async idle(): Promise<void> {
    do {
      await new Promise((r) => setImmediate(r));
      await this.flushing;
      await this.releasing;
    } while (this.scheduled);
  }

  /** Callers of a stored transaction still to hear it (release). */
  private releasing: Promise<void> = Promise.resolve();

  /** Callers of stored transactions not told yet. */
  private untold = 0;

  /**
   * Tells the callers of a stored transaction, a few at a time, one turn of the event loop each, after those of
   * earlier transactions: what each does next (its room's minute broadcast to its sockets) would otherwise run all at
   * once, and the minutes falling due meanwhile would start late. The next transaction does not wait for this.
   */
  private release(batch: Waiting[]): void {
    if (batch.length <= RELEASE_CHUNK && this.untold === 0) {
      for (const w of batch) w.resolve();
      return;
    }
    this.untold += batch.length;
    this.releasing = this.releasing.then(async () => {
      for (let i = 0; i < batch.length; ) {
        if (i > 0) await new Promise((r) => setImmediate(r));
        const n = Math.max(RELEASE_CHUNK, Math.ceil(this.untold * RELEASE_SHARE));
        for (const w of batch.slice(i, i + n)) w.resolve();
        this.untold -= Math.min(n, batch.length - i);
        i += n;
      }
    });
  }

  private async flush(): Promise<void> {
    await this.flushing;
    this.scheduled = false;
    const batch = this.batch;
    this.batch = [];
    this.flushing = this.apply(batch);
  }

  /** Never rejects: each caller hears its own outcome. */
  private async apply(batch: Waiting[]): Promise<void> {
    const start = performance.now();
    for (const w of batch) this.metrics.commitWaited(start - w.at);
    try {
      await this.write(batch.map((w) => w.writes));
      this.release(batch);
      return;
    } catch (e) {
      if (batch.length === 1) {
        batch[0].reject(e);
        return;
      }
    }
    for (const w of batch) {
      try {
        await this.write([w.writes]);
        w.resolve();
      } catch (e) {
        w.reject(e);
      }
    }
  }
}
