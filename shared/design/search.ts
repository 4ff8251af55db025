// Searching plays, as an adversary would: random plays then hill-climbing (adaptive plays), and
// coordinate descent over full postures — every control, each on its whole grid, corners included —
// with many restarts (fixed plays, one role's setting), alone or with one reaction (two-time plays).
// Seeded and pure. The design report uses it over seeds 1–20; the hindsight coach near one team's decisions.
import { rngFromSeed, uniform, type Rng } from '../sim/rng.ts';
import type { ControlChange, ControlValue } from '../sim/types.ts';
import { evaluateStrategy, type Bench, type PlayEval, type Strategy } from './evaluate.ts';
import type { Play, Rule, Trigger } from './play.ts';
import { type ControlSpace, mutatePlay, normalize, playKey, randomPlay, type Limits, type Space } from './space.ts';

export interface Found {
  play: Play;
  eval: PlayEval;
}

/**
 * What "better" means: `score` — the mean score, then the share of seeds won; `wins` — the share of seeds won
 * first, then the mean score (the adversary's objective against a claim that no such play wins).
 */
export type Objective = 'score' | 'wins';

export function better(a: PlayEval, b: PlayEval, objective: Objective = 'score'): boolean {
  const [x, y] = objective === 'wins' ? [a.winRate, b.winRate] : [a.meanScore, b.meanScore];
  if (x !== y) return x > y;
  const [u, v] = objective === 'wins' ? [a.meanScore, b.meanScore] : [a.winRate, b.winRate];
  if (u !== v) return u > v;
  // Ties (a flat score, as in the dead zone around doing nothing): less money lost is better.
  return logLedger(a) < logLedger(b);
}

/** Mean log of the money lost over the seeds (the score's own scale, without its dead zone). */
function logLedger(e: PlayEval): number {
  let sum = 0;
  for (const r of e.perSeed) sum += Math.log(Math.max(r.ledger, 1e-9));
  return sum / Math.max(1, e.perSeed.length);
}

/**
 * Every play evaluated on one bench, by its text, so that no play is run twice; counts what it ran. With `team`,
 * every play plays alongside that team of role policies (the roles it has seats for).
 */
export class Evaluator {
  readonly seen = new Map<string, Found>();
  /** Plays run (not answered from `seen`). */
  runs = 0;
  constructor(
    readonly bench: Bench,
    readonly team?: Strategy['team'],
  ) {}

  evaluate(p: Play): Found {
    const play = normalize(p);
    const key = playKey(play);
    const known = this.seen.get(key);
    if (known) return known;
    this.runs++;
    const f = { play, eval: evaluateStrategy(this.bench, this.team ? { play, team: this.team } : { play }) };
    this.seen.set(key, f);
    return f;
  }
}

/** Every play the search evaluated, by its text (so no play is evaluated twice). */
export type Seen = Map<string, Found>;

export interface SearchOptions {
  limits: Limits;
  /** Plays evaluated in all (random phase and climbs). */
  budget: number;
  /** Share of the budget spent on random plays before climbing. */
  randomShare?: number;
  /** Climbs, each from one of the best plays found so far. */
  climbs?: number;
  /** Plays to start from (evaluated first, kept as climb starts if they are among the best). */
  starts?: readonly Play[];
  seed?: number;
  objective?: Objective;
  /** Receives every play of the random phase (a sample of the plays a class might try). */
  sample?: Found[];
}

/** Random search plus hill-climbing within `limits`; returns the best play and (in `seen`) every play tried. */
export function searchPlays(bench: Bench, space: Space, opts: SearchOptions, seen: Seen = new Map()): Found {
  const ev = new Evaluator(bench);
  for (const [k, f] of seen) ev.seen.set(k, f);
  const found = climbPlays(ev, space, opts);
  for (const [k, f] of ev.seen) seen.set(k, f);
  return found;
}

