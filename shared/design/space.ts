// The space of plays a search explores for one scenario: the values each control can take, the
// events the desk shows and the indicator crossings a rule can wait for — and the moves between plays.
import { ControlError, ControlErrorCode } from '../sim/controls.ts';
import { uniform, type Rng } from '../sim/rng.ts';
import {
  PRESS,
  type ControlChange,
  type ControlDef,
  type ControlValue,
  type ScheduledChange,
  type SimMeta,
  type Snapshot,
} from '../sim/types.ts';
import type { Play, Rule, Trigger } from './play.ts';

export interface ControlSpace {
  def: ControlDef;
  /** Every value on the control's grid (numbers: min + k·step), or its options. */
  values: readonly ControlValue[];
}

export interface Space {
  controls: readonly ControlSpace[];
  /** Event kinds a rule can wait for (seen in the runs the space was built from). */
  events: readonly string[];
  /** Indicator crossings: per indicator, candidate values (quantiles of what the runs showed). */
  crossings: readonly { indicator: string; values: readonly number[] }[];
  minutes: number;
}

/** What a play may contain. */
export interface Limits {
  /** Rules allowed (0: a fixed play). */
  maxRules: number;
  /** Timed changes after minute 0 allowed (oracle schedules and adaptive plays). */
  timedAfterStart: boolean;
  /** Rules' delays are at least this (the late-reaction check). */
  minDelay?: number;
  /** Rules may fire every time their trigger shows (`each`), not only the first. */
  each?: boolean;
}

export const FIXED: Limits = { maxRules: 0, timedAfterStart: false };
export const ADAPTIVE: Limits = { maxRules: 24, timedAfterStart: true, each: true };
/** A posture and one reaction: decisions at no more than two times. */
export const TWO_TIMES: Limits = { maxRules: 1, timedAfterStart: false };

/** Every value on a control's grid (numbers: min + k·step), or its options; a button's press. */
export function gridValues(def: ControlDef): ControlValue[] {
  switch (def.kind) {
    case 'number': {
      const n = Math.round((def.max - def.min) / def.step);
      const dec = Math.max(0, -Math.floor(Math.log10(def.step)) + 1);
      return Array.from({ length: n + 1 }, (_, k) => Number((def.min + k * def.step).toFixed(dec)));
    }
    case 'bool':
      return [false, true];
    case 'enum':
      return [...def.options];
    case 'action':
      return [PRESS];
  }
}

function quantiles(xs: number[], qs: readonly number[]): number[] {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return [];
  const out = new Set<number>();
  for (const q of qs) {
    const v = s[Math.min(s.length - 1, Math.floor(q * s.length))];
    out.add(Number(v.toPrecision(3)));
  }
  return [...out];
}

const QS = [0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98];

/**
 * The space for a model, from runs of the scenario (e.g. the baselines and a few plays): events seen
 * (control echoes excluded) and quantiles of every indicator that is not a running total. A control the
 * scenario's story takes away at any minute of those runs is left out (a change to it could be refused).
 */
export function buildSpace(model: SimMeta, runs: readonly (readonly Snapshot[])[], minutes: number): Space {
  const away = new Set<string>();
  for (const r of runs) for (const s of r) for (const k of Object.keys(s.unavailable ?? {})) away.add(k);
  const events = new Set<string>();
  for (const r of runs) for (const s of r) for (const e of s.events) if (e.kind !== 'control') events.add(e.kind);
  const crossings = model.indicators
    .filter((i) => !i.trend)
    .map((i) => ({
      indicator: i.key,
      values: quantiles(
        runs.flatMap((r) => r.slice(1).map((s) => s.indicators[i.key])),
        QS,
      ),
    }))
    .filter((c) => c.values.length > 1 && c.values[0] !== c.values[c.values.length - 1]);
  return {
    controls: model.controls.filter((def) => !away.has(def.key)).map((def) => ({ def, values: gridValues(def) })),
    events: [...events].sort(),
    crossings,
    minutes,
  };
}

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(uniform(rng) * xs.length)];
const chance = (rng: Rng, p: number) => uniform(rng) < p;

