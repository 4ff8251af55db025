// The payment-switch model: state, opening screen and the minute step (spec "The model, minute by
// minute", §10 servers). States are plain JSON and never mutated; the step copies what it changes.
import { PAYMENT_SWITCH_FILES } from '../../scenarios/builtin/payment-switch.ts';
import { toDef } from '../../scenarios/def.ts';
import { builtInList } from '../../scenarios/face.ts';
import { arrivalCount, rngFromSeed, uniform, type Rng } from '../rng.ts';
import type {
  ControlChange,
  ControlValue,
  CreateOptions,
  ScenarioDef,
  SimEvent,
  SimStateBase,
  Snapshot,
  Status,
} from '../types.ts';
import {
  ARRIVAL_BURST,
  BASE_RATE_TPS,
  BOOT_MINUTES,
  COST_PER_SERVER_HOUR,
  D_PRIME,
  FRAUD_LIABILITY,
  GROUP_B_WOBBLE,
  ISSUER_MEAN_S,
  MARGIN_PER_TX,
  STAND_IN_LOSS,
  STEP_UP_COST,
  SURGE_LAG_MIN,
} from './constants.ts';
import { CONTROLS, HEADLINE_KEYS, statusOf } from './defs.ts';
import { simulateMinute, type MinuteFlows } from './flows.ts';
import { emptyRetries } from './retries.ts';
import { conditions, IN_CODE, ORDER, scenarioEvents, type Conditions } from './scenarios.ts';
import { adaptWave, drawPlan, shiftConditions, shiftEvents, type ShiftPlan } from './shift.ts';
import {
  adaptShockWave,
  drawShocks,
  recipeOf,
  serverRate,
  shockConditions,
  shockEvents,
  type Shocks,
} from './shocks.ts';
import { RECIPES } from './recipes.ts';

/** Every scenario as the engine plays it, with its shocks (scenarios.ts: the order, and what the screens draw). */
export const SCENARIOS: readonly ScenarioDef[] = builtInList(ORDER, PAYMENT_SWITCH_FILES, IN_CODE, toDef);

export interface PaymentSwitchState extends SimStateBase {
  model: 'payment-switch';
  /** Traffic multiplier after the 2-minute lag (1 = a normal day). */
  surge: number;
  serversInService: number;
  /** Booting servers as [minute they enter service, count], oldest first. */
  booting: [number, number][];
  /** Expected attempts waiting to retry, by (class, kind, retry number): next minute's, then backoff pools (retries.ts). */
  retries: number[];
  /** Whether a retry storm is going on (for its start and end events). */
  storm: boolean;
  /** Server-minutes billed so far: an integer, so the cost so far carries no rounding drift. */
  serverMinutes: number;
  /** A retired full shift's shocks, drawn from the seed at creation (shift.ts). */
  plan?: ShiftPlan;
  /** A full shift's episodes and terms, drawn from the seed at creation (shocks.ts; absent in the seed's levels). */
  shocks?: Shocks;
  /** Server-minutes billed above the shift's own fleet (with `shocks`; an integer, like `serverMinutes`). */
  burstMinutes?: number;
  /** Mean score of the adapting attack's fraud (d′ until the attackers learn the threshold). */
  waveMean: number;
}

/** Share of the gap to the surge target closed each minute: 1 − e^(−1/2). */
const LAG_STEP = 1 - Math.exp(-1 / SURGE_LAG_MIN);
/** A storm starts when retries reach half the new traffic and ends below a quarter (hysteresis). */
const STORM_ON = 0.5;
const STORM_OFF = 0.25;

function bootingCount(booting: readonly [number, number][]): number {
  let n = 0;
  for (const [, c] of booting) n += c;
  return n;
}

/**
 * Applies a new `servers` target: raising starts new servers booting (in service at `readyAt`);
 * lowering removes booting servers first — the newest, which have booted least — then serving ones.
 */
function setServers(
  serving: number,
  booting: [number, number][],
  target: number,
  readyAt: number,
): { serving: number; booting: [number, number][] } {
  const current = serving + bootingCount(booting);
  if (target > current) return { serving, booting: [...booting, [readyAt, target - current]] };
  let remove = current - target;
  const kept: [number, number][] = booting.map(([at, c]) => [at, c]);
  while (remove > 0 && kept.length > 0) {
    const last = kept[kept.length - 1];
    const take = Math.min(remove, last[1]);
    last[1] -= take;
    remove -= take;
    if (last[1] === 0) kept.pop();
  }
  return { serving: serving - remove, booting: kept };
}

