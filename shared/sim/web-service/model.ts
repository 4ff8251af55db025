// The web-service state machine: minute 0 (create) and every following minute (step).
// The state is plain JSON and never mutated; the generator state lives in state.rng.
import { arrivalCount, type Rng, uniform } from '../rng.ts';
import { PRESS, type ControlChange, type ControlValue, type CreateOptions, type SimEvent, type SimStateBase } from '../types.ts';
import {
  ARRIVAL_BURST,
  BURN_WINDOW,
  MINUTES_PER_MONTH,
  PAGE_BURN,
  PRICE_PER_INSTANCE_HOUR,
  REFILL_TAU_MIN,
  ROLLBACK_MINUTES,
  ROLLOUT_PER_MIN,
  SETUPS,
  SLO_BUDGET,
  SURGE_RAMP_MINUTES,
  SURGE_SIZE_MAX,
  SURGE_SIZE_MIN,
  SURGE_START_MAX,
  SURGE_START_MIN,
  WARMUP_GAIN_PER_MIN,
  WARMUP_MINUTES,
} from './constants.ts';
import { controls as controlDefs, scenarios, statusOf, STATUS_BOUNDS } from './defs.ts';
import { applyFloor, autoscale, bootingCount, completeBoots, type BootBatch, type Fleet, fleetSize } from './fleet.ts';
import { dailyRate, minuteFlows } from './flows.ts';

export interface WebServiceState extends SimStateBase {
  model: 'web-service';
  /** Drawn in create (traffic-surge only); null when the scenario has no surge. */
  surgeStart: number | null;
  surgeSize: number | null;
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
}

/** Surge multiplier at minute m: 1 before the start, then 1/3, 2/3, 3/3 of the increase. */
export function surgeFactor(start: number | null, size: number | null, m: number): number {
  if (start === null || size === null || m < start) return 1;
  return 1 + (size - 1) * Math.min(1, (m - start + 1) / SURGE_RAMP_MINUTES);
}

/** Share of traffic on the bad build at minute m (+20 % per minute from the deploy until the rollback). */
export function badBuildShare(deployMinute: number | undefined, rolledBack: boolean, m: number): number {
  if (deployMinute === undefined || rolledBack || m < deployMinute) return 0;
  return Math.min(1, ROLLOUT_PER_MIN * (m - deployMinute + 1));
}

interface MinuteContext {
  m: number;
  controls: Record<string, ControlValue>;
  fleet: Fleet;
  warm: number;
  lambda: number;
  surge: number;
  beta: number;
  warmUpEndsAt: number | null;
  rollbackDoneAt: number | null;
  rollbackFleet: number;
  events: SimEvent[];
}

