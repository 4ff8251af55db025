// Whether the database can be trusted and written: the quick check made at opening, and a probe
// write (one row updated and committed) repeated at most every few seconds when health is asked.
import type Database from 'better-sqlite3';
import type { Clock } from '../rooms/clock.ts';

export interface DatabaseStatus {
  /** The quick check at opening found no problem. */
  intact: boolean;
  /** SQLite's findings when not intact. */
  problems?: string[];
  /** The last probe write committed. */
  writable: boolean;
  /** Why the last probe write failed. */
  writeError?: string;
}

/** How long a probe's answer stands: a flood of health requests is not a flood of fsyncs. */
export const PROBE_EVERY_MS = 5000;

/**
 * The probe's table, created at opening outside the migrations: its one row holds no classroom data,
 * only the time of the last probe.
 */
export const PROBE_TABLE = 'CREATE TABLE IF NOT EXISTS health_probe (id INTEGER PRIMARY KEY CHECK (id = 1), at INTEGER NOT NULL)';
export const PROBE_WRITE = 'INSERT INTO health_probe (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at';

export class DatabaseHealth {
  private last: { at: number; error: string | null } | null = null;
  private readonly probe: Database.Statement;

  constructor(
    sqlite: Database.Database,
    private readonly integrity: string[],
    private readonly clock: Clock,
  ) {
    this.probe = sqlite.prepare(PROBE_WRITE);
  }

  get intact(): boolean {
    return this.integrity.length === 1 && this.integrity[0] === 'ok';
  }

  status(): DatabaseStatus {
    const now = this.clock.now();
    if (!this.last || now - this.last.at >= PROBE_EVERY_MS || this.last.error) {
      let error: string | null = null;
      try {
        this.probe.run(now);
      } catch (e) {
        error = (e as Error).message;
      }
      this.last = { at: now, error };
    }
    return {
      intact: this.intact,
      ...(this.intact ? {} : { problems: this.integrity }),
      writable: this.last.error === null,
      ...(this.last.error ? { writeError: this.last.error } : {}),
    };
  }
}
