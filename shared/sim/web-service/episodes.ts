// The web service's shock library for the shifts: a scenario lists episodes — surges, crawlers, a database
// failover, cache flushes, a release train of good and bad builds, an autoscaler taken away for a while —
// with the ranges their minutes and sizes are drawn from (docs/models/web-service.md, "Shifts"). Drawn once
// in create and kept in the state, so a round replays exactly. The retired scenarios keep their own shocks
// (shocks.ts, setups.ts). Pure data and pure functions.
import type { ControlValue, SimEvent } from '../types.ts';
import { DB_CAPACITY_QPS, ROLLOUT_PER_MIN } from './constants.ts';
import type { Draw } from './shocks.ts';

/** A range a figure is drawn from (integers for minutes); noise off takes its middle. */
export type Range = readonly [number, number];
/** A size from a range, or from one of several ranges picked at random (`notAs`: not the one episode `notAs` picked). */
export type SizeSpec = Range | { oneOf: readonly Range[]; notAs?: number };
/** When an episode starts: a drawn minute, or drawn minutes after another episode's start or end. */
export type StartSpec = Range | { after: number; from: 'start' | 'end'; gap: Range };

export type EpisodeSpec =
  /**
   * Arrivals × `size` (reached over `ramp` minutes, faded over 3), cooling `cold` of the cache as it ramps;
   * marketing announces it `warn` minutes ahead (`surge-announced`, with its size). Fleet.
   */
  | { kind: 'surge'; start: StartSpec; length: Range; size: SizeSpec; ramp: Range; cold?: Range; warn?: Range }
  /** A crawler: + `size` × the day's mean rate of low-priority requests that all miss the cache. Traffic. */
  | { kind: 'crawl'; start: StartSpec; length: Range; size: SizeSpec; ramp: Range }
  /** The database on `size` of its capacity (a failover to a smaller replica), reached over `ramp`. Cache. */
  | { kind: 'db'; start: StartSpec; length: Range; size: SizeSpec; ramp: Range }
  /** An eviction storm: `size` of the cache emptied evenly over `ramp` minutes. Cache. */
  | { kind: 'flush'; start: StartSpec; size: SizeSpec; ramp: Range }
  /** The autoscaler is taken away (a migration): `autoscaling` is off and cannot be turned on. Fleet. */
  | { kind: 'no-autoscaler'; start: StartSpec; length: Range }
  /**
   * The release train: `count` builds, one every `every` minutes from `start` once the last is settled;
   * `bad` of them carry the seed's defect (CPU on their share, and a drawn share `error` of their answers
   * failing), in an order drawn from the seed.
   */
  | { kind: 'train'; start: Range; every: Range; count: number; bad: number; error: Range };

export interface Episode {
  kind: Exclude<EpisodeSpec['kind'], 'train'>;
  start: number;
  /** First minute of the fade (null: to the end). */
  end: number | null;
  size: number;
  ramp: number;
  cold?: number;
  /** The minute a surge is announced. */
  at?: number;
}

/** A build of the release train: due at `at` (or once the build before it is settled). */
export interface Build {
  at: number;
  bad: boolean;
  /** Share of the answers a bad build fails once it is rolled out (0 for a good build). */
  error: number;
}

/** [design] A bad build left in place gets worse (leaks, retries piling up): its error share grows by this part of itself each minute after its rollout, up to TRAIN_BUILD_ERROR_MAX. */
export const TRAIN_LEAK = 0.15;
export const TRAIN_BUILD_ERROR_MAX = 0.4;

/** The current build's error share at minute m: a bad build's grows each minute it has stayed after its rollout. */
export function trainBuildError(ep: Episodes, t: Train, m: number): number {
  if (t.current === null) return 0;
  const stayed = Math.max(0, m - t.since - 1 / ROLLOUT_PER_MIN);
  return Math.min(TRAIN_BUILD_ERROR_MAX, ep.builds[t.current].error * (1 + TRAIN_LEAK * stayed));
}

export interface Episodes {
  episodes: Episode[];
  builds: Build[];
}

