// Whether the database can be trusted and written: the check the store made at opening, and a probe
// write (one row updated and committed) repeated at most every few seconds when health is asked.
import type { Clock } from '../lib/clock.ts';
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
    private readonly store: Pick<Store, 'integrity' | 'probe'>,
    private readonly clock: Clock,
  ) {}

  get intact(): boolean {
    return isIntact(this.store.integrity);
  }

  async status(): Promise<DatabaseStatus> {
    const { error } = await this.probe();
    return {
      intact: this.intact,
      ...(this.intact ? {} : { problems: [...this.store.integrity] }),
      writable: error === null,
      ...(error ? { writeError: error } : {}),
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
