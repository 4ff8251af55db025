// Rooms without a server: SQLite in memory behind a Store that counts its transactions and fails on
// demand, the group committer, a manual clock, and an output that records everything sent.
import type Database from 'better-sqlite3';
import { Committer } from '../../server/db/commit.ts';
import { SqliteEngine } from '../../server/db/sqlite.ts';
import { SqlStore } from '../../server/db/store.ts';
import type { Write } from '../../server/db/writes.ts';
import { ManualClock } from '../../server/lib/clock.ts';
import type { Metrics } from '../../server/lib/metrics.ts';
import { RoomManager } from '../../server/rooms/manager.ts';
import { rngFromSeed, uniform } from '../../shared/sim/rng.ts';
import { MemoryOutput } from './memory-output.ts';

/** A SQLite store whose commits are counted and can be made to fail. */
export class TestStore extends SqlStore {
  /** Every transaction asked for: the write lists it held. */
  readonly transactions: (readonly (readonly Write[])[])[] = [];
  /** When set, a transaction it returns true for throws (and stores nothing). */
  failWhen: ((lists: readonly (readonly Write[])[]) => boolean) | null = null;
  /** When set, transactions wait for it (a slow disk) before they are applied. */
  hold: Promise<void> | null = null;
  /** When set, a read of stored minutes answers only once it settles, with what was stored when it began. */
  slowReads: Promise<void> | null = null;
  /** The SQLite connection, for counting rows directly. */
  readonly sqlite: Database.Database;

  constructor(path = ':memory:') {
    const engine = new SqliteEngine(path);
    super(engine);
    this.sqlite = engine.db;
  }

  override async snapshotsOfRound(...args: Parameters<SqlStore['snapshotsOfRound']>) {
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
  const store = new TestStore();
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