interface Totals {
  costSoFar: number;
  standInExposure: number;
  fraudApprovedSoFar: number;
  goodLostSoFar: number;
  ledgerCustomers: number;
  ledgerFriction: number;
  ledgerFraud: number;
  ledgerStandIn: number;
}

const ZERO_TOTALS: Totals = {
  costSoFar: 0,
  standInExposure: 0,
  fraudApprovedSoFar: 0,
  goodLostSoFar: 0,
  ledgerCustomers: 0,
  ledgerFriction: 0,
  ledgerFraud: 0,
  ledgerStandIn: 0,
};

/** A headline share with nothing under it this minute is listed in `na` (shown "—"). */
function notApplicable(flows: MinuteFlows): string[] {
  const na: string[] = [];
  if (!flows.anyGenuineEnded) na.push('goodApproval');
  if (!flows.anyApproved) na.push('fraudRateBp');
  if (!flows.anyHealthyEnded) na.push('healthyApproval');
  return na;
}

/** Half or more of the attempts failing is a collapse: every headline reads critical. */
const COLLAPSE_FAIL_SHARE = 0.5;

function buildSnapshot(
  minute: number,
  controls: Record<string, ControlValue>,
  flows: MinuteFlows,
  serving: number,
  booting: readonly [number, number][],
  totals: Totals,
  groupBMeanS: number,
  surge: number,
  storm: boolean,
  events: SimEvent[],
  shocks: Shocks | undefined,
): Snapshot {
  const nBooting = bootingCount(booting);
  const indicators: Record<string, number> = {
    goodApproval: flows.goodApproval,
    authTimeMs: flows.authTimeMs,
    fraudRateBp: flows.fraudRateBp,
    slotsBusy: flows.slotsBusy,
    healthyApproval: flows.healthyApproval,
    goodDeclinedByRule: flows.goodDeclinedByRule,
    stepUpShare: flows.stepUpShare,
    fraudStopped: flows.fraudStopped,
    newTps: flows.newTps,
    offeredTps: flows.offeredTps,
    retryTps: flows.retryTps,
    shedTps: flows.shedTps,
    queueDropShare: flows.queueDropShare,
    issuerTimeoutShare: flows.issuerTimeoutShare,
    standInTps: flows.standInTps,
    serversInService: serving,
    serversBooting: nBooting,
    costRatePerHour: serverRate(serving + nBooting, COST_PER_SERVER_HOUR, shocks?.terms),
    costSoFar: totals.costSoFar,
    standInExposure: totals.standInExposure,
    fraudApprovedSoFar: totals.fraudApprovedSoFar,
    goodLostSoFar: totals.goodLostSoFar,
    awaitingRetry: flows.awaitingRetry,
    groupBLatencyMs: groupBMeanS * 1000,
    ledgerCustomers: totals.ledgerCustomers,
    ledgerFriction: totals.ledgerFriction,
    ledgerFraud: totals.ledgerFraud,
    ledgerStandIn: totals.ledgerStandIn,
    ledgerTotal:
      totals.ledgerCustomers + totals.ledgerFriction + totals.ledgerFraud + totals.ledgerStandIn + totals.costSoFar,
  };
  const collapse = flows.failShare >= COLLAPSE_FAIL_SHARE;
  const status: Record<string, Status> = {};
  for (const key of HEADLINE_KEYS) status[key] = collapse ? 'critical' : statusOf(key, indicators[key]);
  const limit = controls.standInLimit as number;
  const na = notApplicable(flows);
  const snapshot: Snapshot = {
    minute,
    indicators,
    status,
    controls,
    detail: {
      surge,
      groupBSlow: groupBMeanS > 4 * ISSUER_MEAN_S ? 1 : 0,
      standInActive: limit > 0 ? 1 : 0,
      retryStorm: storm ? 1 : 0,
      nextServerReadyIn: booting.length > 0 ? booting[0][0] - minute : 0,
    },
    events,
  };
  if (na.length > 0) snapshot.na = na;
  return snapshot;
}

/** What the round's scenario imposes this minute: the seed's timelines or the drawn shocks. */
function roundConditions(
  s: Pick<PaymentSwitchState, 'scenario' | 'timeline' | 'plan' | 'shocks'>,
  minute: number,
): Conditions & { waveShare: number; bots?: number; genuineMean?: number; basket?: number } {
  if (s.shocks) return shockConditions(s.shocks, minute);
  return s.plan ? shiftConditions(s.plan, minute) : { ...conditions(s.timeline ?? s.scenario, minute), waveShare: 0 };
}

