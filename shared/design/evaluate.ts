// Evaluating plays: a play's score on each seed against that seed's doing-nothing baseline.
// Small and pure, so the design report and the hindsight coach share them.
import { baselineWithRun, scenarioDef } from '../sim/engine.ts';
import { evaluateRound, type Baseline } from '../sim/score.ts';
import type { ScenarioDef, SimModel, Snapshot } from '../sim/types.ts';
import { EMPTY_PLAY, runPlay, type Hold, type Play } from './play.ts';
import { teamOf } from '../policies/team.ts';
import type { Seat, Skill } from '../policies/types.ts';

/** One scenario over a fixed set of seeds, with every seed's baseline computed once. */
export interface Bench {
  model: SimModel;
  scenario: ScenarioDef;
  seeds: readonly number[];
  minutes: number;
  noise: boolean;
  baselines: readonly Baseline[];
  /** Each seed's minutes of doing nothing, the baseline's run. */
  nothingRuns: readonly (readonly Snapshot[])[];
}

export function makeBench(model: SimModel, scenario: string, seeds: readonly number[], noise = true): Bench {
  const def = scenarioDef(model, scenario);
  const minutes = def.minutes ?? model.defaultMinutes;
  const runs = seeds.map((seed) => baselineWithRun(model, scenario, seed, minutes, noise));
  return {
    model,
    scenario: def,
    seeds,
    minutes,
    noise,
    baselines: runs.map((r) => r.baseline),
    nothingRuns: runs.map((r) => r.run),
  };
}

export interface SeedResult {
  score: number;
  /** Every goal met. */
  won: boolean;
  /** Each goal's verdict, in the scenario's order. */
  met: boolean[];
  ledger: number;
}

export interface PlayEval {
  perSeed: SeedResult[];
  meanScore: number;
  winRate: number;
  /** Share of seeds on which each goal is met. */
  goalRates: number[];
}

/** The round spec of seed `i` of the bench. */
export function specOf(bench: Bench, i: number) {
  return { scenario: bench.scenario.id, seed: bench.seeds[i], noise: bench.noise, minutes: bench.minutes };
}

/** A play on one seed of the bench (index into `bench.seeds`); `hold` freezes some controls for a while. */
export function evaluateOn(bench: Bench, play: Play, i: number, hold?: Hold): SeedResult {
  const { snapshots } = runPlay(bench.model, specOf(bench, i), play, hold ? { hold } : {});
  return resultOf(bench, snapshots, i);
}

/** The verdicts, score and ledger of a run's minutes on seed `i` of the bench. */
export function resultOf(bench: Bench, snapshots: readonly Snapshot[], i: number): SeedResult {
  const r = evaluateRound(bench.scenario, snapshots, bench.baselines[i]);
  const last = snapshots[snapshots.length - 1];
  const met = r.goals.map((g) => g.met);
  return {
    score: r.score ?? 0,
    won: met.length > 0 && met.every(Boolean),
    met,
    ledger: last.indicators[bench.baselines[i].total],
  };
}

/** A play over every seed of the bench. */
export function evaluatePlay(bench: Bench, play: Play): PlayEval {
  const perSeed = bench.seeds.map((_, i) => evaluateOn(bench, play, i));
  return summarize(perSeed);
}

export function summarize(perSeed: SeedResult[]): PlayEval {
  const n = perSeed.length;
  const goals = perSeed[0]?.met.length ?? 0;
  return {
    perSeed,
    meanScore: perSeed.reduce((s, r) => s + r.score, 0) / n,
    winRate: perSeed.filter((r) => r.won).length / n,
    goalRates: Array.from({ length: goals }, (_, g) => perSeed.filter((r) => r.met[g]).length / n),
  };
}

/**
 * Share of the score variance the seed explains among a set of plays (rows) over the same seeds
 * (columns): the seed's sum of squares in the two-way layout, SS_seed / SS_total. 0 when the scores do
 * not vary at all.
 */
export function seedShare(rows: readonly (readonly number[])[]): number {
  const p = rows.length;
  const k = rows[0]?.length ?? 0;
  if (p === 0 || k === 0) return 0;
  let grand = 0;
  for (const r of rows) for (const x of r) grand += x;
  grand /= p * k;
  let total = 0;
  for (const r of rows) for (const x of r) total += (x - grand) ** 2;
  let seed = 0;
  for (let j = 0; j < k; j++) {
    let m = 0;
    for (const r of rows) m += r[j];
    seed += p * (m / p - grand) ** 2;
  }
  return total > 0 ? seed / total : 0;
}

/**
 * An adaptive strategy: a play, with (or without) a team of role-policy seats of one skill and delay playing
 * alongside — all roles but `without`, whose controls then only the play changes.
 */
export interface Strategy {
  play: Play;
  team?: { skill: Skill; delay: number; without?: string };
}

/** The seats of a strategy's team on one seed. */
export function seatsOf(bench: Bench, s: Strategy, seed: number): Seat[] {
  if (!s.team) return [];
  return teamOf(bench.model, s.team.skill, s.team.delay, seed).filter((x) => x.role !== s.team?.without);
}

/** A strategy on every seed of the bench; `hold` freezes some controls for a while. */
export function evaluateStrategy(bench: Bench, s: Strategy, hold?: Hold): PlayEval {
  return summarize(bench.seeds.map((seed, i) => evaluateSeed(bench, s, i, seed, hold)));
}

export function evaluateSeed(bench: Bench, s: Strategy, i: number, seed: number, hold?: Hold): SeedResult {
  const { snapshots } = runPlay(bench.model, specOf(bench, i), s.play, {
    seats: seatsOf(bench, s, seed),
    ...(hold ? { hold } : {}),
  });
  return resultOf(bench, snapshots, i);
}

/** A role-policy team on every seed of the bench. */
export function evaluateTeam(bench: Bench, skill: Skill, delay: number): PlayEval {
  return evaluateStrategy(bench, { play: EMPTY_PLAY, team: { skill, delay } });
}
