// A play: what a team does during a round, as timed changes and reactive rules that answer what the
// desk shows (an event, or an indicator crossing a value). The sim CLI, the design report and the
// hindsight coach all run plays through `runPlay` (with role policies' seats alongside, for the design report's
// teams). Pure: no I/O, no clock, no Math.random.
import { ControlError, formatControlValue, parseControlValue } from '../sim/controls.ts';
import { changesByMinute, createRound, stepRound } from '../sim/engine.ts';
import type {
  ControlChange,
  ScheduledChange,
  SimEvent,
  SimMeta,
  SimModel,
  SimStateBase,
  Snapshot,
} from '../sim/types.ts';
import { splitSnapshot, visibleKeys } from '../classroom/split.ts';
import { openSeat, seatMinute } from '../policies/seat.ts';
import type { Seat } from '../policies/types.ts';

/**
 * What a rule waits for: an event's first showing (with `field`, only when that figure of the event — a sale's
 * announced size — is above or below `value`), or the first minute an indicator crosses a value.
 */
export type Trigger =
  | { event: string; field?: string; op?: '<' | '>'; value?: number }
  | { indicator: string; op: '<' | '>'; value: number };

/**
 * When `on` first shows in minute m, `changes` apply at the start of minute m + 1 + delay — the
 * earliest a team seeing minute m's screen can act is minute m + 1. A rule fires once, or with `each`
 * every time its trigger shows (an event each minute it is in, a crossing each time it crosses).
 */