/** Flows of one minute, the snapshot, and the end-of-minute updates (cost, budget, burn, refill). Minute 0 (prev null) keeps the cumulatives at their opening values. */
function simulate(prev: WebServiceState | null, base: Omit<WebServiceState, 'snapshot'>, ctx: MinuteContext): WebServiceState {
  const { m, controls, fleet } = ctx;
  const warmUpRunning = ctx.warmUpEndsAt !== null && m < ctx.warmUpEndsAt;
  const f = minuteFlows({
    lambda: ctx.lambda,
    shedLowPriority: controls.shedLowPriority as number,
    warm: ctx.warm,
    ttlS: controls.cacheTtlS as number,
    heavyFeature: controls.heavyFeature as boolean,
    warmUpRunning,
    beta: ctx.beta,
    serving: fleet.serving,
  });
  const booting = bootingCount(fleet);
  const billed = fleet.serving + booting + ctx.rollbackFleet;
  const costPerHour = PRICE_PER_INSTANCE_HOUR * billed;

  let burnWindow: number[];
  let instanceMinutes: number;
  let budget: number;
  if (prev === null) {
    burnWindow = new Array<number>(BURN_WINDOW).fill(f.errorRate);
    instanceMinutes = 0;
    budget = base.errorBudgetRemaining;
  } else {
    burnWindow = prev.burnWindow.slice(1);
    burnWindow.push(f.errorRate);
    instanceMinutes = prev.instanceMinutes + billed;
    // Spent budget is gone: the remaining share never rises, and stops at 0 (exhausted).
    budget = Math.max(0, prev.errorBudgetRemaining - f.errorRate / SLO_BUDGET / MINUTES_PER_MONTH);
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
    fleetCostPerHour: costPerHour,
    costSoFar: (instanceMinutes * PRICE_PER_INSTANCE_HOUR) / 60,
    cachedAnswerAgeS: (controls.cacheTtlS as number) / 2,
    badBuildShare: ctx.beta,
    recommendationsAvailable: controls.heavyFeature ? 1 : 0,
    errorBudgetRemaining: budget,
  };
  const status: Record<string, ReturnType<typeof statusOf>> = {};
  for (const key of Object.keys(STATUS_BOUNDS)) status[key] = statusOf(key, indicators[key]);
  let bootMinutesLeft = 0;
  if (fleet.booting.length > 0) bootMinutesLeft = fleet.booting[0].readyAt - m;

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
    snapshot: {
      minute: m,
      clock: SETUPS[base.scenario].clock + m,
      indicators,
      status,
      controls: { ...controls },
      detail: {
        warm: ctx.warm,
        warmUpMinutesLeft: ctx.warmUpEndsAt === null ? 0 : ctx.warmUpEndsAt - m,
        rollbackMinutesLeft: ctx.rollbackDoneAt === null ? 0 : ctx.rollbackDoneAt - m,
        rollbackFleet: ctx.rollbackFleet,
        bootMinutesLeft,
        surgeFactor: ctx.surge,
        queryTimeMs: f.queryS * 1000,
        serviceTimeMs: f.serviceS * 1000,
        workers: f.workers,
        waitProbability: f.waitProbability,
        failedShare: f.failed,
        admittedPerSec: f.lambdaIn,
      },
      events: ctx.events,
    },
  };
}

function splitChanges(changes: readonly ControlChange[], controls: Record<string, ControlValue>) {
  let warmUp = false;
  let rollback = false;
  for (const c of changes) {
    if (c.value === PRESS && c.key === 'warmUp') warmUp = true;
    else if (c.value === PRESS && c.key === 'rollback') rollback = true;
    else controls[c.key] = c.value;
  }
  return { warmUp, rollback };
}

/** Minute 0: scenario controls, then the changes, the drawn unknowns, and the opening flows. */
export function create(opts: CreateOptions): WebServiceState {
  const def = scenarios.find((s) => s.id === opts.scenario);
  const setup = SETUPS[opts.scenario];
  if (!def || !setup) throw new RangeError(`web-service: unknown scenario "${opts.scenario}"`);
  const controls: Record<string, ControlValue> = {};
  for (const c of controlDefs) if (c.kind !== 'action') controls[c.key] = c.default;
  Object.assign(controls, def.controls);
  const pressed = splitChanges(opts.changes ?? [], controls);
  const rng: Rng = { s: opts.seed >>> 0 };
  let surgeStart: number | null = null;
  let surgeSize: number | null = null;
  if (setup.surge) {
    const span = SURGE_START_MAX - SURGE_START_MIN + 1;
    // Noise off: the means (minute 20, ×2.5), and nothing is drawn.
    surgeStart = opts.noise ? SURGE_START_MIN + Math.floor(uniform(rng) * span) : (SURGE_START_MIN + SURGE_START_MAX) / 2;
    surgeSize = opts.noise ? SURGE_SIZE_MIN + (SURGE_SIZE_MAX - SURGE_SIZE_MIN) * uniform(rng) : (SURGE_SIZE_MIN + SURGE_SIZE_MAX) / 2;
  }
  // The round opens on a running service: the configured floor is already in service.
  const fleet: Fleet = { serving: controls.minInstances as number, booting: [] };
  const warmUpEndsAt = pressed.warmUp ? WARMUP_MINUTES : null;
  const rollbackDoneAt = pressed.rollback ? ROLLBACK_MINUTES : null;
  const base: Omit<WebServiceState, 'snapshot'> = {
    model: 'web-service',
    scenario: opts.scenario,
    seed: opts.seed,
    noise: opts.noise,
    minute: 0,
    rng,
    controls,
    surgeStart,
    surgeSize,
    warm: 1,
    serving: fleet.serving,
    booting: [],
    quietMinutes: 0,
    busyInstances: 0,
    warmUpEndsAt,
    rollbackDoneAt,
    rollbackFleet: 0,
    rolledBack: false,
    errorBudgetRemaining: setup.budget,
    burnWindow: [],
    instanceMinutes: 0,
    paged: false,
  };
  const surge = surgeFactor(surgeStart, surgeSize, 0);
  return simulate(null, base, {
    m: 0,
    controls,
    fleet,
    warm: 1,
    // The opening screen shows expected values: no arrival draw at minute 0.
    lambda: dailyRate(setup.clock) * surge,
    surge,
    beta: badBuildShare(setup.deployMinute, false, 0),
    warmUpEndsAt,
    rollbackDoneAt,
    rollbackFleet: rollbackDoneAt === null ? 0 : fleet.serving,
    events: [],
  });
}

