// PostgreSQL, the engine of the cluster mode (DATABASE_URL=postgres://…): a connection pool, the migrations in
// migrations/pg/ (several processes may start at once: an advisory lock lets one migrate while the others wait),
// fresh ids from the tables' sequences, and the Store's SQL with its `?` placeholders numbered as PostgreSQL wants.
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { projectPath } from '../lib/paths.ts';
import { withoutCredentials } from '../net/service-url.ts';
import { PROBE_WRITE } from './sqlite.ts';
import type { Engine } from './store.ts';
import type { IdSource, IdTable, Statement } from './writes.ts';

/** pg_advisory_lock key of the migrations ("opsroom" in ASCII, truncated to fit a bigint). */
const MIGRATION_LOCK = 0x6f7073726f6f6dn;
const PROBE_TABLE =
  'CREATE TABLE IF NOT EXISTS health_probe (id integer PRIMARY KEY CHECK (id = 1), at bigint NOT NULL)';
/** bigint columns (millisecond times, seeds) and counts as JavaScript numbers: all of them are far below 2⁵³. */
const INT8 = 20;

export interface PgOptions {
  /** Connections in this process's pool (default 10). */
  maxConnections?: number;
}

/** `?` placeholders as `$1, $2, …` (the Store's SQL has no `?` inside a literal). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** Applies migrations/pg/ (and makes the health probe's table) on one connection while holding the migration lock. */
export async function migratePostgres(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
    await migrate(drizzle(client), { migrationsFolder: projectPath('migrations', 'pg') });
    // Under the same lock: CREATE TABLE IF NOT EXISTS is not safe against a concurrent twin.
    await client.query(PROBE_TABLE);
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]);
    client.release();
  } catch (e) {
    // Destroyed, not returned to the pool: the session lock goes with it.
    client.release(e as Error);
    throw e;
  }
}

/**
 * How many ids of a table are kept ready, and how many one refill draws. `low` stays well above what one batch of
 * transitions can take between two `ready()` calls (a room with 30 teams takes 30 team ids), so `next()` never
 * finds the pool empty.
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

/** Ids drawn from the tables' identity sequences. Each process draws its own; gaps in ids are of no consequence. */
class SequenceIds implements IdSource {
  private readonly pools = new Map<IdTable, { ids: number[]; at: number }>(
    (Object.keys(POOL) as IdTable[]).map((t) => [t, { ids: [], at: 0 }]),
  );
  private refilling: Promise<void> | null = null;

  constructor(private readonly pool: pg.Pool) {}

  private of(table: IdTable): { ids: number[]; at: number } {
    const p = this.pools.get(table);
    if (!p) throw new Error(`no id pool for ${table}`);
    return p;
  }

  next(table: IdTable): number {
    const p = this.of(table);
    if (p.at >= p.ids.length) throw new Error(`no ${table} id ready: await ids.ready() before a transition`);
    return p.ids[p.at++];
  }

  private left(table: IdTable): number {
    const p = this.of(table);
    return p.ids.length - p.at;
  }

  ready(): Promise<void> {
    const low = (Object.keys(POOL) as IdTable[]).filter((t) => this.left(t) < POOL[t].low);
    if (low.length === 0) return Promise.resolve();
    // One refill at a time; whoever waits for it checks again (others may have drawn meanwhile).
    this.refilling ??= this.refill(low).finally(() => {
      this.refilling = null;
    });
    return this.refilling.then(() => this.ready());
  }

  private async refill(tables: readonly IdTable[]): Promise<void> {
    await Promise.all(
      tables.map(async (table) => {
        const { rows } = await this.pool.query<{ id: number }>(
          `SELECT nextval(pg_get_serial_sequence($1, 'id'))::int AS id FROM generate_series(1, $2)`,
          [table, POOL[table].batch],
        );
        const p = this.of(table);
        p.ids = [...p.ids.slice(p.at), ...rows.map((r) => r.id)];
        p.at = 0;
      }),
    );
  }
}

export class PgEngine implements Engine {
  readonly ids: IdSource;
  /**
   * PostgreSQL checks its own pages as it reads them (and refuses to start on a damaged cluster): there is no
   * quick check to run at opening as on SQLite, so a database that opened is intact.
   */
  readonly integrity: readonly string[] = ['ok'];

  private constructor(readonly pool: pg.Pool) {
    this.ids = new SequenceIds(pool);
  }

  /** Connects and migrates; an error names the server (without its password) and why. */
  static async open(url: string, opts: PgOptions = {}): Promise<PgEngine> {
    const pool = new pg.Pool({
      connectionString: url,
      max: opts.maxConnections ?? 10,
      // A PostgreSQL that does not answer (its machine gone, not refusing) fails a connection in time, not never.
      connectionTimeoutMillis: 5000,
      types: {
        getTypeParser: ((oid: number, format?: string) =>
          oid === INT8 ? Number : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
      },
    });
    // An idle connection that breaks (the server restarted) must not crash the process.
    pool.on('error', () => {});
    try {
      await migratePostgres(pool);
    } catch (e) {
      await pool.end();
      throw new Error(`PostgreSQL at ${withoutCredentials(url)} cannot be used: ${(e as Error).message}`, { cause: e });
    }
    return new PgEngine(pool);
  }

  async query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return (await this.pool.query(numbered(sql), params as unknown[])).rows as T[];
  }

  async transaction(statements: readonly Statement[]): Promise<void> {
    const client = await this.pool.connect();
    // A checked-out connection that breaks reports here, not to the pool: the query under way fails with it.
    const ignore = () => {};
    client.on('error', ignore);
    /** Set when the connection itself failed: it is then destroyed, not returned to the pool. */
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      for (const st of statements) {
        const { rows } = await client.query(numbered(st.sql), st.params as unknown[]);
        st.check?.(rows);
      }
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch((err: Error) => {
        broken = err;
      });
      throw e;
    } finally {
      client.off('error', ignore);
      client.release(broken);
    }
  }

  async probe(at: number): Promise<void> {
    await this.pool.query(numbered(PROBE_WRITE), [at]);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
