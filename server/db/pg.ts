// Opening PostgreSQL (cluster mode, DATABASE_URL=postgres://…): a connection pool, then the migrations in
// migrations/pg/. Several processes may start at once: an advisory lock lets one migrate while the others wait.
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PG_PROBE_TABLE } from './health.ts';
import * as schema from './schema.pg.ts';

export type PgDb = NodePgDatabase<typeof schema> & { $client: pg.Pool };

const migrationsFolder = fileURLToPath(new URL('../../migrations/pg', import.meta.url));
/** pg_advisory_lock key of the migrations ("opsroom" in ASCII, truncated to fit a bigint). */
const MIGRATION_LOCK = 0x6f7073726f6f6dn;

export interface PgOptions {
  /** Connections in this process's pool (default 10). */
  maxConnections?: number;
}

export async function openPostgres(url: string, opts: PgOptions = {}): Promise<{ pool: pg.Pool; db: PgDb }> {
  const pool = new pg.Pool({ connectionString: url, max: opts.maxConnections ?? 10 });
  // An idle connection that breaks (the server restarted) must not crash the process.
  pool.on('error', () => {});
  try {
    await migratePostgres(pool);
  } catch (e) {
    await pool.end();
    throw e;
  }
  return { pool, db: drizzle(pool, { schema }) };
}

/** Applies migrations/pg/ (and makes the health probe's table) on one connection while holding the migration lock. */
export async function migratePostgres(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
    await migrate(drizzle(client), { migrationsFolder });
    // Under the same lock: CREATE TABLE IF NOT EXISTS is not safe against a concurrent twin.
    await client.query(PG_PROBE_TABLE);
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]);
    client.release();
  } catch (e) {
    // Destroyed, not returned to the pool: the session lock goes with it.
    client.release(e as Error);
    throw e;
  }
}
