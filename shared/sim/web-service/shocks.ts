// What happens to the service during a round (docs/models/web-service.md, "Shocks"): a scenario draws
// its shocks' minutes and sizes from the seed in create, and keeps them in the state, so the round
// replays exactly and nobody can read them off the clock. Pure functions over plain data.
import { type Rng, uniform } from '../rng.ts';
import type { SimEvent } from '../types.ts';
import { DB_CAPACITY_QPS, ROLLOUT_PER_MIN } from './constants.ts';

/** Minutes over which a surge, a crawler or a failover reaches its size (1/3, 2/3, 3/3), and, when it ends, fades. */
export const RAMP_MINUTES = 3;

/** How far an episode running from `start` until `end` (null: to the end) has come at minute m, 0–1, ramping over `minutes`. */
export function ramp(start: number | null, end: number | null, m: number, minutes = RAMP_MINUTES): number {
  if (start === null || m < start) return 0;
  const up = Math.min(1, (m - start + 1) / minutes);
  const down = end === null || m < end ? 1 : Math.max(0, 1 - (m - end + 1) / RAMP_MINUTES);
  return up * down;
}

/** The drawn shocks of one round; `null` minutes mean "does not happen". Plain JSON, kept in the state. */
export interface Shocks {
  /** A new build starts rolling out at this minute (the spec's bad build unless `buildErrors` is false). */
  deployAt: number | null;
  /** The build carries the spec's defect: +5 % errors and ×1.25 CPU on the traffic it serves. */
  buildErrors: boolean;
  /**
   * [design] The build runs a cache-maintenance script: on each instance it reaches during the rollout
   * (the cache empties with the build's share, whole after 5 minutes), then on a timer every
   * `flushEvery` minutes after the deploy, until it is rolled back.
   */
  flushEvery: number | null;
  /** [design] The bad build writes cache entries the last good build cannot read: the switch back keeps only 1 − β of the cache. */
  keyChange: boolean;
  surgeAt: number | null;
  /** Arrival multiplier at the surge's full size, reached in `surgeRamp` minutes. */
  surgeSize: number;
  surgeRamp: number;
  /** First minute of the ramp back down (null: the surge lasts to the end). */
  surgeEndAt: number | null;
  /** [design] Share of the cache the surge's new pages leave cold: warm falls by this share over the ramp (evenly per minute). */
  surgeCold: number;
  flushAt: number | null;
  /** Share of the cache a flush empties (1 = the whole cache), over `flushRamp` minutes (1: at once). */
  flushDepth: number;
  flushRamp: number;
  /** [design] A crawler adds low-priority requests at `crawlRate` req/s from crawlAt until crawlEndAt. */
  crawlAt: number | null;
  crawlEndAt: number | null;
  crawlRate: number;
  crawlRamp: number;
  /** [design] The database runs on `dbShare` of its capacity from dbAt until dbEndAt (a failover to a smaller replica), reached in `dbRamp` minutes. */
  dbAt: number | null;
  dbEndAt: number | null;
  dbShare: number;
  dbRamp: number;
}

export const NO_SHOCKS: Shocks = {
  deployAt: null,
  buildErrors: true,
  flushEvery: null,
  keyChange: false,
  surgeAt: null,
  surgeSize: 1,
  surgeRamp: RAMP_MINUTES,
  surgeEndAt: null,
  surgeCold: 0,
  flushAt: null,
  flushDepth: 1,
  flushRamp: 1,
  crawlAt: null,
  crawlEndAt: null,
  crawlRate: 0,
  crawlRamp: RAMP_MINUTES,
  dbAt: null,
  dbEndAt: null,
  dbShare: 1,
  dbRamp: RAMP_MINUTES,
};

/** Draws for a scenario's unknowns; with noise off each returns its mean and draws nothing. */
export interface Draw {
  /** An integer uniform on lo…hi (mean (lo + hi)/2, rounded down). */
  int(lo: number, hi: number): number;
  /** A real uniform on [lo, hi]. */
  real(lo: number, hi: number): number;
}