/** Draws a scenario's episodes in order (with noise off, every draw's middle). */
export function drawEpisodes(specs: readonly EpisodeSpec[], d: Draw, noise: boolean): Episodes {
  const episodes: Episode[] = [];
  const builds: Build[] = [];
  const picked: number[] = [];
  const size = (spec: SizeSpec): number => {
    if (!('oneOf' in spec)) {
      picked[episodes.length] = 0;
      return d.real(spec[0], spec[1]);
    }
    const options = spec.oneOf.map((_, k) => k).filter((k) => spec.notAs === undefined || k !== picked[spec.notAs]);
    const k = noise ? options[d.int(0, options.length - 1)] : options[0];
    picked[episodes.length] = k;
    return d.real(spec.oneOf[k][0], spec.oneOf[k][1]);
  };
  const startOf = (s: StartSpec): number => {
    if (Array.isArray(s)) return d.int(s[0], s[1]);
    const spec = s as Exclude<StartSpec, Range>;
    const ref = episodes[spec.after];
    if (!ref) throw new RangeError(`an episode starts after episode ${spec.after}, which comes later in the list`);
    const base = spec.from === 'start' ? ref.start : (ref.end ?? ref.start);
    return base + d.int(spec.gap[0], spec.gap[1]);
  };
  for (const e of specs) {
    if (e.kind === 'train') {
      let at = d.int(e.start[0], e.start[1]);
      const flags = Array.from({ length: e.count }, (_, k) => k < e.bad);
      shuffle(flags, d);
      for (const bad of flags) {
        builds.push({ at, bad, error: bad ? d.real(e.error[0], e.error[1]) : 0 });
        at += d.int(e.every[0], e.every[1]);
      }
      continue;
    }
    const start = startOf(e.start);
    switch (e.kind) {
      case 'surge': {
        const end = start + d.int(e.length[0], e.length[1]);
        const s = size(e.size);
        const ramp = d.int(e.ramp[0], e.ramp[1]);
        const cold = e.cold ? d.real(e.cold[0], e.cold[1]) : 0;
        const at = e.warn ? start - d.int(e.warn[0], e.warn[1]) : undefined;
        episodes.push({
          kind: 'surge',
          start,
          end,
          size: s,
          ramp,
          ...(cold > 0 ? { cold } : {}),
          ...(at !== undefined ? { at } : {}),
        });
        break;
      }
      case 'crawl':
      case 'db': {
        const end = start + d.int(e.length[0], e.length[1]);
        const s = size(e.size);
        episodes.push({ kind: e.kind, start, end, size: s, ramp: d.int(e.ramp[0], e.ramp[1]) });
        break;
      }
      case 'flush': {
        const s = size(e.size);
        episodes.push({ kind: 'flush', start, end: null, size: s, ramp: d.int(e.ramp[0], e.ramp[1]) });
        break;
      }
      case 'no-autoscaler':
        episodes.push({ kind: 'no-autoscaler', start, end: start + d.int(e.length[0], e.length[1]), size: 0, ramp: 0 });
        break;
    }
  }
  return { episodes, builds };
}

/** A drawn order: Fisher–Yates with the draws in sequence. */
function shuffle<T>(xs: T[], d: Draw): void {
  for (let k = xs.length - 1; k > 0; k--) {
    const j = d.int(0, k);
    [xs[k], xs[j]] = [xs[j], xs[k]];
  }
}

/** How far an episode has come at minute m, 0–1: up over its ramp, down over 3 minutes from its end. */
function level(e: Episode, m: number): number {
  if (m < e.start) return 0;
  const up = Math.min(1, (m - e.start + 1) / Math.max(1, e.ramp));
  const down = e.end === null || m < e.end ? 1 : Math.max(0, 1 - (m - e.end + 1) / 3);
  return up * down;
}

/** Arrival multiplier of the surges at minute m. */
export function episodeSurge(ep: Episodes, m: number): number {
  let f = 1;
  for (const e of ep.episodes) if (e.kind === 'surge') f += (e.size - 1) * level(e, m);
  return f;
}

/** Crawler requests a second at minute m, for a day whose mean rate is `base`. */
export function episodeCrawl(ep: Episodes, m: number, base: number): number {
  let r = 0;
  for (const e of ep.episodes) if (e.kind === 'crawl') r += e.size * base * level(e, m);
  return r;
}

/** The database's capacity (queries/s) at minute m. */
export function episodeDb(ep: Episodes, m: number): number {
  let share = 1;
  for (const e of ep.episodes) if (e.kind === 'db') share = Math.min(share, 1 - (1 - e.size) * level(e, m));
  return DB_CAPACITY_QPS * share;
}

/** Whether the autoscaler is taken away at minute m. */
export function autoscalerAway(ep: Episodes, m: number): boolean {
  return ep.episodes.some((e) => e.kind === 'no-autoscaler' && m >= e.start && e.end !== null && m < e.end);
}

