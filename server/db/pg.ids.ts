// Fresh ids on PostgreSQL: several processes write the same database, so ids come from the tables' identity
// sequences, drawn ahead into a pool that `ready()` refills before each transition (a transition takes its ids
// synchronously).
import type { PgDb } from './pg.ts';
import type { IdSource, IdTable } from './writes.ts';

const ID_TABLES: readonly IdTable[] = ['teachers', 'rooms', 'teams', 'players', 'rounds', 'changes', 'messages'];

/**
 * How many ids of a table are kept ready, and how many one refill draws. `low` stays well above what one burst of
 * transitions can take between two `ready()` calls (a room with 30 teams takes 30 team ids; a class's changes
 * arrive one by one), so `next()` never finds the pool empty.
 */
const POOL: Record<IdTable, { low: number; batch: number }> = {
  teachers: { low: 64, batch: 128 },
  rooms: { low: 64, batch: 128 },
  teams: { low: 256, batch: 512 },
  players: { low: 256, batch: 512 },
  rounds: { low: 64, batch: 128 },
  changes: { low: 1024, batch: 2048 },
  messages: { low: 64, batch: 128 },
};

/** Ids drawn from PostgreSQL sequences. Each process draws its own; gaps in ids are of no consequence. */
export class SequenceIds implements IdSource {
  private readonly pools = Object.fromEntries(ID_TABLES.map((t) => [t, { ids: [] as number[], at: 0 }])) as Record<
    IdTable,
    { ids: number[]; at: number }
  >;
  private refilling: Promise<void> | null = null;

  constructor(private readonly db: PgDb) {}

  next(table: IdTable): number {
    const p = this.pools[table];
    if (p.at >= p.ids.length) throw new Error(`no ${table} id ready: await ids.ready() before a transition`);
    return p.ids[p.at++];
  }

  private left(table: IdTable): number {
    return this.pools[table].ids.length - this.pools[table].at;
  }

  ready(): Promise<void> {
    if (ID_TABLES.every((t) => this.left(t) >= POOL[t].low)) return Promise.resolve();
    // One refill at a time; whoever waits for it checks again (others may have drawn meanwhile).
    this.refilling ??= this.refill().finally(() => (this.refilling = null));
    return this.refilling.then(() => this.ready());
  }

  private async refill(): Promise<void> {
    const low = ID_TABLES.filter((t) => this.left(t) < POOL[t].low);
    await Promise.all(
      low.map(async (table) => {
        const { rows } = await this.db.$client.query<{ id: number }>(
          `SELECT nextval(pg_get_serial_sequence($1, 'id'))::int AS id FROM generate_series(1, $2)`,
          [table, POOL[table].batch],
        );
        const p = this.pools[table];
        p.ids = [...p.ids.slice(p.at), ...rows.map((r) => r.id)];
        p.at = 0;
      }),
    );
  }
}