/** A value near `v` on the control's grid (a few steps away), or any value. */
function nearValue(rng: Rng, c: ControlSpace, v: ControlValue | undefined): ControlValue {
  const i = v === undefined ? -1 : c.values.indexOf(v);
  if (i < 0 || c.values.length <= 3 || chance(rng, 0.25)) return pick(rng, c.values);
  const span = Math.max(1, Math.round(c.values.length / 12));
  const j = Math.max(
    0,
    Math.min(c.values.length - 1, i + (chance(rng, 0.5) ? 1 : -1) * (1 + Math.floor(uniform(rng) * span))),
  );
  return c.values[j];
}

function randomChange(rng: Rng, space: Space, noActions: boolean): ControlChange {
  const pool = noActions ? space.controls.filter((c) => c.def.kind !== 'action') : space.controls;
  const c = pick(rng, pool);
  return { key: c.def.key, value: pick(rng, c.values) };
}

function randomTrigger(rng: Rng, space: Space): Trigger {
  if (space.events.length > 0 && (space.crossings.length === 0 || chance(rng, 0.5)))
    return { event: pick(rng, space.events) };
  const c = pick(rng, space.crossings);
  return { indicator: c.indicator, op: chance(rng, 0.5) ? '<' : '>', value: pick(rng, c.values) };
}

function tweakTrigger(rng: Rng, space: Space, on: Trigger): Trigger {
  if ('event' in on || chance(rng, 0.3)) return randomTrigger(rng, space);
  const c = space.crossings.find((x) => x.indicator === on.indicator);
  if (!c || chance(rng, 0.3)) return { ...on, op: on.op === '<' ? '>' : '<' };
  const i = c.values.indexOf(on.value);
  const j =
    i < 0
      ? Math.floor(uniform(rng) * c.values.length)
      : Math.max(0, Math.min(c.values.length - 1, i + (chance(rng, 0.5) ? 1 : -1)));
  return { ...on, value: c.values[j] };
}

function controlOf(space: Space, key: string): ControlSpace {
  const c = space.controls.find((x) => x.def.key === key);
  if (!c) {
    const keys = space.controls.map((x) => x.def.key).join(', ');
    throw new ControlError(
      ControlErrorCode.UNKNOWN_CONTROL,
      key,
      keys,
      `the design space has no control "${key}"; it has: ${keys}`,
    );
  }
  return c;
}

function clonePlay(p: Play): Play {
  return {
    timed: p.timed.map((c) => ({ ...c })),
    rules: p.rules.map((r) => ({
      on: { ...r.on },
      delay: r.delay,
      changes: r.changes.map((c) => ({ ...c })),
      ...(r.each ? { each: true } : {}),
    })),
  };
}

/** A random play within the limits. */
export function randomPlay(rng: Rng, space: Space, limits: Limits): Play {
  const timed: ScheduledChange[] = [];
  const n0 = Math.floor(uniform(rng) * 4);
  for (let i = 0; i < n0; i++) timed.push({ minute: 0, ...randomChange(rng, space, true) });
  const rules: Rule[] = [];
  const nr = limits.maxRules === 0 ? 0 : 1 + Math.floor(uniform(rng) * Math.min(limits.maxRules, 5));
  for (let i = 0; i < nr; i++) {
    const rule: Rule = {
      on: randomTrigger(rng, space),
      delay: Math.max(limits.minDelay ?? 0, Math.floor(uniform(rng) * 4)),
      changes: [randomChange(rng, space, false)],
    };
    if (limits.each && chance(rng, 0.5)) rule.each = true;
    rules.push(rule);
  }
  return normalize({ timed, rules });
}