/** `searchPlays` on an evaluator: its budget counts the plays this search runs. */
export function climbPlays(ev: Evaluator, space: Space, opts: SearchOptions): Found {
  const rng: Rng = rngFromSeed(opts.seed ?? 1);
  const objective = opts.objective ?? 'score';
  const start = ev.runs;
  const spent = () => ev.runs - start;
  const pool: Found[] = [];
  for (const s of opts.starts ?? []) pool.push(ev.evaluate(s));
  pool.push(ev.evaluate({ timed: [], rules: [] }));
  const randomBudget = Math.floor(opts.budget * (opts.randomShare ?? 0.3));
  for (let i = 0; i < randomBudget * 4 && spent() < randomBudget; i++) {
    const f = ev.evaluate(randomPlay(rng, space, opts.limits));
    pool.push(f);
    opts.sample?.push(f);
  }
  const climbs = opts.climbs ?? 4;
  const starts = [...new Map(pool.map((f) => [playKey(f.play), f])).values()]
    .sort((a, b) => (better(a.eval, b.eval, objective) ? -1 : better(b.eval, a.eval, objective) ? 1 : 0))
    .slice(0, climbs);
  let best = starts[0];
  for (let c = 0; c < starts.length; c++) {
    let cur = starts[c];
    const stop = spent() + Math.floor((opts.budget - spent()) / (starts.length - c));
    // Tries stop on a budget of new plays; a cap on attempts ends a climb stuck among known plays.
    for (let tries = 0; spent() < stop && tries < 20 * opts.budget; tries++) {
      const next = ev.evaluate(mutatePlay(rng, space, cur.play, opts.limits));
      if (!better(cur.eval, next.eval, objective)) cur = next;
    }
    if (better(cur.eval, best.eval, objective)) best = cur;
  }
  return best;
}

// ---- Postures: coordinate descent over whole grids ----

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(uniform(rng) * xs.length)];

/** At most this many values of a control are tried in one sweep: every value of a small grid, else a spread. */
const SWEEP_VALUES = 24;

/**
 * The values a sweep tries for a control at `current`: the whole grid when it is small; else both ends, an
 * even spread and the neighbours of the current value (1–3 steps and ±10 %).
 */
export function sweepValues(c: ControlSpace, current: ControlValue | undefined): ControlValue[] {
  const n = c.values.length;
  if (n <= SWEEP_VALUES) return [...c.values];
  const out = new Set<number>();
  for (let k = 0; k < SWEEP_VALUES; k++) out.add(Math.round((k * (n - 1)) / (SWEEP_VALUES - 1)));
  const i = current === undefined ? -1 : c.values.indexOf(current);
  if (i >= 0)
    for (const d of [1, 2, 3, Math.max(4, Math.round(n / 10))]) {
      out.add(Math.max(0, i - d));
      out.add(Math.min(n - 1, i + d));
    }
  return [...out].sort((a, b) => a - b).map((k) => c.values[k]);
}

/** A random value of a control: a corner (its first or last value) one time in five. */
function randomValue(rng: Rng, c: ControlSpace): ControlValue {
  if (uniform(rng) < 0.2) return uniform(rng) < 0.5 ? c.values[0] : c.values[c.values.length - 1];
  return pick(rng, c.values);
}

export interface PostureOptions {
  /** The controls the posture sets (all of them: a full posture). */
  controls: readonly ControlSpace[];
  /** Plays this search may run. */
  budget: number;
  objective: Objective;
  seed: number;
  /** The rest of the play, kept as it is (its timed changes at minute 0 of these controls are replaced). */
  base?: Play;
  /** Postures to start from before the random restarts. */
  starts?: readonly Record<string, ControlValue>[];
}

/** The base play with `posture` set at minute 0 (replacing the base's own minute-0 values of those keys). */
export function withPosture(base: Play, posture: Record<string, ControlValue>): Play {
  const keys = new Set(Object.keys(posture));
  const timed = base.timed.filter((c) => !(c.minute === 0 && keys.has(c.key)));
  for (const [key, value] of Object.entries(posture)) timed.push({ minute: 0, key, value });
  return normalize({ timed, rules: base.rules });
}