export function drawFrom(rng: Rng, noise: boolean): Draw {
  return {
    int: (lo, hi) => (noise ? lo + Math.floor(uniform(rng) * (hi - lo + 1)) : Math.floor((lo + hi) / 2)),
    real: (lo, hi) => (noise ? lo + (hi - lo) * uniform(rng) : (lo + hi) / 2),
  };
}

/** Surge multiplier at minute m: ramps up over `surgeRamp` minutes from surgeAt, and back down over 3 from surgeEndAt. */
export function surgeFactor(sh: Shocks, m: number): number {
  return 1 + (sh.surgeSize - 1) * ramp(sh.surgeAt, sh.surgeEndAt, m, sh.surgeRamp);
}

/** A crawler's requests per second at minute m (ramping up over `crawlRamp` minutes, down over 3). */
export function crawlRate(sh: Shocks, m: number): number {
  return sh.crawlRate * ramp(sh.crawlAt, sh.crawlEndAt, m, sh.crawlRamp);
}

/** Database capacity in queries/s at minute m (the replica takes over, and hands back, over 3 minutes). */
export function dbCapacity(sh: Shocks, m: number): number {
  return DB_CAPACITY_QPS * (1 - (1 - sh.dbShare) * ramp(sh.dbAt, sh.dbEndAt, m, sh.dbRamp));
}

/** Share of traffic on the bad build at minute m (+20 % per minute from the deploy until the rollback). */
export function badBuildShare(sh: Shocks, rolledBack: boolean, m: number): number {
  if (sh.deployAt === null || rolledBack || m < sh.deployAt) return 0;
  return Math.min(1, ROLLOUT_PER_MIN * (m - sh.deployAt + 1));
}

/**
 * What the shocks do to the cache at the start of minute m (before its flows), with the events that
 * show them on the desk. A flush and a cold surge both empty part of the cache.
 */
export function shockMinute(sh: Shocks, m: number, rolledBack: boolean, warm: number, events: SimEvent[]): number {
  let w = warm;
  if (m === sh.deployAt) events.push({ kind: 'deploy' });
  let scripted = false;
  if (sh.flushEvery !== null && sh.deployAt !== null && !rolledBack && m >= sh.deployAt) {
    const beta = badBuildShare(sh, false, m);
    const before = badBuildShare(sh, false, m - 1);
    // Rolling out: the script empties the cache the build's new instances hold.
    if (beta > before) w = beta >= 1 ? 0 : (w * (1 - beta)) / (1 - before);
    if (m === sh.deployAt) events.push({ kind: 'cache-flush' });
    scripted = m > sh.deployAt && (m - sh.deployAt) % sh.flushEvery === 0;
  }
  if (m === sh.surgeAt) events.push({ kind: 'surge-start' });
  // The new pages take a growing share of the requests while the surge ramps up: the cache cools with it.
  if (sh.surgeAt !== null && sh.surgeCold > 0 && m >= sh.surgeAt && m < sh.surgeAt + sh.surgeRamp)
    w *= (1 - sh.surgeCold) ** (1 / sh.surgeRamp);
  if (m === sh.surgeEndAt) events.push({ kind: 'surge-end' });
  if (m === sh.flushAt || scripted) events.push({ kind: 'cache-flush' });
  if (scripted) w = 0;
  // A flush empties its share of the cache at once, or evenly over its ramp (an eviction storm).
  else if (sh.flushAt !== null && m >= sh.flushAt && m < sh.flushAt + sh.flushRamp)
    w *= (1 - sh.flushDepth) ** (1 / sh.flushRamp);
  if (m === sh.crawlAt) events.push({ kind: 'crawler-start' });
  if (m === sh.crawlEndAt) events.push({ kind: 'crawler-end' });
  if (m === sh.dbAt) events.push({ kind: 'db-failover' });
  if (m === sh.dbEndAt) events.push({ kind: 'db-restored' });
  return w;
}
