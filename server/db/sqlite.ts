// SQLite, the engine of one process: opening the file (a clear error for a path that cannot hold a database),
// pragmas for durability, the migrations in migrations/, SQLite's quick check of every page, and the Store's SQL run
// on better-sqlite3. better-sqlite3 is synchronous: SQLite's own fsync at each commit (synchronous = FULL) would hold
// the event loop for a disk flush per transaction, so the commit only writes the log and the flush that makes it
// durable runs on libuv's thread pool; a caller hears "stored" after that flush (see `SqliteEngine.sync`).
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { fsync, mkdirSync, openSync, closeSync, type Stats, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { projectPath } from '../lib/paths.ts';
import type { Engine } from './store.ts';
import type { IdSource, IdTable, Statement } from './writes.ts';

/** The database cannot be used at this path; the message is one line that names the path and why (main.ts exits 78). */
export class DatabaseOpenError extends Error {
  override readonly name = 'DatabaseOpenError';
}

/** The probe's table, created at opening: its one row holds no classroom data, only the time of the last probe. */
const PROBE_TABLE =
  'CREATE TABLE IF NOT EXISTS health_probe (id INTEGER PRIMARY KEY CHECK (id = 1), at INTEGER NOT NULL)';
/** The probe's write, the same SQL on both engines. */
export const PROBE_WRITE =
  'INSERT INTO health_probe (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at';

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

/** SQLite's findings; a page damaged badly enough makes the check itself fail, which is a finding too. */
function quickCheck(sqlite: Database.Database): string[] {
  try {
    return (sqlite.pragma('quick_check(20)') as { quick_check: string }[]).map((r) => r.quick_check);
  } catch (e) {
    return [reason(e)];
  }
}

/** The file opened, migrated and checked; ':memory:' for a database that lives as long as the process. */
function openFile(path: string): Database.Database {
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
    // NORMAL writes each commit to the log without flushing it to the disk; the engine flushes the log itself, off
    // the event loop, before any caller hears a write is stored — what FULL does, so that a minute that was
    // broadcast survives a power cut, not only a process crash. Checkpoints still flush under NORMAL.
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    // Table-rebuild migrations turn foreign keys off inside their transaction, where it does nothing.
    sqlite.pragma('foreign_keys = OFF');
    migrate(drizzle(sqlite), { migrationsFolder: projectPath('migrations') });
    sqlite.pragma('foreign_keys = ON');
    // A database that cannot be written fails here, at start, rather than at the first minute.
    sqlite.exec(PROBE_TABLE);
    sqlite.prepare(PROBE_WRITE).run(Date.now());
    return sqlite;
  } catch (e) {
    sqlite?.close();
    throw new DatabaseOpenError(`database path ${path}: cannot open a database there (${reason(e)})`);
  }
}

/**
 * This process is the file's only writer: fresh ids count on from each table's largest ever at opening — the
 * AUTOINCREMENT counter remembers ids of deleted rows (a deleted rehearsal's), so that no id is given twice.
 */
class CountingIds implements IdSource {
  private readonly last = new Map<IdTable, number>();
  constructor(db: Database.Database) {
    for (const t of ['teachers', 'rooms', 'teams', 'players', 'rounds', 'changes', 'messages'] as const) {
      const { n } = db
        .prepare(
          `SELECT max(coalesce((SELECT max(id) FROM ${t}), 0), coalesce((SELECT seq FROM sqlite_sequence WHERE name = ?), 0)) AS n`,
        )
        .get(t) as { n: number };
      this.last.set(t, n);
    }
  }
  next(table: IdTable): number {
    const n = (this.last.get(table) ?? 0) + 1;
    this.last.set(table, n);
    return n;
  }
  ready(): Promise<void> {
    return Promise.resolve();
  }
}

/** better-sqlite3 binds numbers, strings, null and buffers: a boolean goes in as SQLite's 0 or 1. */
const bindable = (params: readonly unknown[]): unknown[] =>
  params.map((p) => (p === true ? 1 : p === false ? 0 : p === undefined ? null : p));

/** Statements prepared once per SQL text (the writes of every minute repeat a few texts). */
const CACHED = 500;

/** Flushes a file to the disk on libuv's thread pool (the event loop goes on meanwhile). */
export type Flush = (fd: number) => Promise<void>;
const flushFile: Flush = (fd) => new Promise((ok, fail) => fsync(fd, (e) => (e ? fail(e) : ok())));

export class SqliteEngine implements Engine {
  readonly db: Database.Database;
  readonly ids: IdSource;
  readonly integrity: readonly string[];
  private readonly prepared = new Map<string, Database.Statement>();
  /**
   * The write-ahead log, open for flushing (none for ':memory:'). It stays open until the database closes: closing
   * any descriptor of a file drops the process's POSIX locks on it, and SQLite keeps the log file (reset in place,
   * never replaced) while the database is open.
   */
  private readonly wal: number | null;

  constructor(
    path: string,
    private readonly flush: Flush = flushFile,
  ) {
    this.db = openFile(path);
    this.integrity = quickCheck(this.db);
    this.ids = new CountingIds(this.db);
    // openFile wrote its probe, so the log exists.
    this.wal = path === ':memory:' ? null : openSync(`${path}-wal`, 'r');
  }

  /** Everything written so far, on the disk: what each write awaits before its caller hears it is stored. */
  private sync(): Promise<void> {
    return this.wal === null ? Promise.resolve() : this.flush(this.wal);
  }

  private statement(sql: string): Database.Statement {
    let s = this.prepared.get(sql);
    if (!s) {
      if (this.prepared.size >= CACHED) this.prepared.clear();
      s = this.db.prepare(sql);
      this.prepared.set(sql, s);
    }
    return s;
  }

  async query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    const s = this.statement(sql);
    const rows = s.all(...bindable(params)) as T[];
    // A write outside a transaction (a room claimed, a key made) commits on its own: flushed like one.
    if (!s.readonly) await this.sync();
    return rows;
  }

  async transaction(statements: readonly Statement[]): Promise<void> {
    this.db.transaction(() => {
      for (const st of statements) {
        const s = this.statement(st.sql);
        const params = bindable(st.params);
        if (s.reader) {
          const rows = s.all(...params) as { id: number }[];
          st.check?.(rows);
        } else s.run(...params);
      }
    })();
    await this.sync();
  }

  async probe(at: number): Promise<void> {
    this.statement(PROBE_WRITE).run(at);
    await this.sync();
  }

  async close(): Promise<void> {
    this.db.close();
    if (this.wal !== null) closeSync(this.wal);
  }
}