function roundEvents(
  s: Pick<PaymentSwitchState, 'scenario' | 'timeline' | 'plan' | 'shocks'>,
  minute: number,
): SimEvent[] {
  if (s.shocks) return shockEvents(s.shocks, minute);
  return s.plan ? (shiftEvents(s.plan, minute) as SimEvent[]) : scenarioEvents(s.timeline ?? s.scenario, minute);
}

function minuteInputs(
  controls: Record<string, ControlValue>,
  serving: number,
  newCount: number,
  cond: Conditions & { waveShare: number; bots?: number; genuineMean?: number },
  waveMean: number,
  groupBMeanS: number,
  scheduleRetries: boolean,
  shocks?: Shocks,
) {
  const patience = shocks
    ? {
        shedRetry: shocks.terms.shedRetry,
        backoffRetry: shocks.terms.backoffRetry,
        lowPriority: shocks.terms.lowPriority,
        retryUnavailable: shocks.terms.retryUnavailable,
        retryP: shocks.terms.retryP,
        bots: 60 * BASE_RATE_TPS * (cond.bots ?? 0),
      }
    : {};
  return {
    ...patience,
    serversInService: serving,
    shedding: controls.shedding as boolean,
    backoff: controls.retryPolicy === 'backoff',
    threshold: controls.fraudThreshold as number,
    band: controls.stepUpBand as number,
    timeoutS: controls.issuerTimeoutS as number,
    standInLimit: controls.standInLimit as number,
    newCount,
    fraudShare: cond.fraudShare,
    waveShare: cond.waveShare,
    waveMean,
    ...(cond.genuineMean ? { genuineMean: cond.genuineMean } : {}),
    groupBMeanS,
    scheduleRetries,
  };
}

export function createState(opts: CreateOptions): PaymentSwitchState {
  const scenario = opts.def ?? SCENARIOS.find((s) => s.id === opts.scenario);
  if (!scenario) throw new RangeError(`unknown payment-switch scenario "${opts.scenario}"`);
  // The named timeline (the seed's levels, the retired shifts) of a scenario without shocks of its own.
  const timeline = scenario.timeline ?? opts.scenario;
  const controls: Record<string, ControlValue> = {};
  for (const c of CONTROLS) if (c.kind !== 'action') controls[c.key] = c.default;
  Object.assign(controls, scenario.controls);
  // The scenario's fleet is running at the opening; servers added before it still boot 5 minutes.
  let serving = controls.servers as number;
  let booting: [number, number][] = [];
  for (const ch of opts.changes ?? []) {
    if (ch.key === 'servers') ({ serving, booting } = setServers(serving, booting, ch.value as number, BOOT_MINUTES));
    controls[ch.key] = ch.value;
  }
  // A full shift draws its shocks first (noise off: their means); the seed's levels draw nothing here.
  const rng = rngFromSeed(opts.seed);
  const plan = scenario.shocks ? undefined : drawPlan(timeline, rng, opts.noise);
  const recipe = scenario.shocks ? recipeOf(scenario.shocks) : RECIPES[timeline];
  const shocks = recipe ? drawShocks(recipe, rng, opts.noise) : undefined;
  const drawn = { scenario: opts.scenario, timeline, plan, shocks };
  const cond = roundConditions(drawn, 0);
  const surge = cond.surgeTarget;
  // The opening screen shows expected flows: no draws, nothing scheduled, nothing accumulated.
  const retries = emptyRetries();
  const flows = simulateMinute(
    minuteInputs(controls, serving, 60 * BASE_RATE_TPS * surge, cond, D_PRIME, cond.groupBMeanS, false, shocks),
    retries,
  );
  const state: PaymentSwitchState = {
    model: 'payment-switch',
    scenario: opts.scenario,
    seed: opts.seed,
    noise: opts.noise,
    minute: 0,
    rng,
    controls,
    surge,
    serversInService: serving,
    booting,
    retries,
    storm: false,
    serverMinutes: 0,
    waveMean: D_PRIME,
    snapshot: buildSnapshot(
      0,
      controls,
      flows,
      serving,
      booting,
      ZERO_TOTALS,
      cond.groupBMeanS,
      surge,
      false,
      roundEvents(drawn, 0),
      shocks,
    ),
  };
  if (timeline !== opts.scenario) state.timeline = timeline;
  if (plan) state.plan = plan;
  if (shocks) {
    state.shocks = shocks;
    state.burstMinutes = 0;
  }
  return state;
}

