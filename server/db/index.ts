// Opening the SQLite file: a clear error for a path that cannot hold a database, pragmas for
// durability, the migrations in migrations/, then SQLite's quick check of every page.
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { mkdirSync, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROBE_TABLE, PROBE_WRITE } from './health.ts';
import * as schema from './schema.ts';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

const migrationsFolder = fileURLToPath(new URL('../../migrations', import.meta.url));

/** The database cannot be used at this path; the message is one line that names the path and why (main.ts exits 78). */
export class DatabaseOpenError extends Error {
  override readonly name = 'DatabaseOpenError';
}

function reason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return err.code && !err.message.startsWith(err.code) ? `${err.code}: ${err.message}` : String(err.message ?? e);
}

/**
 * Creates the folders up to `dir` one level at a time. (`mkdirSync(…, { recursive: true })` spins
 * forever under /proc on Node 20 instead of failing.)
 */
function makeFolders(dir: string, path: string): void {
  const missing: string[] = [];
  for (let d = resolve(dir); ; d = dirname(d)) {
    let st: Stats;
    try {
      st = statSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new DatabaseOpenError(`database path ${path}: cannot reach ${d} (${reason(e)})`);
      missing.unshift(d);
      if (dirname(d) === d) break;
      continue;
    }
    if (!st.isDirectory()) throw new DatabaseOpenError(`database path ${path}: ${d} is not a folder`);
    break;
  }
  for (const d of missing) {
    try {
      mkdirSync(d);
    } catch (e) {
      throw new DatabaseOpenError(`database path ${path}: cannot create the folder ${d} (${reason(e)})`);
    }
  }
}

export interface OpenedDatabase {
  sqlite: Database.Database;
  db: Db;
  /** `PRAGMA quick_check` at opening: ['ok'], or the problems SQLite found (at most 20). */
  integrity: string[];
}

/** SQLite's findings; a page damaged badly enough makes the check itself fail, which is a finding too. */
function quickCheck(sqlite: Database.Database): string[] {
  try {
    return (sqlite.pragma('quick_check(20)') as { quick_check: string }[]).map((r) => r.quick_check);
  } catch (e) {
    return [reason(e)];
  }
}

export function openDatabase(path: string): OpenedDatabase {
  if (path !== ':memory:') {
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      // Not there yet: created below.
    }
    if (isDir) throw new DatabaseOpenError(`database path ${path} is a folder, not a file`);
    makeFolders(dirname(path), path);
  }
  let sqlite: Database.Database | undefined;
  try {
    sqlite = new Database(path);
    sqlite.pragma('journal_mode = WAL');
    // FULL: a minute that was broadcast survives a power cut, not only a process crash.
    sqlite.pragma('synchronous = FULL');
    sqlite.pragma('busy_timeout = 5000');
    const db = drizzle(sqlite, { schema });
    // Table-rebuild migrations turn foreign keys off inside their transaction, where it does nothing.
    sqlite.pragma('foreign_keys = OFF');
    migrate(db, { migrationsFolder });
    sqlite.pragma('foreign_keys = ON');
    // A database that cannot be written fails here, at start, rather than at the first minute.
    sqlite.exec(PROBE_TABLE);
    sqlite.prepare(PROBE_WRITE).run(Date.now());
    return { sqlite, db, integrity: quickCheck(sqlite) };
  } catch (e) {
    sqlite?.close();
    throw new DatabaseOpenError(`database path ${path}: cannot open a database there (${reason(e)})`);
  }
}
