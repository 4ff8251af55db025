// The payment-switch model: state, opening screen and the minute step (spec "The model, minute by
// minute", §10 servers). States are plain JSON and never mutated; the step copies what it changes.
import { arrivalCount, rngFromSeed, uniform, type Rng } from '../rng.ts';
import type { ControlChange, ControlValue, CreateOptions, SimEvent, SimStateBase, Snapshot, Status } from '../types.ts';
import {
  ARRIVAL_BURST,
  BASE_RATE_TPS,
  BOOT_MINUTES,
  COST_PER_SERVER_HOUR,
  GROUP_B_WOBBLE,
  ISSUER_MEAN_S,
  SURGE_LAG_MIN,
} from './constants.ts';
import { CONTROLS, HEADLINE_KEYS, statusOf } from './defs.ts';
import { simulateMinute, type MinuteFlows } from './flows.ts';
import { emptyRing } from './retries.ts';
import { conditions, scenarioEvents, SCENARIOS } from './scenarios.ts';

export interface PaymentSwitchState extends SimStateBase {
  model: 'payment-switch';
  /** Traffic multiplier after the 2-minute lag (1 = a normal day). */
  surge: number;
  serversInService: number;
  /** Booting servers as [minute they enter service, count], oldest first. */
  booting: [number, number][];
  /** Expected attempts waiting to retry, by (class, kind, retry number) and minute: see retries.ts. */
  retries: number[];
  /** Whether a retry storm is going on (for its start and end events). */
  storm: boolean;
  /** Server-minutes billed so far: an integer, so the cost so far carries no rounding drift. */
  serverMinutes: number;
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
function setServers(serving: number, booting: [number, number][], target: number, readyAt: number): { serving: number; booting: [number, number][] } {
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
}

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
    costRatePerHour: COST_PER_SERVER_HOUR * (serving + nBooting),
    costSoFar: totals.costSoFar,
    standInExposure: totals.standInExposure,
    fraudApprovedSoFar: totals.fraudApprovedSoFar,
    goodLostSoFar: totals.goodLostSoFar,
    awaitingRetry: flows.awaitingRetry,
    groupBLatencyMs: groupBMeanS * 1000,
  };
  const status: Record<string, Status> = {};
  for (const key of HEADLINE_KEYS) status[key] = statusOf(key, indicators[key]);
  const limit = controls.standInLimit as number;
  return {
    minute,
    indicators,
    status,
    controls: { ...controls },
    detail: {
      surge,
      groupBSlow: groupBMeanS > 4 * ISSUER_MEAN_S ? 1 : 0,
      standInActive: limit > 0 ? 1 : 0,
      retryStorm: storm ? 1 : 0,
      nextServerReadyIn: booting.length > 0 ? booting[0][0] - minute : 0,
    },
    events,
  };
}

function minuteInputs(controls: Record<string, ControlValue>, minute: number, serving: number, newCount: number, fraudShare: number, groupBMeanS: number, scheduleRetries: boolean) {
  return {
    minute,
    serversInService: serving,
    shedding: controls.shedding as boolean,
    backoff: controls.retryPolicy === 'backoff',
    threshold: controls.fraudThreshold as number,
    band: controls.stepUpBand as number,
    timeoutS: controls.issuerTimeoutS as number,
    standInLimit: controls.standInLimit as number,
    newCount,
    fraudShare,
    groupBMeanS,
    scheduleRetries,
  };
}

export function createState(opts: CreateOptions): PaymentSwitchState {
  const scenario = SCENARIOS.find((s) => s.id === opts.scenario);
  if (!scenario) throw new RangeError(`unknown payment-switch scenario "${opts.scenario}"`);
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
  const cond = conditions(opts.scenario, 0);
  const surge = cond.surgeTarget;
  // The opening screen shows expected flows: no draws, nothing scheduled, nothing accumulated.
  const ring = emptyRing();
  const flows = simulateMinute(minuteInputs(controls, 0, serving, 60 * BASE_RATE_TPS * surge, cond.fraudShare, cond.groupBMeanS, false), ring);
  const totals = { costSoFar: 0, standInExposure: 0, fraudApprovedSoFar: 0, goodLostSoFar: 0 };
  return {
    model: 'payment-switch',
    scenario: opts.scenario,
    seed: opts.seed,
    noise: opts.noise,
    minute: 0,
    rng: rngFromSeed(opts.seed),
    controls,
    surge,
    serversInService: serving,
    booting,
    retries: ring,
    storm: false,
    serverMinutes: 0,
    snapshot: buildSnapshot(0, controls, flows, serving, booting, totals, cond.groupBMeanS, surge, false, scenarioEvents(opts.scenario, 0)),
  };
}

export function stepState(state: PaymentSwitchState, changes: readonly ControlChange[]): PaymentSwitchState {
  const minute = state.minute + 1;
  const events: SimEvent[] = scenarioEvents(state.scenario, minute);

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
  const controls = { ...state.controls };
  for (const ch of changes) {
    if (ch.key === 'servers') ({ serving, booting } = setServers(serving, booting, ch.value as number, minute + BOOT_MINUTES));
    controls[ch.key] = ch.value;
  }

  // §1 Arrivals and the wobble of group B: the only draws, in this order, only with noise on.
  const cond = conditions(state.scenario, minute);
  const surge = state.surge + (cond.surgeTarget - state.surge) * LAG_STEP;
  const rng: Rng = { s: state.rng.s };
  const newCount = arrivalCount(rng, BASE_RATE_TPS * surge, ARRIVAL_BURST, state.noise);
  const groupBMeanS = state.noise ? cond.groupBMeanS * (1 + GROUP_B_WOBBLE * (2 * uniform(rng) - 1)) : cond.groupBMeanS;

  const ring = state.retries.slice();
  const flows = simulateMinute(minuteInputs(controls, minute, serving, newCount, cond.fraudShare, groupBMeanS, true), ring);

  const serverMinutes = state.serverMinutes + serving + bootingCount(booting);
  const prev = state.snapshot.indicators;
  const totals: Totals = {
    costSoFar: (serverMinutes * COST_PER_SERVER_HOUR) / 60,
    standInExposure: prev.standInExposure + flows.standInVolume,
    fraudApprovedSoFar: prev.fraudApprovedSoFar + flows.fraudApprovedAmount,
    goodLostSoFar: prev.goodLostSoFar + flows.genuineLost,
  };

  let storm = state.storm;
  if (!storm && flows.retryTps >= STORM_ON * flows.newTps && flows.retryTps > 0) {
    storm = true;
    events.push({ kind: 'retry-storm' });
  } else if (storm && flows.retryTps < STORM_OFF * flows.newTps) {
    storm = false;
    events.push({ kind: 'retry-storm-over' });
  }

  return {
    ...state,
    minute,
    rng,
    controls,
    surge,
    serversInService: serving,
    booting,
    retries: ring,
    storm,
    serverMinutes,
    snapshot: buildSnapshot(minute, controls, flows, serving, booting, totals, groupBMeanS, surge, storm, events),
  };
}
