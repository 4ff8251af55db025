// One simulated minute of the web service: its flows, the snapshot, and the end-of-minute updates
// (ledger, error budget, burn window, cache refill). Pure: returns a new state.
import type { ControlValue, SimEvent, SimStateBase, Snapshot, Status } from '../types.ts';
import {
  BURN_WINDOW,
  MINUTES_PER_MONTH,
  PAGE_BURN,
  PRICE_PER_INSTANCE_HOUR,
  REFILL_TAU_MIN,
  SLO_BUDGET,
  WARMUP_GAIN_PER_MIN,
} from './constants.ts';
import { headlineStatus } from './defs.ts';
import { bootingCount, type BootBatch, type Fleet } from './fleet.ts';
import { minuteFlows } from './flows.ts';
import { addMinute, type Ledger, LEDGER_TOTAL, ledgerTotal } from './ledger.ts';
import { type Day, dayOf } from './setups.ts';
import { unavailableAt, type Episodes, type Train } from './episodes.ts';
import type { Shocks } from './shocks.ts';

export interface WebServiceState extends SimStateBase {
  model: 'web-service';
  /** The round's shocks, drawn from the seed in create. */
  shocks: Shocks;
  /** How full the cache is, 0–1, at the start of the next minute. */
  warm: number;
  serving: number;
  booting: BootBatch[];
  quietMinutes: number;
  /** Busy instances measured in the last minute (serving × utilization): the autoscaler's input. */
  busyInstances: number;
  /** First minute after the warm-up job (null: no job). The job runs in the 6 minutes before it. */
  warmUpEndsAt: number | null;
  /** Minute at which traffic switches to the good build (null: no rollback being prepared). */
  rollbackDoneAt: number | null;
  /** Size of the fresh fleet being prepared (billed until the switch). */
  rollbackFleet: number;
  rolledBack: boolean;
  errorBudgetRemaining: number;
  /** Error rates of the last 60 minutes, oldest first (pre-filled with the opening minute). */
  burnWindow: number[];
  /** Billed instance-minutes so far: an integer, so the cost has no rounding drift (20 instances for an hour is exactly $8). */
  instanceMinutes: number;
  paged: boolean;
  /** The team's ledger so far ($), fleet bill included. */
  ledger: Ledger;
  /** A shift's episodes and release train, drawn in create (episodes.ts; absent in the retired scenarios). */
  episodes?: Episodes;
  train?: Train;
  /** An authored scenario's day (its clock and boot time); a built-in's comes from its setup (setups.ts). */
  day?: Day;
}

export interface MinuteContext {
  m: number;
  controls: Record<string, ControlValue>;
  fleet: Fleet;
  warm: number;
  lambda: number;
  lowShare: number;
  crawlShare: number;
  surge: number;
  dbCapacityQps: number;
  /** Share of traffic on the new build (a bad one: it is rolled back, never fixed in place). */
  beta: number;
  /** Share of traffic on a defective build (the shifts' good builds serve like the last one); default `beta`. */
  badBeta?: number;
  /** Share of the defective build's answers that fail (default the seed's 5 %). */
  buildError?: number;
  warmUpEndsAt: number | null;
  rollbackDoneAt: number | null;
  rollbackFleet: number;
  events: SimEvent[];
}

