// Rooms without a server: SQLite in memory behind a Store that counts its transactions and fails on
// demand, the group committer, a manual clock, and an output that records everything sent.
import { openDatabase } from '../../server/db/index.ts';
import { Committer } from '../../server/db/commit.ts';
import { SqliteStore } from '../../server/db/sqlite.ts';
import type { Write } from '../../server/db/writes.ts';
import { ManualClock } from '../../server/rooms/clock.ts';
import { RoomManager } from '../../server/rooms/manager.ts';
import type { Metrics } from '../../server/ops/metrics.ts';
import { MemoryOutput } from '../../server/rooms/output.ts';
import { rngFromSeed, uniform } from '../../shared/sim/rng.ts';

/** A SQLite store whose commits are counted and can be made to fail. */
export class TestStore extends SqliteStore {
  /** Every transaction asked for: the write lists it held. */
  readonly transactions: (readonly (readonly Write[])[])[] = [];
  /** When set, a transaction it returns true for throws (and stores nothing). */
  failWhen: ((lists: readonly (readonly Write[])[]) => boolean) | null = null;
  /** When set, transactions wait for it (a slow disk) before they are applied. */
  hold: Promise<void> | null = null;

  /** When set, a read of stored minutes answers only once it settles, with what was stored when it began. */
  slowReads: Promise<void> | null = null;

  override async snapshotsOfRound(...args: Parameters<SqliteStore['snapshotsOfRound']>) {
    const rows = await super.snapshotsOfRound(...args);
    if (this.slowReads) await this.slowReads;
    return rows;
  }

  override async commit(lists: readonly (readonly Write[])[]): Promise<void> {
    this.transactions.push(lists);
    if (this.hold) await this.hold;
    if (this.failWhen?.(lists)) throw new Error('disk I/O error');
    return super.commit(lists);
  }
}

/** `metrics`: what the rooms report (none when left out). */
export function roomEnv(opts: { metrics?: Metrics } = {}) {
  const store = new TestStore(openDatabase(':memory:').db);
  const committer = new Committer(store);
  const out = new MemoryOutput();
  const clock = new ManualClock();
  const errors: object[] = [];
  const rng = rngFromSeed(99);
  const log = { info() {}, warn() {}, error: (o: object) => void errors.push(o) };
  const manager = new RoomManager({
    store,
    committer,
    out,
    clock,
    log,
    drawSeed: () => Math.floor(uniform(rng) * 2 ** 32),
    metrics: opts.metrics,
  });
  return {
    store,
    committer,
    out,
    clock,
    manager,
    errors,
    /** Moves the clock, then waits until every room has handled what fell due. */
    async advance(ms: number): Promise<void> {
      clock.advance(ms);
      await manager.settled();
    },
  };
}
export type RoomEnv = ReturnType<typeof roomEnv>;