/**
 * The best full posture of `controls` on top of `base`: from each start — the given ones, the scenario's own
 * values, then random full postures (corners included) — sweep the controls in a random order, each over its
 * grid, keeping a value when it is better, until a sweep changes nothing; restart while the budget lasts.
 */
export function searchPosture(ev: Evaluator, opts: PostureOptions): Found & { restarts: number } {
  const rng = rngFromSeed(opts.seed);
  const base = opts.base ?? { timed: [], rules: [] };
  const start = ev.runs;
  const spent = () => ev.runs - start;
  const scenarioValue = (c: ControlSpace): ControlValue =>
    ev.bench.scenario.controls?.[c.def.key] ?? ('default' in c.def ? c.def.default : c.values[0]);
  const starts: Record<string, ControlValue>[] = [
    ...(opts.starts ?? []),
    Object.fromEntries(opts.controls.map((c) => [c.def.key, scenarioValue(c)])),
  ];
  let best: Found | null = null;
  let restarts = 0;
  let stale = 0;
  // A restart that runs no new play found nothing new: a small grid is exhausted after a few of them.
  while (spent() < opts.budget && stale < 50) {
    const before = ev.runs;
    const posture = starts[restarts] ?? Object.fromEntries(opts.controls.map((c) => [c.def.key, randomValue(rng, c)]));
    restarts++;
    let cur = ev.evaluate(withPosture(base, posture));
    let moved = true;
    while (moved && spent() < opts.budget) {
      moved = false;
      const order = [...opts.controls].sort(() => uniform(rng) - 0.5);
      for (const c of order) {
        for (const v of sweepValues(c, posture[c.def.key])) {
          if (v === posture[c.def.key]) continue;
          const next = ev.evaluate(withPosture(base, { ...posture, [c.def.key]: v }));
          if (better(next.eval, cur.eval, opts.objective)) {
            cur = next;
            posture[c.def.key] = v;
            moved = true;
          }
          if (spent() >= opts.budget) break;
        }
      }
    }
    if (!best || better(cur.eval, best.eval, opts.objective)) best = cur;
    stale = ev.runs === before ? stale + 1 : 0;
  }
  return { ...(best ?? ev.evaluate(base)), restarts };
}

// ---- Two-time plays: a posture and one reaction ----

export interface TwoTimeOptions {
  space: Space;
  budget: number;
  objective: Objective;
  seed: number;
  /** Postures to build on (the fixed search's best first). */
  postures: readonly Record<string, ControlValue>[];
}

function randomTrigger(rng: Rng, space: Space): Trigger {
  if (space.events.length > 0 && (space.crossings.length === 0 || uniform(rng) < 0.4))
    return { event: pick(rng, space.events) };
  const c = pick(rng, space.crossings);
  return { indicator: c.indicator, op: uniform(rng) < 0.5 ? '<' : '>', value: pick(rng, c.values) };
}

/** Every trigger of the space (events, and each crossing value in both directions). */
function allTriggers(space: Space): Trigger[] {
  const out: Trigger[] = space.events.map((event) => ({ event }));
  for (const c of space.crossings)
    for (const value of c.values) for (const op of ['<', '>'] as const) out.push({ indicator: c.indicator, op, value });
  return out;
}

function ruleOf(p: Play): Rule {
  return p.rules[0];
}

/**
 * The best posture plus one rule (fires once): from each of the best postures, random rules; then coordinate
 * descent over the rule's trigger (every event and crossing), its delay (0–8), its changes (a value of every
 * control, a change added or dropped) and the posture's values; restarts from random rules while the
 * budget lasts.
 */
