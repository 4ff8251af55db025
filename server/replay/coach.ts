// The hindsight coach on the server: one search per team of a finished round (shared/design/coach.ts),
// run on a worker thread of its own — one at a time, so it takes at most one core and never the event loop
// other rooms' minutes need — and kept once made (a finished round does not change). Requests for a
// team already being searched share that search. The teams waiting are shared fairly: each asker (a teacher, or a
// student's address) has a queue of its own, taken in turn, so one teacher's whole class waits behind nobody and
// makes nobody else wait for more than a search or two; past its share of teams waiting (an asker's, an address's,
// everyone's), the coach says it is busy.
import { Worker } from 'node:worker_threads';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import type { CoachTeam } from '../../shared/protocol/types.ts';
import { trimOldest } from '../lib/maps.ts';
import type { CoachChange, CoachOptions, CoachResult } from '../../shared/design/coach.ts';
import type { ScenarioDef, SimulatorId } from '../../shared/sim/types.ts';

/** One team's search, as data a thread can receive. */
export interface CoachJob {
  simulator: SimulatorId;
  scenario: string;
  /** The scenario the round played when it is not the built-in of its id as this code has it (its content's). */
  def?: ScenarioDef;
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
  /** Teams waiting for the coach at most, everyone's; past it `RATE_LIMITED`. */
  queue: number;
  /** Teams one asker (a teacher, or a student) may have waiting: a whole class of 30 teams fits. */
  perAsker: number;
  /** Teams the askers of one address (an IPv6 address's /64) may have waiting together. */
  perAddress: number;
  /** Teams' answers kept. */
  cached: number;
}
export const DEFAULT_COACH_LIMITS: CoachLimits = { queue: 256, perAsker: 32, perAddress: 64, cached: 4096 };

/** Who asks the coach: a teacher or a student (`asker`), from an address. */
export interface CoachAsker {
  asker: string;
  address: string;
}

/** A team waiting for its search. */
interface Waiting {
  who: CoachAsker;
  job: CoachJob;
  resolve(d: CoachDone): void;
  reject(e: unknown): void;
}

/**
 * The thread's own limits: a search is bounded (coach.ts's maxPlays) and needs a few tens of MB; past these, the
 * thread ends with ERR_WORKER_OUT_OF_MEMORY — its job fails, the next one starts a new thread — instead of growing
 * the process. Its own flags: none of the main thread's (a larger heap or an inspector set for the server).
 */
export const COACH_THREAD_LIMITS = { maxOldGenerationSizeMb: 192, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 };
/** A thread idle this long is ended: the memory its last search used goes back to the system. */
export const COACH_THREAD_IDLE_MS = 60_000;

/** The coach's thread: started at the first job, ended by close() or after a minute idle; it keeps the process alive only while it works. */
export class WorkerRunner implements CoachRunner {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, { resolve(d: CoachDone): void; reject(e: Error): void }>();
  private seq = 0;
  private idle: NodeJS.Timeout | null = null;

  constructor(private readonly limits = COACH_THREAD_LIMITS) {}

  run(job: CoachJob): Promise<CoachDone> {
    const w = this.started();
    const id = ++this.seq;
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
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
    const w = new Worker(new URL(compiled ? './coach.thread.js' : './coach.boot.mjs', import.meta.url), {
      resourceLimits: this.limits,
      execArgv: [],
    });
    w.unref();
    w.on('message', (m: { id: number; done?: CoachDone; error?: string }) => {
      const p = this.waiting.get(m.id);
      if (!p) return;
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) {
        w.unref();
        this.idle = setTimeout(() => {
          if (this.worker === w && this.waiting.size === 0) void this.close();
        }, COACH_THREAD_IDLE_MS);
        this.idle.unref();
      }
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
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

export class Coach {
  private readonly done = new Map<string, Promise<CoachTeam>>();
  /** Each asker's teams waiting, in the order asked; askers in the order they came. */
  private readonly queues = new Map<string, Waiting[]>();
  /** Searches each asker with teams waiting has had: the next turn is the one with fewest (the first come, on a tie). */
  private readonly turns = new Map<string, number>();
  /** Teams waiting (or searching) by asker and by address. */
  private readonly counts = new Map<string, number>();
  private waiting = 0;
  private searching = false;

  constructor(
    private readonly runner: CoachRunner,
    private readonly limits: CoachLimits = DEFAULT_COACH_LIMITS,
  ) {}

  /** The team's suggestion (searched once per finished round and team). */
  team(roundId: number, teamId: number, job: CoachJob, who: CoachAsker = ANYONE): Promise<CoachTeam> {
    const key = `${roundId}:${teamId}`;
    const known = this.done.get(key);
    if (known) return known;
    const askerKey = `asker:${who.asker}`;
    const addressKey = `address:${who.address}`;
    if (this.waiting >= this.limits.queue) throw busy('the coach is busy with other classes: try again in a minute');
    if ((this.counts.get(askerKey) ?? 0) >= this.limits.perAsker)
      throw busy('the coach is still searching the teams you asked for: try again in a minute');
    if ((this.counts.get(addressKey) ?? 0) >= this.limits.perAddress)
      throw busy('the coach is busy with the searches of your network: try again in a minute');
    const count = (k: string, d: number) => {
      const n = (this.counts.get(k) ?? 0) + d;
      if (n > 0) this.counts.set(k, n);
      else this.counts.delete(k);
    };
    count(askerKey, 1);
    count(addressKey, 1);
    this.waiting++;
    const run = new Promise<CoachDone>((resolve, reject) => {
      const q = this.queues.get(who.asker) ?? [];
      this.queues.set(who.asker, q);
      q.push({ who, job, resolve, reject });
    }).finally(() => {
      count(askerKey, -1);
      count(addressKey, -1);
      this.waiting--;
      // Nothing of theirs waiting or searched: the asker starts afresh when it asks again.
      if (!this.counts.has(askerKey)) this.turns.delete(who.asker);
    });
    void this.next();
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

  /** Runs the next search, if none runs: the first waiting team of the asker whose turn it is. */
  private async next(): Promise<void> {
    if (this.searching) return;
    let asker: string | null = null;
    for (const a of this.queues.keys())
      if (asker === null || (this.turns.get(a) ?? 0) < (this.turns.get(asker) ?? 0)) asker = a;
    if (asker === null) return;
    const q = this.queues.get(asker) as Waiting[];
    const w = q.shift() as Waiting;
    this.turns.set(asker, (this.turns.get(asker) ?? 0) + 1);
    // Nothing more waiting: the asker leaves the line (its turns count until its last search is done).
    if (q.length === 0) this.queues.delete(asker);
    this.searching = true;
    try {
      w.resolve(await this.runner.run(w.job));
    } catch (e) {
      w.reject(e);
    } finally {
      this.searching = false;
    }
    void this.next();
  }

  close(): Promise<void> {
    return this.runner.close();
  }
}

/** An asker for tools and tests that do not say who asks. */
const ANYONE: CoachAsker = { asker: 'anyone', address: 'anywhere' };
const busy = (message: string) => new ClassroomError(ErrorCode.RATE_LIMITED, message);