/** Flows of one minute, the snapshot, and the end-of-minute updates. Minute 0 (prev null) keeps the cumulatives at their opening values. */
export function simulate(
  prev: WebServiceState | null,
  base: Omit<WebServiceState, 'snapshot'>,
  ctx: MinuteContext,
): WebServiceState {
  const { m, controls, fleet } = ctx;
  const warmUpRunning = ctx.warmUpEndsAt !== null && m < ctx.warmUpEndsAt;
  const ttlS = controls.cacheTtlS as number;
  const heavyFeature = controls.heavyFeature as boolean;
  const f = minuteFlows({
    lambda: ctx.lambda,
    lowShare: ctx.lowShare,
    crawlShare: ctx.crawlShare,
    shedLowPriority: controls.shedLowPriority as number,
    dbCapacityQps: ctx.dbCapacityQps,
    warm: ctx.warm,
    ttlS,
    heavyFeature,
    warmUpRunning,
    // Only the spec's bad build costs errors and CPU; a build whose defect is elsewhere serves like a good one.
    beta: ctx.badBeta ?? (base.shocks.buildErrors ? ctx.beta : 0),
    ...(ctx.buildError !== undefined ? { buildError: ctx.buildError } : {}),
    serving: fleet.serving,
  });
  const booting = bootingCount(fleet);
  const billed = fleet.serving + booting + ctx.rollbackFleet;

  let burnWindow: number[];
  let instanceMinutes = 0;
  let budget = base.errorBudgetRemaining;
  let ledger = base.ledger;
  if (prev === null) {
    burnWindow = new Array<number>(BURN_WINDOW).fill(f.errorRate);
  } else {
    // One copy of exactly 60, shifted in place: a push after slice(1) would grow it to room for ~100.
    burnWindow = prev.burnWindow.slice();
    burnWindow.copyWithin(0, 1);
    burnWindow[BURN_WINDOW - 1] = f.errorRate;
    instanceMinutes = prev.instanceMinutes + billed;
    // Spent budget is gone: the remaining share never rises, and stops at 0 (exhausted).
    budget = Math.max(0, prev.errorBudgetRemaining - f.errorRate / SLO_BUDGET / MINUTES_PER_MONTH);
    ledger = addMinute(prev.ledger, {
      arrivals: ctx.lambda * 60,
      lowShare: ctx.lowShare,
      crawlShare: ctx.crawlShare,
      throttledShare: f.throttledShare,
      errorRate: f.errorRate,
      hit: f.hit,
      ageS: ttlS / 2,
      heavyFeature,
      instanceMinutes,
    });
  }
  let sum = 0;
  for (const e of burnWindow) sum += e;
  const burnRate1h = sum / BURN_WINDOW / SLO_BUDGET;
  let paged = base.paged;
  if (!paged && burnRate1h >= PAGE_BURN) {
    paged = true;
    ctx.events.push({ kind: 'page' });
  }

  // Refill towards a full cache with τ = 30 min, slowed by 1/ρ while the database is saturated;
  // the warm-up job adds its 12 % on top.
  const refill = (1 - ctx.warm) * (1 - Math.exp(-1 / REFILL_TAU_MIN)) * Math.min(1, 1 / f.rho);
  const warmNext = Math.min(1, ctx.warm + refill + (warmUpRunning ? WARMUP_GAIN_PER_MIN : 0));

  const indicators: Record<string, number> = {
    errorRate: f.errorRate,
    p99Ms: f.p99S * 1000,
    dbLoad: f.rho,
    utilization: f.utilization,
    burnRate1h,
    requestsPerSec: ctx.lambda,
    instancesServing: fleet.serving,
    instancesBooting: booting,
    cacheHitRatio: f.hit,
    throttledShare: f.throttledShare,
    fleetCostPerHour: PRICE_PER_INSTANCE_HOUR * billed,
    cachedAnswerAgeS: ttlS / 2,
    badBuildShare: ctx.beta,
    recommendationsAvailable: heavyFeature ? 1 : 0,
    errorBudgetRemaining: budget,
    ...ledger,
    [LEDGER_TOTAL]: ledgerTotal(ledger),
  };
  // Requests nobody answered (shed or failed): at half or more the service has collapsed.
  const unanswered = f.throttledShare + (1 - f.throttledShare) * f.errorRate;
  const status: Record<string, Status> = headlineStatus(indicators, unanswered);
  const snapshot: Snapshot = {
    minute: m,
    clock: dayOf(base).clock + m,
    indicators,
    status,
    controls,
    detail: {
      warm: ctx.warm,
      warmUpMinutesLeft: ctx.warmUpEndsAt === null ? 0 : ctx.warmUpEndsAt - m,
      rollbackMinutesLeft: ctx.rollbackDoneAt === null ? 0 : ctx.rollbackDoneAt - m,
      rollbackFleet: ctx.rollbackFleet,
      bootMinutesLeft: fleet.booting.length > 0 ? fleet.booting[0].readyAt - m : 0,
      surgeFactor: ctx.surge,
      queryTimeMs: f.queryS * 1000,
      serviceTimeMs: f.serviceS * 1000,
      workers: f.workers,
      waitProbability: f.waitProbability,
      failedShare: f.failed,
      admittedPerSec: f.lambdaIn,
      dbCapacityQps: ctx.dbCapacityQps,
    },
    events: ctx.events,
  };
  // Shares of nothing: with no request admitted there is no error rate, latency or hit ratio to show.
  if (f.lambdaIn <= 0) snapshot.na = ['errorRate', 'p99Ms', 'cacheHitRatio'];
  // What the story takes away for the next minute (the desk greys it; a change to it is refused).
  if (base.episodes) {
    const away = unavailableAt(base.episodes, m + 1);
    const keys = Object.keys(away);
    if (keys.length > 0) snapshot.unavailable = Object.fromEntries(keys.map((k) => [k, away[k].reason]));
  }

  return {
    ...base,
    minute: m,
    controls,
    warm: warmNext,
    serving: fleet.serving,
    booting: fleet.booting,
    busyInstances: fleet.serving * f.utilization,
    warmUpEndsAt: ctx.warmUpEndsAt,
    rollbackDoneAt: ctx.rollbackDoneAt,
    rollbackFleet: ctx.rollbackFleet,
    errorBudgetRemaining: budget,
    burnWindow,
    instanceMinutes,
    paged,
    ledger,
    snapshot,
  };
}
