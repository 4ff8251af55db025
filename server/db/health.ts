// Whether the database can be trusted and written: the check the store made at opening, and a probe
// write (one row updated and committed) repeated at most every few seconds when health is asked.
import type { Clock } from '../rooms/clock.ts';
import type { CheckpointStatus } from './checkpointer.ts';
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
  /**
   * SQLite with its checkpoint thread: how the log is being copied into the database file. A stopped thread or
   * failing checkpoints lose nothing and do not make the database unhealthy (the writer's backstop checkpoints past
   * ~40 MB), but commits grow slower: an operator's warning, in `/metrics` too.
   */
  checkpoints?: CheckpointStatus;
}

/** How long a probe's answer stands: a flood of health requests is not a flood of fsyncs. */
export const PROBE_EVERY_MS = 5000;

/**
 * The probe's table, created at opening outside the migrations: its one row holds no classroom data,
 * only the time of the last probe.
 */
export const PROBE_TABLE =
  'CREATE TABLE IF NOT EXISTS health_probe (id INTEGER PRIMARY KEY CHECK (id = 1), at INTEGER NOT NULL)';
export const PROBE_WRITE =
  'INSERT INTO health_probe (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at';
/** The same on PostgreSQL (cluster mode): epoch milliseconds need a bigint there. */
export const PG_PROBE_TABLE =
  'CREATE TABLE IF NOT EXISTS health_probe (id integer PRIMARY KEY CHECK (id = 1), at bigint NOT NULL)';
export const PG_PROBE_WRITE =
  'INSERT INTO health_probe (id, at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET at = excluded.at';

export function isIntact(integrity: readonly string[]): boolean {
  return integrity.length === 1 && integrity[0] === 'ok';
}

interface Probe {
  at: number;
  error: string | null;
}

export class DatabaseHealth {
  private last: Probe | null = null;
  /** The probe in progress: health requests arriving meanwhile wait for it rather than write again. */
  private probing: Promise<Probe> | null = null;

  constructor(
    private readonly store: Pick<Store, 'integrity' | 'probe' | 'checkpoints'>,
    private readonly clock: Clock,
  ) {}

  get intact(): boolean {
    return isIntact(this.store.integrity);
  }

  async status(): Promise<DatabaseStatus> {
    const { error } = await this.probe();
    const checkpoints = this.store.checkpoints();
    return {
      intact: this.intact,
      ...(this.intact ? {} : { problems: [...this.store.integrity] }),
      writable: error === null,
      ...(error ? { writeError: error } : {}),
      ...(checkpoints ? { checkpoints } : {}),
    };
  }

  /** The last probe's answer while it stands, else a new probe's (shared with requests arriving meanwhile). */
  private async probe(): Promise<Probe> {
    const now = this.clock.now();
    if (this.last && now - this.last.at < PROBE_EVERY_MS && !this.last.error) return this.last;
    if (!this.probing) {
      this.probing = this.store.probe(now).then(
        (): Probe => ({ at: now, error: null }),
        (e: unknown): Probe => ({ at: now, error: (e as Error).message }),
      );
    }
    try {
      this.last = await this.probing;
      return this.last;
    } finally {
      this.probing = null;
    }
  }
}