/** What the episodes do to the cache at the start of minute m (warm before → after), with their events. */
export function episodeMinute(ep: Episodes, m: number, warm: number, events: SimEvent[]): number {
  let w = warm;
  for (const e of ep.episodes) {
    const first = m === e.start;
    const fading = e.end !== null && m === e.end;
    switch (e.kind) {
      case 'surge':
        // Marketing says how big a surge they expect (to a tenth) and in how many minutes it starts.
        if (m === e.at) events.push({ kind: 'surge-announced', size: Math.round(e.size * 10) / 10, in: e.start - m });
        if (first) events.push({ kind: 'surge-start' });
        if (fading) events.push({ kind: 'surge-end' });
        if (e.cold && m >= e.start && m < e.start + e.ramp) w *= (1 - e.cold) ** (1 / e.ramp);
        break;
      case 'crawl':
        if (first) events.push({ kind: 'crawler-start' });
        if (fading) events.push({ kind: 'crawler-end' });
        break;
      case 'db':
        if (first) events.push({ kind: 'db-failover' });
        if (fading) events.push({ kind: 'db-restored' });
        break;
      case 'flush':
        if (first) events.push({ kind: 'cache-flush' });
        if (m >= e.start && m < e.start + e.ramp) w *= (1 - e.size) ** (1 / e.ramp);
        break;
      case 'no-autoscaler':
        if (first) events.push({ kind: 'autoscaler-away' });
        if (fading) events.push({ kind: 'autoscaler-back' });
        break;
    }
  }
  return w;
}

/** The release train's state: the build rolling out (or waiting for a decision), and the next one due. */
export interface Train {
  /** Index into `builds` of the build in production beside the last good one (null: none). */
  current: number | null;
  /** Minute the current build started rolling out. */
  since: number;
  /** The rollout halted at this share when a rollback was ordered (null: rolling out). */
  held?: number;
  /** Index of the next build to deploy. */
  next: number;
  /** Minute from which the next build may go out (the last one settled at least this long ago). */
  dueAt: number;
}

export const NO_TRAIN: Train = { current: null, since: 0, next: 0, dueAt: 0 };

/** Share of traffic on the current build at minute m (+20 % a minute of rollout, until a rollback halts it). */
export function trainShare(t: Train, m: number): number {
  if (t.current === null) return 0;
  return t.held ?? Math.min(1, ROLLOUT_PER_MIN * (m - t.since + 1));
}

/** Ordering a rollback halts the rollout where it is (minute m's share) until the switch. */
export function trainHalted(t: Train, m: number): Train {
  return t.current === null || t.held !== undefined ? t : { ...t, held: trainShare(t, m - 1) };
}

/**
 * The train at minute m, before the minute's flows: a good build a minute at full share is promoted (the
 * build the service runs); the next build goes out when none is pending and its minute has come. A bad build
 * waits for a rollback: the pipeline holds behind it.
 */
export function trainMinute(ep: Episodes, t: Train, m: number, events: SimEvent[]): Train {
  let next = t;
  if (
    next.current !== null &&
    next.held === undefined &&
    !ep.builds[next.current].bad &&
    m - next.since >= 1 / ROLLOUT_PER_MIN + 1
  ) {
    events.push({ kind: 'deploy-done' });
    next = { ...next, current: null, dueAt: Math.max(next.dueAt, m) };
  }
  const b = ep.builds[next.next];
  if (next.current === null && b && m >= Math.max(b.at, next.dueAt)) {
    events.push({ kind: 'deploy' });
    next = { current: next.next, since: m, next: next.next + 1, dueAt: next.dueAt };
  }
  return next;
}

/**
 * The train after a rollback's switch at minute m: the current build is gone and the next waits a few minutes.
 * A bad build goes back to its developers for good; a good one rolled back still has to ship, so it goes out again.
 */
export function trainRolledBack(ep: Episodes, t: Train, m: number, pause: number): Train {
  if (t.current === null) return t;
  return { current: null, since: t.since, next: ep.builds[t.current].bad ? t.next : t.current, dueAt: m + pause };
}

/** The controls a scenario's story takes away at minute m, with the reason (a message key). */
export function unavailableAt(ep: Episodes, m: number): Record<string, { reason: string; value: ControlValue }> {
  return autoscalerAway(ep, m) ? { autoscaling: { reason: 'autoscaler-away', value: false } } : {};
}
