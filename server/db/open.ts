// A Store on either engine: SQLite for one process, PostgreSQL for the cluster mode.
import type { PgOptions } from './pg.ts';
import { SqliteEngine } from './sqlite.ts';
import { SqlStore } from './store.ts';

/** The SQLite file at `path` (created, migrated and checked), or ':memory:'. Throws DatabaseOpenError. */
export function openSqlite(path: string): SqlStore {
  return new SqlStore(new SqliteEngine(path));
}

/** PostgreSQL at `url` (connected and migrated); its driver is loaded only for this. */
export async function openPostgres(url: string, opts: PgOptions = {}): Promise<SqlStore> {
  const { PgEngine } = await import('./pg.ts');
  return new SqlStore(await PgEngine.open(url, opts));
}
