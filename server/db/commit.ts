// Group commit: the write lists asked for in the same turn of the event loop (every room whose minute fell due in
// one timers phase, the inputs of several rooms) go to the Store as one transaction — one fsync — and each caller
// hears once it is stored. One transaction at a time: what is asked for meanwhile goes in the next one. If a shared
// transaction fails, each list is tried alone, so one room's bad write fails that room only.
import { type Metrics, noMetrics } from '../lib/metrics.ts';
import type { Store } from './store.ts';
import type { Write } from './writes.ts';

/** About what a few milliseconds of SQLite write: a minute of 600 teams, or two what-ifs of a 240-minute round. */
export const ROWS_PER_COMMIT = 600;

/** About the rows a write list inserts or changes (a minute's snapshots, one per team). */
function weight(writes: readonly Write[]): number {
  let n = 0;
  for (const w of writes) {
    if (w.op === 'insertSnapshots') n += w.rows.length;
    else if (w.op === 'insertChanges' || w.op === 'insertRoleChanges') n += w.changes.length;
    else if (w.op === 'insertRoundTeams') n += w.teams.length;
    else if (w.op === 'insertResults') n += w.results.length;
    else n += 1;
  }
  return n;
}

interface Waiting {
  writes: readonly Write[];
  resolve(): void;
  reject(e: unknown): void;
}

export class Committer {
  private batch: Waiting[] = [];
  private scheduled = false;
  /** The transaction under way; the next one starts after it. */
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Pick<Store, 'commit'>,
    private readonly metrics: Metrics = noMetrics,
  ) {}

  /** Resolves once the writes are stored (with whatever else was asked for in this turn). */
  commit(writes: readonly Write[]): Promise<void> {
    if (writes.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.batch.push({ writes, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // After this turn's other work has asked for its writes too.
        setImmediate(() => void this.flush());
      }
    });
  }

  /** Resolves when everything asked for so far has been stored or refused. */
  async idle(): Promise<void> {
    do {
      await new Promise((r) => setImmediate(r));
      await this.flushing;
    } while (this.scheduled || this.batch.length > 0);
  }

  private async flush(): Promise<void> {
    await this.flushing;
    this.scheduled = false;
    // A transaction takes lists up to ROWS_PER_COMMIT rows (always at least one list); the rest go in the next one,
    // a turn of the event loop later, so that a burst of large writes (thirty what-ifs copying their minutes) does
    // not hold every room's next minute behind one long transaction.
    let rows = 0;
    let n = 0;
    while (n < this.batch.length && (n === 0 || rows + weight(this.batch[n].writes) <= ROWS_PER_COMMIT))
      rows += weight(this.batch[n++].writes);
    const batch = this.batch.slice(0, n);
    this.batch = this.batch.slice(n);
    if (this.batch.length > 0) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
    this.flushing = this.apply(batch);
  }

  /** One transaction, measured: its duration and the room-minutes it stored. */
  private async write(lists: readonly (readonly Write[])[]): Promise<void> {
    const t0 = performance.now();
    await this.store.commit(lists);
    let minutes = 0;
    for (const l of lists) for (const w of l) if (w.op === 'insertSnapshots') minutes++;
    this.metrics.committed(performance.now() - t0, minutes);
  }

  /** Never rejects: each caller hears its own outcome. */
  private async apply(batch: Waiting[]): Promise<void> {
    if (batch.length === 0) return;
    try {
      await this.write(batch.map((w) => w.writes));
      for (const w of batch) w.resolve();
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