export function searchTwoTime(ev: Evaluator, opts: TwoTimeOptions): Found & { restarts: number } {
  const rng = rngFromSeed(opts.seed);
  const start = ev.runs;
  const spent = () => ev.runs - start;
  const { space } = opts;
  const controls = space.controls;
  const postureControls = controls.filter((c) => c.def.kind !== 'action');
  const triggers = allTriggers(space);
  const randomRule = (): Rule => {
    const n = 1 + Math.floor(uniform(rng) * 3);
    const changes: ControlChange[] = [];
    for (let i = 0; i < n; i++) {
      const c = pick(rng, controls);
      changes.push({ key: c.def.key, value: randomValue(rng, c) });
    }
    return { on: randomTrigger(rng, space), delay: Math.floor(uniform(rng) * 4), changes };
  };
  const postureOf = (p: Play): Record<string, ControlValue> =>
    Object.fromEntries(p.timed.filter((c) => c.minute === 0).map((c) => [c.key, c.value]));
  const make = (posture: Record<string, ControlValue>, rule: Rule): Play =>
    withPosture({ timed: [], rules: [rule] }, posture);
  let best: Found | null = null;
  let restarts = 0;
  let stale = 0;
  while (spent() < opts.budget && stale < 50) {
    const before = ev.runs;
    const posture = { ...(opts.postures[restarts % Math.max(1, opts.postures.length)] ?? {}) };
    restarts++;
    // The best of a few random rules on this posture starts the descent.
    let cur = ev.evaluate(make(posture, randomRule()));
    for (let i = 0; i < 12 && spent() < opts.budget; i++) {
      const f = ev.evaluate(make(posture, randomRule()));
      if (better(f.eval, cur.eval, opts.objective)) cur = f;
    }
    let moved = true;
    while (moved && spent() < opts.budget) {
      moved = false;
      const tryPlay = (p: Play) => {
        const f = ev.evaluate(p);
        if (better(f.eval, cur.eval, opts.objective)) {
          cur = f;
          moved = true;
        }
      };
      // The trigger: a sample of every trigger, and the current one's neighbours.
      const rule = ruleOf(cur.play);
      const cands = [...triggers].sort(() => uniform(rng) - 0.5).slice(0, 40);
      for (const on of cands) if (spent() < opts.budget) tryPlay(make(postureOf(cur.play), { ...rule, on }));
      for (let d = 0; d <= 8 && spent() < opts.budget; d++)
        if (d !== ruleOf(cur.play).delay) tryPlay(make(postureOf(cur.play), { ...ruleOf(cur.play), delay: d }));
      // The rule's changes: each control's values, added or replacing; a change dropped.
      for (const c of [...controls].sort(() => uniform(rng) - 0.5)) {
        const r = ruleOf(cur.play);
        const had = r.changes.find((x) => x.key === c.def.key);
        for (const v of sweepValues(c, had?.value)) {
          if (spent() >= opts.budget) break;
          const changes = [...r.changes.filter((x) => x.key !== c.def.key), { key: c.def.key, value: v }];
          tryPlay(make(postureOf(cur.play), { ...r, changes }));
        }
        if (had && r.changes.length > 1)
          tryPlay(make(postureOf(cur.play), { ...r, changes: r.changes.filter((x) => x.key !== c.def.key) }));
      }
      // The posture, with the rule as it is.
      for (const c of [...postureControls].sort(() => uniform(rng) - 0.5)) {
        const p0 = postureOf(cur.play);
        for (const v of sweepValues(c, p0[c.def.key])) {
          if (spent() >= opts.budget) break;
          if (v !== p0[c.def.key]) tryPlay(make({ ...p0, [c.def.key]: v }, ruleOf(cur.play)));
        }
      }
    }
    if (!best || better(cur.eval, best.eval, opts.objective)) best = cur;
    stale = ev.runs === before ? stale + 1 : 0;
  }
  return { ...(best ?? ev.evaluate({ timed: [], rules: [] })), restarts };
}