/** Minute m = state.minute + 1: autoscaler (on m − 1's measurement), boots, changes, happenings, flows. */
export function step(state: WebServiceState, changes: readonly ControlChange[]): WebServiceState {
  const m = state.minute + 1;
  const setup = SETUPS[state.scenario];
  const events: SimEvent[] = [];
  const readyAt = m + setup.bootMinutes;
  let fleet: Fleet = { serving: state.serving, booting: state.booting };
  let quietMinutes = 0;

  // The autoscaler acts at the end of the previous minute, with the controls then in force.
  if (state.controls.autoscaling) {
    const d = autoscale(fleet, state.busyInstances, state.controls.targetUtilization as number, state.controls.minInstances as number, state.quietMinutes, readyAt);
    fleet = d.fleet;
    quietMinutes = d.quietMinutes;
  }
  const done = completeBoots(fleet, m);
  fleet = done.fleet;
  if (done.ready > 0) events.push({ kind: 'instances-ready', count: done.ready });

  const controls = { ...state.controls };
  const pressed = splitChanges(changes, controls);
  fleet = applyFloor(fleet, controls.minInstances as number, controls.autoscaling as boolean, readyAt);

  let warmUpEndsAt = state.warmUpEndsAt;
  if (warmUpEndsAt !== null && warmUpEndsAt <= m) {
    events.push({ kind: 'warmup-done' });
    warmUpEndsAt = null;
  }
  // Pressing during a running job restarts it: six fresh minutes from now.
  if (pressed.warmUp) warmUpEndsAt = m + WARMUP_MINUTES;

  let rollbackDoneAt = state.rollbackDoneAt;
  let rolledBack = state.rolledBack;
  if (rollbackDoneAt !== null && rollbackDoneAt <= m) {
    // The switch removes the bad build only once it has been live; before the deploy it only cost money.
    if (setup.deployMinute !== undefined && m > setup.deployMinute) rolledBack = true;
    events.push({ kind: 'rollback-done' });
    rollbackDoneAt = null;
  }
  let rollbackFleet = rollbackDoneAt === null ? 0 : state.rollbackFleet;
  if (pressed.rollback) {
    // Pressing again restarts the preparation on a fresh fleet the size of today's.
    rollbackDoneAt = m + ROLLBACK_MINUTES;
    rollbackFleet = fleetSize(fleet);
  }

  let warm = state.warm;
  if (m === setup.flushMinute) {
    warm = 0;
    events.push({ kind: 'cache-flush' });
  }
  if (m === setup.deployMinute) events.push({ kind: 'deploy' });
  if (m === state.surgeStart) events.push({ kind: 'surge-start' });

  const surge = surgeFactor(state.surgeStart, state.surgeSize, m);
  const rng: Rng = { s: state.rng.s };
  const lambda = arrivalCount(rng, dailyRate(setup.clock + m) * surge, ARRIVAL_BURST, state.noise) / 60;

  return simulate(
    state,
    { ...state, rng, rolledBack, quietMinutes },
    {
      m,
      controls,
      fleet,
      warm,
      lambda,
      surge,
      beta: badBuildShare(setup.deployMinute, rolledBack, m),
      warmUpEndsAt,
      rollbackDoneAt,
      rollbackFleet,
      events,
    },
  );
}
