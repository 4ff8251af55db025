// Whether the database can be trusted and written: the check the store made at opening, and a probe
// write (one row updated and committed) repeated at most every few seconds when health is asked.
import type { Clock } from '../rooms/clock.ts';
import type { Store } from './store.ts';

export interface DatabaseStatus {
  /** The check at opening found no problem. */
  intact: boolean;
  /** What the check found when not intact. */
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
/** The same on PostgreSQL (cluster mode): epoch milliseconds need a bigint there. */
export const PG_PROBE_TABLE = 'CREATE TABLE IF NOT EXISTS health_probe (id integer PRIMARY KEY CHECK (id = 1), at bigint NOT NULL)';
export const PG_PROBE_WRITE = 'INSERT INTO health_probe (id, at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET at = excluded.at';

export function isIntact(integrity: readonly string[]): boolean {
  return integrity.length === 1 && integrity[0] === 'ok';
}

export class DatabaseHealth {
  private last: { at: number; error: string | null } | null = null;
  /** The probe in progress: health requests arriving meanwhile wait for it rather than write again. */
  private probing: Promise<void> | null = null;

  constructor(
    private readonly store: Pick<Store, 'integrity' | 'probe'>,
    private readonly clock: Clock,
  ) {}

  get intact(): boolean {
    return isIntact(this.store.integrity);
  }

  async status(): Promise<DatabaseStatus> {
    const now = this.clock.now();
    if (!this.last || now - this.last.at >= PROBE_EVERY_MS || this.last.error) {
      this.probing ??= this.store.probe(now).then(
        () => void (this.last = { at: now, error: null }),
        (e: unknown) => void (this.last = { at: now, error: (e as Error).message }),
      );
      await this.probing.finally(() => (this.probing = null));
    }
    const error = this.last!.error;
    return {
      intact: this.intact,
      ...(this.intact ? {} : { problems: [...this.store.integrity] }),
      writable: error === null,
      ...(error ? { writeError: error } : {}),
    };
  }
}
