// The hindsight coach on the server: one search per team of a finished round (shared/design/coach.ts),
// run on a worker thread of its own — one at a time, so it takes at most one core and never the event loop
// other rooms' minutes need — and kept once made (a finished round does not change). Requests for a
// team already being searched share that search; past `queue` teams waiting, the coach says it is busy.
import { Worker } from 'node:worker_threads';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import type { CoachTeam } from '../../shared/protocol/types.ts';
import { trimOldest } from '../lib/maps.ts';
import type { CoachChange, CoachOptions, CoachResult } from '../../shared/design/coach.ts';
import type { SimulatorId } from '../../shared/sim/types.ts';

/** One team's search, as data a thread can receive. */
export interface CoachJob {
  simulator: SimulatorId;
  scenario: string;
  seed: number;
  noise: boolean;
  /** The round's length (its baseline's) and the last minute played. */
  minutes: number;
  minute: number;
  changes: CoachChange[];
  options?: CoachOptions;
}

export interface CoachDone {
  result: CoachResult;
  /** CPU time of the search on its thread, ms. */
  ms: number;
}

/** Runs one job at a time (a thread, or in-process for tools). */
export interface CoachRunner {
  run(job: CoachJob): Promise<CoachDone>;
  close(): Promise<void>;
}

export interface CoachLimits {
  /** Teams waiting for the coach at most; past it `RATE_LIMITED`. */
  queue: number;
  /** Teams' answers kept. */
  cached: number;
}
export const DEFAULT_COACH_LIMITS: CoachLimits = { queue: 64, cached: 4096 };

/** The coach's thread: started at the first job, ended by close(); it keeps the process alive only while it works. */
export class WorkerRunner implements CoachRunner {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, { resolve(d: CoachDone): void; reject(e: Error): void }>();
  private seq = 0;

  run(job: CoachJob): Promise<CoachDone> {
    const w = this.started();
    const id = ++this.seq;
    return new Promise<CoachDone>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      if (this.waiting.size === 1) w.ref();
      w.postMessage({ id, job });
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    // Compiled (dist/), the thread's module runs as it is; from the sources (tests, tools) through tsx.
    const compiled = import.meta.url.endsWith('.js');
    const w = new Worker(new URL(compiled ? './coach.thread.js' : './coach.boot.mjs', import.meta.url));
    w.unref();
    w.on('message', (m: { id: number; done?: CoachDone; error?: string }) => {
      const p = this.waiting.get(m.id);
      if (!p) return;
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) w.unref();
      if (m.done) p.resolve(m.done);
      else p.reject(new Error(m.error ?? 'the coach failed'));
    });
    // A thread that died fails what it held; the next job starts a new one.
    const fail = (err: Error) => {
      if (this.worker === w) this.worker = null;
      for (const p of this.waiting.values()) p.reject(err);
      this.waiting.clear();
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`the coach's thread stopped (${code})`)));
    this.worker = w;
    return w;
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

export class Coach {
  private readonly done = new Map<string, Promise<CoachTeam>>();
  private queued = 0;
  /** One search at a time: each waits for the one before. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly runner: CoachRunner,
    private readonly limits: CoachLimits = DEFAULT_COACH_LIMITS,
  ) {}

  /** The team's suggestion (searched once per finished round and team). */
  team(roundId: number, teamId: number, job: CoachJob): Promise<CoachTeam> {
    const key = `${roundId}:${teamId}`;
    const known = this.done.get(key);
    if (known) return known;
    if (this.queued >= this.limits.queue)
      throw new ClassroomError(ErrorCode.RATE_LIMITED, 'the coach is busy with other rounds: try again in a minute');
    this.queued++;
    const run = this.tail.then(() => this.runner.run(job)).finally(() => this.queued--);
    this.tail = run.catch(() => undefined);
    const answer = run.then(
      ({ result, ms }): CoachTeam => ({
        teamId,
        searchedMs: Math.round(ms),
        tried: result.tried,
        suggestion: result.suggestion,
      }),
    );
    this.done.set(key, answer);
    // A failed search is not kept: the next request tries again.
    answer.catch(() => this.done.delete(key));
    trimOldest(this.done, this.limits.cached);
    return answer;
  }

  close(): Promise<void> {
    return this.runner.close();
  }
}