/** One random move: a value, a trigger, a delay, a minute; or a change or rule added or removed. */
export function mutatePlay(rng: Rng, space: Space, play: Play, limits: Limits): Play {
  const p = clonePlay(play);
  const moves = 1 + (chance(rng, 0.3) ? 1 : 0);
  for (let k = 0; k < moves; k++) {
    const roll = uniform(rng);
    const allChanges: ControlChange[] = [...p.timed, ...p.rules.flatMap((r) => r.changes)];
    if (roll < 0.35 && allChanges.length > 0) {
      const c = pick(rng, allChanges);
      c.value = nearValue(rng, controlOf(space, c.key), c.value);
    } else if (roll < 0.5 && p.rules.length > 0) {
      const r = pick(rng, p.rules);
      if (limits.each && chance(rng, 0.2)) {
        if (r.each) delete r.each;
        else r.each = true;
      } else r.on = tweakTrigger(rng, space, r.on);
    } else if (roll < 0.6 && p.rules.length > 0) {
      const r = pick(rng, p.rules);
      r.delay = Math.max(
        limits.minDelay ?? 0,
        Math.min(10, r.delay + (chance(rng, 0.5) ? 1 : -1) * (1 + Math.floor(uniform(rng) * 2))),
      );
    } else if (roll < 0.68 && limits.timedAfterStart && p.timed.some((c) => c.minute > 0)) {
      const c = pick(
        rng,
        p.timed.filter((x) => x.minute > 0),
      );
      c.minute = Math.max(1, Math.min(space.minutes, c.minute + Math.round((uniform(rng) - 0.5) * 10)));
    } else if (roll < 0.8) {
      // Add: a timed change, a change to a rule, or a rule.
      const r2 = uniform(rng);
      if (r2 < 0.35 || (limits.maxRules === 0 && !limits.timedAfterStart)) {
        p.timed.push({ minute: 0, ...randomChange(rng, space, true) });
      } else if (r2 < 0.55 && limits.timedAfterStart) {
        p.timed.push({ minute: 1 + Math.floor(uniform(rng) * space.minutes), ...randomChange(rng, space, false) });
      } else if (r2 < 0.75 && p.rules.length > 0) {
        pick(rng, p.rules).changes.push(randomChange(rng, space, false));
      } else if (p.rules.length < limits.maxRules) {
        p.rules.push({
          on: randomTrigger(rng, space),
          delay: limits.minDelay ?? 0,
          changes: [randomChange(rng, space, false)],
        });
      }
    } else {
      // Remove a timed change, a rule's change, or a rule.
      const r2 = uniform(rng);
      if (r2 < 0.4 && p.timed.length > 0) p.timed.splice(Math.floor(uniform(rng) * p.timed.length), 1);
      else if (r2 < 0.7 && p.rules.length > 0) p.rules.splice(Math.floor(uniform(rng) * p.rules.length), 1);
      else if (p.rules.length > 0) {
        const r = pick(rng, p.rules);
        if (r.changes.length > 1) r.changes.splice(Math.floor(uniform(rng) * r.changes.length), 1);
      }
    }
  }
  return normalize(p);
}

/** One change per key and minute (the last wins, as in the engine); no rule without a change; sorted. */
export function normalize(p: Play): Play {
  const timed = new Map<string, ScheduledChange>();
  for (const c of p.timed) timed.set(`${c.minute}:${c.key}`, c);
  const rules = p.rules
    .map((r) => {
      const m = new Map<string, ControlChange>();
      for (const c of r.changes) m.set(c.key, c);
      return { ...r, changes: [...m.values()] };
    })
    .filter((r) => r.changes.length > 0);
  return { timed: [...timed.values()].sort((a, b) => a.minute - b.minute), rules };
}

/** A stable text of a play, to recognise one already evaluated. */
export function playKey(p: Play): string {
  return JSON.stringify(p);
}

/** The play without the changes of the controls of `role` (the role's decisions dropped). */
export function withoutRole(model: SimMeta, p: Play, role: string): Play {
  const mine = new Set(model.controls.filter((c) => c.role === role).map((c) => c.key));
  return normalize({
    timed: p.timed.filter((c) => !mine.has(c.key)),
    rules: p.rules.map((r) => ({ ...r, changes: r.changes.filter((c) => !mine.has(c.key)) })),
  });
}

/** The play with every reaction `minutes` later: each rule's delay, and every timed change after minute 0. */
export function delayed(p: Play, minutes: number, last = Number.POSITIVE_INFINITY): Play {
  return {
    timed: p.timed
      .map((c) => (c.minute > 0 ? { ...c, minute: c.minute + minutes } : c))
      .filter((c) => c.minute <= last),
    rules: p.rules.map((r) => ({ ...r, delay: r.delay + minutes })),
  };
}
