// The web-service state machine: minute 0 (create) and every following minute (step).
// The state is plain JSON and never mutated; the generator state lives in state.rng.
import { WEB_SERVICE_FILES } from '../../scenarios/builtin/web-service.ts';
import { toDef } from '../../scenarios/def.ts';
import { builtInList } from '../../scenarios/face.ts';
import { arrivalCount, type Rng } from '../rng.ts';
import {
  PRESS,
  type ControlChange,
  type ControlValue,
  type CreateOptions,
  type ScenarioDef,
  type SimEvent,
} from '../types.ts';
import { ARRIVAL_BURST, LOW_PRIORITY_SHARE, ROLLBACK_MINUTES, WARMUP_MINUTES } from './constants.ts';
import { controls as controlDefs } from './defs.ts';
import { IN_CODE, ORDER } from './scenarios.ts';
import { applyFloor, autoscale, completeBoots, type Fleet, fleetSize } from './fleet.ts';
import { dailyRate } from './flows.ts';
import { EMPTY_LEDGER } from './ledger.ts';
import { simulate, type WebServiceState } from './minute.ts';
import { dayOf, SETUPS, setupOf } from './setups.ts';
import { badBuildShare, crawlRate, dbCapacity, drawFrom, shockMinute, surgeFactor } from './shocks.ts';
import {
  autoscalerAway,
  drawEpisodes,
  episodeCrawl,
  episodeDb,
  episodeMinute,
  episodeSurge,
  NO_TRAIN,
  trainMinute,
  trainRolledBack,
  trainHalted,
  trainBuildError,
  trainShare,
  type Episodes,
} from './episodes.ts';
import { BASE_RATE } from './constants.ts';

/** Every scenario as the engine plays it, with its shocks (scenarios.ts: the order, and what the screens draw). */
export const scenarios: readonly ScenarioDef[] = builtInList(ORDER, WEB_SERVICE_FILES, IN_CODE, toDef);

/** Minutes the release train waits after a rollback before the next build goes out. */
const TRAIN_PAUSE = 3;
/** [design] Share of a train build's cache entries the last good build cannot read after a rollback. */
const KEY_CHANGE_SHARE = 0.3;

export type { WebServiceState } from './minute.ts';

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

/** Mean arrival rate at minute m (before the draw) and the low-priority share of it (crawlers are low priority). */
function arrivals(state: Pick<WebServiceState, 'scenario' | 'timeline' | 'day' | 'shocks' | 'episodes'>, m: number) {
  const ep = state.episodes;
  const surge = ep ? episodeSurge(ep, m) : surgeFactor(state.shocks, m);
  const base = dailyRate(dayOf(state).clock + m) * surge;
  const crawl = ep ? episodeCrawl(ep, m, BASE_RATE) : crawlRate(state.shocks, m);
  const rate = base + crawl;
  return { rate, lowShare: (LOW_PRIORITY_SHARE * base + crawl) / rate, crawlShare: crawl / rate, surge };
}

/** Minute 0: scenario controls, then the changes, the drawn shocks, and the opening flows. */
export function create(opts: CreateOptions): WebServiceState {
  const def = opts.def ?? scenarios.find((s) => s.id === opts.scenario);
  // The named timeline (the retired scenarios' shocks) of a scenario without shocks of its own.
  const timeline = def?.timeline ?? opts.scenario;
  const setup = def?.shocks ? setupOf(def.shocks) : SETUPS[timeline];
  if (!def || !setup) throw new RangeError(`web-service: unknown scenario "${opts.scenario}"`);
  const controls: Record<string, ControlValue> = {};
  for (const c of controlDefs) if (c.kind !== 'action') controls[c.key] = c.default;
  Object.assign(controls, def.controls);
  const pressed = splitChanges(opts.changes ?? [], controls);
  const rng: Rng = { s: opts.seed >>> 0 };
  const draw = drawFrom(rng, opts.noise);
  const shocks = setup.shocks(draw);
  const episodes: Episodes | undefined = setup.plan ? drawEpisodes(setup.plan, draw, opts.noise) : undefined;
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
    shocks,
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
    ledger: EMPTY_LEDGER,
    ...(episodes ? { episodes, train: NO_TRAIN } : {}),
    ...(timeline !== opts.scenario ? { timeline } : {}),
    ...(def.shocks ? { day: { clock: setup.clock, bootMinutes: setup.bootMinutes } } : {}),
  };
  const a = arrivals(base, 0);
  return simulate(null, base, {
    m: 0,
    controls,
    fleet,
    warm: 1,
    // The opening screen shows expected values: no arrival draw at minute 0.
    lambda: a.rate,
    lowShare: a.lowShare,
    crawlShare: a.crawlShare,
    surge: a.surge,
    dbCapacityQps: episodes ? episodeDb(episodes, 0) : dbCapacity(shocks, 0),
    beta: badBuildShare(shocks, false, 0),
    warmUpEndsAt,
    rollbackDoneAt,
    rollbackFleet: rollbackDoneAt === null ? 0 : fleet.serving,
    events: [],
  });
}

