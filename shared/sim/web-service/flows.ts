// The web-service formulas of one minute (spec §1–7), as pure functions of plain numbers.
// Rates per second, times in seconds, shares 0–1.
import { erlangC } from '../math.ts';
import {
  APP_S,
  BAD_BUILD_CPU,
  BAD_BUILD_ERROR,
  BASE_RATE,
  DAILY_AMPLITUDE,
  DB_CAPACITY_QPS,
  HEAVY_APP_S,
  HOT_OBJECTS,
  KAPPA,
  LN100,
  QUERIES,
  QUERY_BASE_S,
  QUERY_MAX_S,
  TIMEOUT_S,
  WARMUP_EXTRA_QPS,
  WORKERS_PER_INSTANCE,
} from './constants.ts';

/** λ(t) before any surge: base × (1 + 0.25·sin(2π(clock − 6 h)/24 h)), clock in minutes after midnight. */
export function dailyRate(clockMinutes: number): number {
  return BASE_RATE * (1 + DAILY_AMPLITUDE * Math.sin((2 * Math.PI * (clockMinutes - 360)) / 1440));
}

/** TTL cache: hit = warm × rT/(1 + rT), r = request rate per hot object. */
export function hitRatio(warm: number, lambdaIn: number, ttlS: number): number {
  const rT = (lambdaIn / HOT_OBJECTS) * ttlS;
  return (warm * rT) / (1 + rT);
}

/** Database load ρ: misses × queries per request, plus the warm-up job's queries, over capacity. */
export function dbLoad(
  lambdaIn: number,
  queriesPerRequest: number,
  hit: number,
  warmUpRunning: boolean,
  capacityQps = DB_CAPACITY_QPS,
): number {
  return (lambdaIn * queriesPerRequest * (1 - hit) + (warmUpRunning ? WARMUP_EXTRA_QPS : 0)) / capacityQps;
}

/** Query time 5 ms/(1 − ρ), never above 250 ms (and 250 ms once ρ ≥ 1, where the formula breaks down). */
export function queryTime(rho: number): number {
  if (rho >= 1) return QUERY_MAX_S;
  return Math.min(QUERY_MAX_S, QUERY_BASE_S / (1 - rho));
}

export interface QueueResult {
  /** Erlang C, taken at a ≤ N (1 at or above capacity). */
  waitProbability: number;
  /** Share of admitted requests that time out or find no capacity. */
  failed: number;
  p99S: number;
  /** Busy workers ÷ workers, at most 1. */
  utilization: number;
}

/**
 * M/M/N with a 2 s timeout and the payment switch's seam rule: the tail decays at least at κ = 2/s,
 * C is taken at a ≤ N, and the failed share is the larger of the timeout tail and the overload share
 * 1 − N/a. Both pieces rise with λ, so the failed share is continuous and never falls as load rises.
 */
export function queue(lambdaIn: number, serviceS: number, workers: number): QueueResult {
  const serviceP99 = serviceS * LN100;
  const cap = TIMEOUT_S + serviceP99;
  if (lambdaIn <= 0) return { waitProbability: 0, failed: 0, p99S: serviceP99, utilization: 0 };
  if (workers <= 0) return { waitProbability: 1, failed: 1, p99S: cap, utilization: 1 };
  const a = lambdaIn * serviceS;
  const c = a >= workers ? 1 : erlangC(a, workers);
  const decay = Math.max(workers / serviceS - lambdaIn, KAPPA);
  const tail = c * Math.exp(-decay * TIMEOUT_S);
  const overload = a > workers ? 1 - workers / a : 0;
  // Service quantile plus waiting quantile (an approximation; the second term only when C > 1 %).
  const p99 = serviceP99 + (c > 0.01 ? Math.log(c / 0.01) / decay : 0);
  return {
    waitProbability: c,
    failed: Math.max(tail, overload),
    p99S: Math.min(p99, cap),
    utilization: Math.min(1, a / workers),
  };
}

export interface MinuteInputs {
  /** Arrival rate this minute (after the draw), before shedding. */
  lambda: number;
  /** Share of the arrivals that are low priority: 30 %, more while a crawler runs. */
  lowShare: number;
  /** Share of the arrivals that come from a crawler (low priority, and never in the cache). */
  crawlShare: number;
  shedLowPriority: number;
  /** Database capacity this minute, queries/s (4,000 unless a scenario degrades it). */
  dbCapacityQps: number;
  warm: number;
  ttlS: number;
  heavyFeature: boolean;
  warmUpRunning: boolean;
  /** Share of traffic on the bad build. */
  beta: number;
  /** Share of a bad build's answers that fail (the seed's 5 % unless a shift's build says otherwise). */
  buildError?: number;
  serving: number;
}

export interface MinuteFlows {
  lambdaIn: number;
  throttledShare: number;
  hit: number;
  rho: number;
  queryS: number;
  serviceS: number;
  workers: number;
  failed: number;
  waitProbability: number;
  errorRate: number;
  p99S: number;
  utilization: number;
}

/** Spec §2–7 for one minute. */
export function minuteFlows(i: MinuteInputs): MinuteFlows {
  const throttledShare = i.lowShare * i.shedLowPriority;
  const lambdaIn = i.lambda * (1 - throttledShare);
  // [design] A crawler walks the long tail: its requests all miss; the others hit as the TTL model says.
  const crawlIn = i.lambda * i.crawlShare * (1 - i.shedLowPriority);
  const regularIn = lambdaIn - crawlIn;
  const hit = lambdaIn > 0 ? (hitRatio(i.warm, regularIn, i.ttlS) * regularIn) / lambdaIn : 0;
  const q = QUERIES + (i.heavyFeature ? 1 : 0);
  const rho = dbLoad(lambdaIn, q, hit, i.warmUpRunning, i.dbCapacityQps);
  const queryS = queryTime(rho);
  const appS = (APP_S + (i.heavyFeature ? HEAVY_APP_S : 0)) * (1 + BAD_BUILD_CPU * i.beta);
  const serviceS = appS + (1 - hit) * q * queryS;
  const workers = i.serving * WORKERS_PER_INSTANCE;
  const qr = queue(lambdaIn, serviceS, workers);
  // Requests that got an answer still fail 5 % of the time on the bad build.
  const errorRate = qr.failed + (1 - qr.failed) * (i.buildError ?? BAD_BUILD_ERROR) * i.beta;
  return {
    lambdaIn,
    throttledShare,
    hit,
    rho,
    queryS,
    serviceS,
    workers,
    failed: qr.failed,
    waitProbability: qr.waitProbability,
    errorRate,
    p99S: qr.p99S,
    utilization: qr.utilization,
  };
}