export interface Rule {
  on: Trigger;
  delay: number;
  changes: ControlChange[];
  each?: boolean;
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
 * A freeze: changes of `keys` due in minutes [from, to) wait until minute `to` (the last value of each key
 * then applies; none if `to` is past the round). The design report's decision windows freeze one role.
 */
export interface Hold {
  keys: ReadonlySet<string>;
  from: number;
  to: number;
}

/** Whether an event's figure is on the trigger's side of its value (always, without a field). */
function eventFigureHolds(on: Extract<Trigger, { event: string }>, e: SimEvent): boolean {
  if (on.field === undefined) return true;
  const v = e[on.field];
  if (typeof v !== 'number' || on.value === undefined) return false;
  return on.op === '<' ? v < on.value : v > on.value;
}

/**
 * Whether a trigger shows in `s` (given the minute before, `prev`). An indicator "crosses" when the
 * condition holds now and did not the minute before; a value with nothing under it (`na`) never does.
 */
export function triggered(on: Trigger, s: Snapshot, prev: Snapshot | undefined): boolean {
  if ('event' in on) return s.events.some((e) => e.kind === on.event && eventFigureHolds(on, e));
  if (!prev) return false;
  const holds = (x: Snapshot) => {
    if (x.na?.includes(on.indicator)) return false;
    const v = x.indicators[on.indicator];
    return on.op === '<' ? v < on.value : v > on.value;
  };
  return holds(s) && !holds(prev);
}

/**
 * Plays a round: timed changes and rules, and seats (role policies) reading their own split view, every change
 * validated by the engine. With `hold`, changes of its keys due in its minutes wait until its end.
 */
export function runPlay<S extends SimStateBase>(
  model: SimModel<S>,
  spec: RoundSpec,
  play: Play,
  opts: { hold?: Hold; seats?: readonly Seat[] } = {},
): PlayRun {
  const byMinute = changesByMinute(play.timed);
  for (const m of byMinute.keys()) {
    if (m > spec.minutes)
      throw new RangeError(`a change is scheduled at minute ${m}, after the round's last minute ${spec.minutes}`);
  }
  const { hold } = opts;
  const deferred: ControlChange[] = [];
  const holdBack = (changes: ControlChange[], m: number): ControlChange[] => {
    if (!hold || m < hold.from || m >= hold.to) return changes;
    const now: ControlChange[] = [];
    for (const c of changes) (hold.keys.has(c.key) ? deferred : now).push(c);
    return now;
  };
  const first = holdBack(byMinute.get(0) ?? [], 0);
  const applied: ScheduledChange[] = first.map((c) => ({ minute: 0, ...c }));
  let state = createRound(model, { scenario: spec.scenario, seed: spec.seed, noise: spec.noise, changes: first });
  const snapshots: Snapshot[] = [state.snapshot];
  const seats = opts.seats ?? [];
  const views = seats.map((s) => visibleKeys(model, [s.role]));
  let seatStates = seats.map(openSeat);
  let shownBefore: (Snapshot | undefined)[] = seats.map(() => undefined);
  const fired = new Array<boolean>(play.rules.length).fill(false);
  const pending = new Map<number, ControlChange[]>();
  const watch = (s: Snapshot, prev: Snapshot | undefined) => {
    for (let i = 0; i < play.rules.length; i++) {
      const rule = play.rules[i];
      if ((fired[i] && !rule.each) || !triggered(rule.on, s, prev)) continue;
      fired[i] = true;
      const due = s.minute + 1 + rule.delay;
      if (due > spec.minutes) continue;
      const list = pending.get(due) ?? [];
      pending.set(due, list);
      list.push(...rule.changes);
    }
  };
  watch(state.snapshot, undefined);
  for (let m = 1; m <= spec.minutes; m++) {
    let changes = [...(byMinute.get(m) ?? []), ...(pending.get(m) ?? [])];
    if (seats.length > 0) {
      const shown = seats.map((_, i) => splitSnapshot(state.snapshot, views[i]));
      seatStates = seatStates.map((st, i) => {
        const r = seatMinute(model, seats[i], st, shown[i], shownBefore[i]);
        changes.push(...r.changes);
        return r.state;
      });
      shownBefore = shown;
    }
    changes = holdBack(changes, m);
    if (hold && m === hold.to && deferred.length > 0) changes = [...deferred.splice(0), ...changes];
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

const EVENT_RE = /^([a-z][a-z0-9-]*)(?:\.([a-z][A-Za-z]*)([<>])(-?\d+(?:\.\d+)?))?(?:\+(\d+))?$/;
const CROSS_RE = /^([A-Za-z][A-Za-z0-9]*)([<>])(-?\d+(?:\.\d+)?(?:e-?\d+)?)(?:\+(\d+))?$/;

/**
 * `EVENT[+d]`, `EVENT.field<x[+d]` / `EVENT.field>x[+d]` (a figure the event carries, as a sale's announced size),
 * or `indicator<x[+d]` / `indicator>x[+d]`; indicators must be the model's.
 */
export function parseTrigger(model: SimMeta, text: string): { on: Trigger; delay: number } {
  const e = EVENT_RE.exec(text);
  if (e) {
    const delay = e[5] === undefined ? 0 : Number(e[5]);
    if (e[2] === undefined) return { on: { event: e[1] }, delay };
    return { on: { event: e[1], field: e[2], op: e[3] as '<' | '>', value: Number(e[4]) }, delay };
  }
  const c = CROSS_RE.exec(text);
  if (!c)
    throw new PlayError(
      `${JSON.stringify(text)}: expected EVENT[+d], EVENT.field<value[+d] / EVENT.field>value[+d] or indicator<value[+d] / indicator>value[+d]`,
    );
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
  const base =
    'event' in on
      ? on.field === undefined
        ? on.event
        : `${on.event}.${on.field}${on.op}${on.value}`
      : `${on.indicator}${on.op}${on.value}`;
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

/** The play as sim CLI arguments: `--set key=value@m` … then `--on|--each TRIGGER key=value …` per rule. */
export function playArgs(play: Play): string[] {
  const out: string[] = [];
  for (const c of play.timed) out.push('--set', c.minute === 0 ? formatChange(c) : `${formatChange(c)}@${c.minute}`);
  for (const r of play.rules)
    out.push(r.each ? '--each' : '--on', formatTrigger(r.on, r.delay), ...r.changes.map(formatChange));
  return out;
}

/** Arguments as a shell line: a token with < or > is quoted. */
export function shellLine(args: readonly string[]): string {
  return args.map((a) => (/[<>\s]/.test(a) ? `'${a}'` : a)).join(' ');
}