export function stepState(state: PaymentSwitchState, changes: readonly ControlChange[]): PaymentSwitchState {
  const minute = state.minute + 1;
  const events: SimEvent[] = roundEvents(state, minute);

  // §10 Servers whose boot ends now enter service, then this minute's changes apply.
  let serving = state.serversInService;
  let booting = state.booting;
  if (booting.length > 0 && booting[0][0] <= minute) {
    let ready = 0;
    const still: [number, number][] = [];
    for (const [at, c] of booting) {
      if (at <= minute) ready += c;
      else still.push([at, c]);
    }
    serving += ready;
    booting = still;
    events.push({ kind: 'servers-ready', count: ready });
  }
  // Controls change only with a change: a minute without one shares the last minute's (states are never mutated).
  const controls = changes.length > 0 ? { ...state.controls } : state.controls;
  for (const ch of changes) {
    if (ch.key === 'servers')
      ({ serving, booting } = setServers(serving, booting, ch.value as number, minute + BOOT_MINUTES));
    controls[ch.key] = ch.value;
  }

  // §1 Arrivals and the wobble of group B: the only draws, in this order, only with noise on.
  const cond = roundConditions(state, minute);
  const surge = state.surge + (cond.surgeTarget - state.surge) * LAG_STEP;
  const rng: Rng = { s: state.rng.s };
  const newCount = arrivalCount(rng, BASE_RATE_TPS * surge, ARRIVAL_BURST, state.noise);
  const groupBMeanS = state.noise ? cond.groupBMeanS * (1 + GROUP_B_WOBBLE * (2 * uniform(rng) - 1)) : cond.groupBMeanS;

  const retries = state.retries.slice();
  // A shift's stand-in agreement, once used up, stands nothing in any more.
  const cap = state.shocks?.terms.exposureCap;
  const limited =
    cap !== undefined && state.snapshot.indicators.standInExposure >= cap ? { ...controls, standInLimit: 0 } : controls;
  const flows = simulateMinute(
    minuteInputs(limited, serving, newCount, cond, state.waveMean, groupBMeanS, true, state.shocks),
    retries,
  );

  const serverMinutes = state.serverMinutes + serving + bootingCount(booting);
  const terms = state.shocks?.terms;
  const burstMinutes = terms
    ? (state.burstMinutes ?? 0) + Math.max(0, serving + bootingCount(booting) - terms.ownServers)
    : undefined;
  const prev = state.snapshot.indicators;
  const totals: Totals = {
    costSoFar:
      terms && burstMinutes !== undefined
        ? (serverMinutes * COST_PER_SERVER_HOUR + burstMinutes * (terms.burstPerHour - COST_PER_SERVER_HOUR)) / 60
        : (serverMinutes * COST_PER_SERVER_HOUR) / 60,
    standInExposure: prev.standInExposure + flows.standInVolume,
    fraudApprovedSoFar: prev.fraudApprovedSoFar + flows.fraudApprovedAmount,
    goodLostSoFar: prev.goodLostSoFar + flows.genuineLost,
    ledgerCustomers: prev.ledgerCustomers + MARGIN_PER_TX * (cond.basket ?? 1) * flows.genuineLost,
    ledgerFriction: prev.ledgerFriction + STEP_UP_COST * flows.challenged,
    ledgerFraud: prev.ledgerFraud + (terms?.fraudLiability ?? FRAUD_LIABILITY) * flows.fraudApprovedAmount,
    ledgerStandIn:
      prev.ledgerStandIn +
      STAND_IN_LOSS * flows.genuineStandInVolume +
      (terms ? terms.standInFee * 60 * flows.standInTps : 0),
  };

  let storm = state.storm;
  if (!storm && flows.retryTps >= STORM_ON * flows.newTps && flows.retryTps > 0) {
    storm = true;
    events.push({ kind: 'retry-storm' });
  } else if (storm && flows.retryTps < STORM_OFF * flows.newTps) {
    storm = false;
    events.push({ kind: 'retry-storm-over' });
  }

  const threshold = controls.fraudThreshold as number;
  const next: PaymentSwitchState = {
    ...state,
    minute,
    rng,
    controls,
    surge,
    serversInService: serving,
    booting,
    retries,
    storm,
    serverMinutes,
    waveMean: state.shocks
      ? adaptShockWave(state.shocks, minute, state.waveMean, threshold)
      : state.plan
        ? adaptWave(state.plan, minute, state.waveMean, threshold)
        : state.waveMean,
    snapshot: buildSnapshot(
      minute,
      controls,
      flows,
      serving,
      booting,
      totals,
      groupBMeanS,
      surge,
      storm,
      events,
      state.shocks,
    ),
  };
  if (burstMinutes !== undefined) next.burstMinutes = burstMinutes;
  return next;
}
