// A play: what a team does during a round, as timed changes and reactive rules that answer what the
// desk shows (an event, or an indicator crossing a value). The sim CLI, the design report and the
// hindsight coach all run plays through `runPlay`. Pure: no I/O, no clock, no Math.random.
import { ControlError, formatControlValue, parseControlValue } from '../sim/controls.ts';
import { changesByMinute, createRound, stepRound } from '../sim/engine.ts';
import type { ControlChange, ScheduledChange, SimMeta, SimModel, SimStateBase, Snapshot } from '../sim/types.ts';

/** What a rule waits for: an event's first showing, or the first minute an indicator crosses a value. */
export type Trigger = { event: string } | { indicator: string; op: '<' | '>'; value: number };

/**
 * When `on` first shows in minute m, `changes` apply at the start of minute m + 1 + delay — the
 * earliest a team seeing minute m's screen can act is minute m + 1. Each rule fires at most once.
 */
export interface Rule {
  on: Trigger;
  delay: number;
  changes: ControlChange[];
}

export interface Play {
  /** Changes at known minutes (0 = before the opening screen). */
  timed: ScheduledChange[];
  rules: Rule[];
}

export const EMPTY_PLAY: Play = { timed: [], rules: [] };

export interface PlayRun {
  snapshots: Snapshot[];
  /** The changes the play made, at the minutes they applied (timed and fired rules, in order). */
  applied: ScheduledChange[];
}

export interface RoundSpec {
  scenario: string;
  seed: number;
  noise: boolean;
  minutes: number;
}

/**
 * Whether a trigger shows in `s` (given the minute before, `prev`). An indicator "crosses" when the
 * condition holds now and did not the minute before; a value with nothing under it (`na`) never does.
 */
export function triggered(on: Trigger, s: Snapshot, prev: Snapshot | undefined): boolean {
  if ('event' in on) return s.events.some((e) => e.kind === on.event);
  if (!prev) return false;
  const holds = (x: Snapshot) => {
    if (x.na?.includes(on.indicator)) return false;
    const v = x.indicators[on.indicator];
    return on.op === '<' ? v < on.value : v > on.value;
  };
  return holds(s) && !holds(prev);
}

/** Plays a round: timed changes and rules, every change validated by the engine. */
export function runPlay<S extends SimStateBase>(model: SimModel<S>, spec: RoundSpec, play: Play): PlayRun {
  const byMinute = changesByMinute(play.timed);
  for (const m of byMinute.keys()) {
    if (m > spec.minutes)
      throw new RangeError(`a change is scheduled at minute ${m}, after the round's last minute ${spec.minutes}`);
  }
  const applied: ScheduledChange[] = [];
  const first = byMinute.get(0) ?? [];
  for (const c of first) applied.push({ minute: 0, ...c });
  let state = createRound(model, { scenario: spec.scenario, seed: spec.seed, noise: spec.noise, changes: first });
  const snapshots: Snapshot[] = [state.snapshot];
  const fired = new Array<boolean>(play.rules.length).fill(false);
  const pending = new Map<number, ControlChange[]>();
  const watch = (s: Snapshot, prev: Snapshot | undefined) => {
    for (let i = 0; i < play.rules.length; i++) {
      if (fired[i] || !triggered(play.rules[i].on, s, prev)) continue;
      fired[i] = true;
      const due = s.minute + 1 + play.rules[i].delay;
      if (due > spec.minutes) continue;
      const list = pending.get(due) ?? [];
      pending.set(due, list);
      list.push(...play.rules[i].changes);
    }
  };
  watch(state.snapshot, undefined);
  for (let m = 1; m <= spec.minutes; m++) {
    const changes = [...(byMinute.get(m) ?? []), ...(pending.get(m) ?? [])];
    for (const c of changes) applied.push({ minute: m, ...c });
    const prev = state.snapshot;
    state = stepRound(model, state, changes);
    snapshots.push(state.snapshot);
    watch(state.snapshot, prev);
  }
  return { snapshots, applied };
}

// ---- Text forms, as the sim CLI takes them and the model pages print them ----

export class PlayError extends Error {
  override readonly name = 'PlayError';
}

const EVENT_RE = /^([a-z][a-z0-9-]*)(?:\+(\d+))?$/;
const CROSS_RE = /^([A-Za-z][A-Za-z0-9]*)([<>])(-?\d+(?:\.\d+)?(?:e-?\d+)?)(?:\+(\d+))?$/;

/** `EVENT[+d]` or `indicator<x[+d]` / `indicator>x[+d]`; indicators must be the model's. */
export function parseTrigger(model: SimMeta, text: string): { on: Trigger; delay: number } {
  const e = EVENT_RE.exec(text);
  if (e) return { on: { event: e[1] }, delay: e[2] === undefined ? 0 : Number(e[2]) };
  const c = CROSS_RE.exec(text);
  if (!c)
    throw new PlayError(`${JSON.stringify(text)}: expected EVENT[+d] or indicator<value[+d] / indicator>value[+d]`);
  if (!model.indicators.some((i) => i.key === c[1])) {
    throw new PlayError(
      `unknown indicator "${c[1]}" for ${model.id}; indicators are: ${model.indicators.map((i) => i.key).join(', ')}`,
    );
  }
  return {
    on: { indicator: c[1], op: c[2] as '<' | '>', value: Number(c[3]) },
    delay: c[4] === undefined ? 0 : Number(c[4]),
  };
}

export function formatTrigger(on: Trigger, delay: number): string {
  const base = 'event' in on ? on.event : `${on.indicator}${on.op}${on.value}`;
  return delay > 0 ? `${base}+${delay}` : base;
}

/** `key=value` (validated; ControlError names what is allowed). */
export function parseChange(model: SimMeta, text: string): ControlChange {
  const m = /^([A-Za-z][A-Za-z0-9]*)=(.*)$/.exec(text);
  if (!m) throw new PlayError(`${JSON.stringify(text)}: expected key=value`);
  try {
    return { key: m[1], value: parseControlValue(model, m[1], m[2]) };
  } catch (e) {
    if (e instanceof ControlError) throw new PlayError(e.message);
    throw e;
  }
}

export const formatChange = (c: ControlChange): string => `${c.key}=${formatControlValue(c.value)}`;

/** The play as sim CLI arguments: `--set key=value@m` … then `--on TRIGGER key=value …` per rule. */
export function playArgs(play: Play): string[] {
  const out: string[] = [];
  for (const c of play.timed) out.push('--set', c.minute === 0 ? formatChange(c) : `${formatChange(c)}@${c.minute}`);
  for (const r of play.rules) out.push('--on', formatTrigger(r.on, r.delay), ...r.changes.map(formatChange));
  return out;
}

/** Arguments as a shell line: a token with < or > is quoted. */
export function shellLine(args: readonly string[]): string {
  return args.map((a) => (/[<>\s]/.test(a) ? `'${a}'` : a)).join(' ');
}