/** Minute m = state.minute + 1: autoscaler (on m − 1's measurement), boots, changes, shocks, flows. */
export function step(state: WebServiceState, changes: readonly ControlChange[]): WebServiceState {
  const m = state.minute + 1;
  const setup = dayOf(state);
  const sh = state.shocks;
  const events: SimEvent[] = [];
  const readyAt = m + setup.bootMinutes;
  let fleet: Fleet = { serving: state.serving, booting: state.booting };
  let quietMinutes = 0;

  const ep = state.episodes;
  // The autoscaler acts at the end of the previous minute, with the controls then in force (and if it is there).
  if (state.controls.autoscaling && !(ep && autoscalerAway(ep, m - 1))) {
    const d = autoscale(
      fleet,
      state.busyInstances,
      state.controls.targetUtilization as number,
      state.controls.minInstances as number,
      state.quietMinutes,
      readyAt,
    );
    fleet = d.fleet;
    quietMinutes = d.quietMinutes;
  }
  const done = completeBoots(fleet, m);
  fleet = done.fleet;
  if (done.ready > 0) events.push({ kind: 'instances-ready', count: done.ready });

  // Controls change only with a change: a minute without one shares the last minute's (states are never mutated).
  // When the story takes the autoscaler away, it is off until the team turns it on again once it is back.
  const away = ep !== undefined && autoscalerAway(ep, m) && state.controls.autoscaling === true;
  const controls = changes.length > 0 || away ? { ...state.controls } : state.controls;
  if (away) controls.autoscaling = false;
  const pressed = splitChanges(changes, controls);
  fleet = applyFloor(fleet, controls.minInstances as number, controls.autoscaling as boolean, readyAt);

  let warmUpEndsAt = state.warmUpEndsAt;
  if (warmUpEndsAt !== null && warmUpEndsAt <= m) {
    events.push({ kind: 'warmup-done' });
    warmUpEndsAt = null;
  }
  // Pressing during a running job restarts it: six fresh minutes from now.
  if (pressed.warmUp) warmUpEndsAt = m + WARMUP_MINUTES;

  let warm = state.warm;
  let rollbackDoneAt = state.rollbackDoneAt;
  let rolledBack = state.rolledBack;
  let train = state.train;
  if (rollbackDoneAt !== null && rollbackDoneAt <= m) {
    if (ep && train && train.current !== null) {
      // The switch to the last good build: part of the new build's cache entries are in a format it cannot read.
      warm *= 1 - KEY_CHANGE_SHARE * trainShare(train, m - 1);
      train = trainRolledBack(ep, train, m, TRAIN_PAUSE);
    }
    // The switch removes the bad build only once it has been live; before the deploy it only cost money.
    if (sh.deployAt !== null && m > sh.deployAt && !rolledBack) {
      rolledBack = true;
      // [design] The last good build cannot read the entries the bad build wrote in its new key format.
      if (sh.keyChange) warm *= 1 - badBuildShare(sh, false, m - 1);
    }
    events.push({ kind: 'rollback-done' });
    rollbackDoneAt = null;
  }
  let rollbackFleet = rollbackDoneAt === null ? 0 : state.rollbackFleet;
  if (pressed.rollback) {
    // Pressing again restarts the preparation on a fresh fleet the size of today's.
    rollbackDoneAt = m + ROLLBACK_MINUTES;
    rollbackFleet = fleetSize(fleet);
    // [design] A shift's release pipeline halts the rollout when a rollback is ordered.
    if (train) train = trainHalted(train, m);
  }

  warm = shockMinute(sh, m, rolledBack, warm, events);
  if (ep) warm = episodeMinute(ep, m, warm, events);
  if (ep && train) train = trainMinute(ep, train, m, events);
  const share = train ? trainShare(train, m) : badBuildShare(sh, rolledBack, m);
  const a = arrivals(state, m);
  const rng: Rng = { s: state.rng.s };
  const lambda = arrivalCount(rng, a.rate, ARRIVAL_BURST, state.noise) / 60;

  return simulate(
    state,
    { ...state, rng, rolledBack, quietMinutes, ...(train ? { train } : {}) },
    {
      m,
      controls,
      fleet,
      warm,
      lambda,
      lowShare: a.lowShare,
      crawlShare: a.crawlShare,
      surge: a.surge,
      dbCapacityQps: ep ? episodeDb(ep, m) : dbCapacity(sh, m),
      beta: share,
      ...(ep && train
        ? {
            badBeta: train.current !== null && ep.builds[train.current].bad ? share : 0,
            buildError: trainBuildError(ep, train, m),
          }
        : {}),
      warmUpEndsAt,
      rollbackDoneAt,
      rollbackFleet,
      events,
    },
  );
}
