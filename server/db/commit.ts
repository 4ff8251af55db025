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
 * Callers told per turn of the event loop once their transaction is stored (release). Large enough that an ordinary
 * transaction (9–19 lists at 10,000 students: a few rooms' minutes and the changes of the same 20 ms) is told in one
 * turn: at 8, a stored minute waited one or two more turns of a loop busy with 10,000 sockets, and the time from asking
 * for the commit to the broadcast was 57–197 ms on average where the wait and the transaction took 22–40
 * (docs/performance.md, "The fourteenth stretch"). Small enough that a backlog (a disk slower than a slot) still lets
 * the timers run between chunks.
 */
export const RELEASE_CHUNK = 32;

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

  /**
   * Tells the callers of a stored transaction, RELEASE_CHUNK at a time, one turn of the event loop each: what
   * each does next (its room's minute broadcast to its sockets) would otherwise run all at once, and the
   * minutes falling due meanwhile would start late. The next transaction does not wait for this.
   */
  private release(batch: Waiting[]): void {
    if (batch.length <= RELEASE_CHUNK) {
      for (const w of batch) w.resolve();
      return;
    }
    this.releasing = this.releasing.then(async () => {
      for (let i = 0; i < batch.length; i += RELEASE_CHUNK) {
        if (i > 0) await new Promise((r) => setImmediate(r));
        for (const w of batch.slice(i, i + RELEASE_CHUNK)) w.resolve();
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
