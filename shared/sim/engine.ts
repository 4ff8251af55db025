// The generic engine: validates changes, drives a model minute by minute, evaluates goals.
// Every function is pure; the server, the CLI, replays and tests all play rounds through here.
import { checkAvailable, validateChange } from './controls.ts';
import { evaluateRound, type Baseline } from './score.ts';
import type {
  ControlChange,
  CreateOptions,
  IndicatorDef,
  RoundResult,
  ScenarioDef,
  ScheduledChange,
  SimModel,
  SimStateBase,
  SimEvent,
  SimulatorId,
  Snapshot,
} from './types.ts';

export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
  constructor(
    readonly scenario: string,
    readonly allowed: readonly string[],
  ) {
    super(`unknown scenario "${scenario}"; scenarios are: ${allowed.join(', ')}`);
  }
}

export function scenarioDef(model: SimModel, id: string): ScenarioDef {
  const def = model.scenarios.find((s) => s.id === id);
  if (!def)
    throw new ScenarioError(
      id,
      model.scenarios.map((s) => s.id),
    );
  return def;
}

/** A key that names none of a model's indicators: a caller's mistake, never a player's. */
export class IndicatorError extends Error {
  override readonly name = 'IndicatorError';
  constructor(
    readonly model: SimulatorId,
    readonly key: string,
  ) {
    super(`${model} has no indicator "${key}"`);
  }
}

export function indicatorDef(model: Pick<SimModel, 'id' | 'indicators'>, key: string): IndicatorDef {
  const def = model.indicators.find((i) => i.key === key);
  if (!def) throw new IndicatorError(model.id, key);
  return def;
}

function withControlEvents(snapshot: Snapshot, changes: readonly ControlChange[]): void {
  for (const c of changes) snapshot.events.push({ kind: 'control', key: c.key, value: c.value });
}

/** Minute 0 of a round: the scenario's controls, then `changes`, then the opening screen. */
export function createRound<S extends SimStateBase>(model: SimModel<S>, opts: CreateOptions): S {
  const def = scenarioDef(model, opts.scenario);
  if (!Number.isInteger(opts.seed) || opts.seed < 0 || opts.seed > 0xffffffff) {
    throw new RangeError(`seed must be an integer in 0–4294967295, got ${opts.seed}`);
  }
  const changes = (opts.changes ?? []).map((c) => validateChange(model, c));
  // What the story takes away from the opening is on the opening screen of a round without changes.
  if (changes.length > 0) {
    const opening = model.create({ ...opts, def, changes: [] }).snapshot;
    if (opening.unavailable) for (const c of changes) checkAvailable(opening, c.key);
  }
  const state = model.create({ ...opts, def, changes });
  withControlEvents(state.snapshot, changes);
  withMessages(state.snapshot, def);
  return state;
}

/**
 * The scenario's messages of the snapshot's minute, as events: `text` the English, `text.<language>` each other
 * language the file gives (a desk shows its reader's, else the English).
 */
function withMessages(snapshot: Snapshot, def: ScenarioDef): void {
  def.messages?.forEach((msg, index) => {
    if (msg.minute !== snapshot.minute) return;
    const event: SimEvent = { kind: 'scenario-message', index, text: msg.text.en };
    for (const [lang, text] of Object.entries(msg.text)) if (lang !== 'en') event[`text.${lang}`] = text;
    snapshot.events.push(event);
  });
}

/** The next minute, with `changes` applied at its start. Throws ControlError on any bad change. */
export function stepRound<S extends SimStateBase>(
  model: SimModel<S>,
  state: S,
  changes: readonly ControlChange[] = [],
): S {
  for (const c of changes) {
    validateChange(model, c);
    checkAvailable(state.snapshot, c.key);
  }
  const next = model.step(state, changes);
  withControlEvents(next.snapshot, changes);
  const def = model.scenarios.find((s) => s.id === state.scenario);
  if (def?.messages) withMessages(next.snapshot, def);
  return next;
}

export interface RunOptions {
  scenario: string;
  seed: number;
  noise: boolean;
  minutes: number;
  changes?: readonly ScheduledChange[];
  /** Score against this reference round (see `baselineRun`); without it the goals-only fallback. */
  baseline?: Baseline;
}

/** Changes grouped by minute, in the order given. */
export function changesByMinute(changes: readonly ScheduledChange[]): Map<number, ControlChange[]> {
  const out = new Map<number, ControlChange[]>();
  for (const c of changes) {
    if (!Number.isInteger(c.minute) || c.minute < 0)
      throw new RangeError(`change of ${c.key}: minute must be an integer ≥ 0, got ${c.minute}`);
    const list = out.get(c.minute) ?? [];
    out.set(c.minute, list);
    list.push({ key: c.key, value: c.value });
  }
  return out;
}

/** Replays the state forward from `state` to `untilMinute`, applying the scheduled changes. */
export function advanceTo<S extends SimStateBase>(
  model: SimModel<S>,
  state: S,
  untilMinute: number,
  byMinute: Map<number, ControlChange[]>,
  onMinute?: (s: S) => void,
): S {
  let s = state;
  while (s.minute < untilMinute) {
    s = stepRound(model, s, byMinute.get(s.minute + 1) ?? []);
    onMinute?.(s);
  }
  return s;
}

/** Plays a whole round: the snapshots of minutes 0..minutes and the goal verdicts. */
export function runRound<S extends SimStateBase>(
  model: SimModel<S>,
  opts: RunOptions,
): { snapshots: Snapshot[]; result: RoundResult; final: S } {
  const byMinute = changesByMinute(opts.changes ?? []);
  for (const m of byMinute.keys()) {
    if (m > opts.minutes)
      throw new RangeError(`a change is scheduled at minute ${m}, after the round's last minute ${opts.minutes}`);
  }
  const first = createRound(model, {
    scenario: opts.scenario,
    seed: opts.seed,
    noise: opts.noise,
    changes: byMinute.get(0) ?? [],
  });
  const snapshots: Snapshot[] = [first.snapshot];
  const final = advanceTo(model, first, opts.minutes, byMinute, (s) => snapshots.push(s.snapshot));
  return { snapshots, result: evaluateRound(scenarioDef(model, opts.scenario), snapshots, opts.baseline), final };
}

/**
 * The score's references for one round (noise on, as rounds are played): doing nothing — the same
 * scenario, seed and minutes with no control change — and a calm hour, free play with the same seed and
 * minutes. Pure; the server computes it once per round and passes it to `evaluateRound`.
 */
export function baselineRun(model: SimModel, scenario: string, seed: number, minutes: number, noise = true): Baseline {
  return baselineWithRun(model, scenario, seed, minutes, noise).baseline;
}

/** `baselineRun`, with the minutes of doing nothing it was made from (the design report's space is made of them). */
export function baselineWithRun(
  model: SimModel,
  scenario: string,
  seed: number,
  minutes: number,
  noise = true,
): { baseline: Baseline; run: readonly Snapshot[] } {
  const { snapshots } = runRound(model, { scenario, seed, noise, minutes });
  const total = model.ledger.total;
  const calm = scenario === 'free' ? snapshots : runRound(model, { scenario: 'free', seed, noise, minutes }).snapshots;
  const totals = (run: readonly Snapshot[]) => run.map((s) => s.indicators[total]);
  return { baseline: { nothing: totals(snapshots), calm: totals(calm), total }, run: snapshots };
}
