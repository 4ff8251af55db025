// Goal evaluation and the leaderboard score (docs/scoring.md).
import type { GoalDef, GoalResult, RoundResult, ScenarioDef, Snapshot } from './types.ts';

/**
 * One goal's running state over snapshots taken in order: the sum and count of the minutes in its window and
 * the last minute's value. A round in progress adds its new minute to the previous tally (O(1)) instead of
 * going over every minute again; the sum is added up in the same order, so the value is the same number.
 */
export interface GoalTally {
  readonly sum: number;
  readonly n: number;
  readonly last: number;
}

/** The tally with one more minute (`prev` null: the first). */
export function tallyGoal(goal: GoalDef, prev: GoalTally | null, s: Snapshot): GoalTally {
  const v = s.indicators[goal.indicator];
  const counted = goal.aggregate !== 'final' && s.minute >= (goal.from ?? 1);
  const sum = prev?.sum ?? 0;
  const n = prev?.n ?? 0;
  return counted ? { sum: sum + v, n: n + 1, last: v } : { sum, n, last: v };
}

/** Value of one goal from its tally. */
export function talliedValue(goal: GoalDef, t: GoalTally): number {
  if (goal.aggregate === 'final') return t.last;
  // A round ended before the window opened: judge the last minute seen.
  return t.n > 0 ? t.sum / t.n : t.last;
}

/** Value of one goal over the played minutes (snapshots of minutes 0..M, in order). */
export function goalValue(goal: GoalDef, snapshots: readonly Snapshot[]): number {
  if (snapshots.length === 0) throw new RangeError('no snapshots to evaluate');
  let t: GoalTally | null = null;
  for (const s of snapshots) t = tallyGoal(goal, t, s);
  return talliedValue(goal, t!);
}

/** Whether a value is on the right side of a goal's target (the target included). */
export function meets(goal: Pick<GoalDef, 'op' | 'target'>, value: number): boolean {
  return goal.op === '>=' ? value >= goal.target : value <= goal.target;
}

function goalResult(goal: GoalDef, value: number): GoalResult {
  return { id: goal.id, indicator: goal.indicator, op: goal.op, value, target: goal.target, met: meets(goal, value) };
}

export function evaluateGoal(goal: GoalDef, snapshots: readonly Snapshot[]): GoalResult {
  return goalResult(goal, goalValue(goal, snapshots));
}

/** Relative margin by which a goal is met (positive) or missed (negative), clamped to [−1, 1]. */
export function goalMargin(g: GoalResult): number {
  const scale = Math.abs(g.target) > 0 ? Math.abs(g.target) : 1;
  const m = g.op === '>=' ? (g.value - g.target) / scale : (g.target - g.value) / scale;
  return Math.max(-1, Math.min(1, m));
}

/**
 * Team score: 1000 per goal met, plus 100 × the summed relative margins (each clamped to ±1), rounded
 * to one decimal. Goals met always come first: the margin part lies within ±100 per goal (< 1000).
 */
export function teamScore(goals: readonly GoalResult[]): number | null {
  if (goals.length === 0) return null;
  const met = goals.filter((g) => g.met).length;
  const margin = goals.reduce((s, g) => s + goalMargin(g), 0);
  return Math.round((1000 * met + 100 * margin) * 10) / 10;
}

export function evaluateRound(scenario: ScenarioDef, snapshots: readonly Snapshot[]): RoundResult {
  const goals = scenario.goals.map((g) => evaluateGoal(g, snapshots));
  return { goals, score: teamScore(goals) };
}

/** evaluateRound from each goal's tally (in the scenario's order of goals). */
export function evaluateTallies(scenario: ScenarioDef, tallies: readonly GoalTally[]): RoundResult {
  const goals = scenario.goals.map((g, i) => goalResult(g, talliedValue(g, tallies[i])));
  return { goals, score: teamScore(goals) };
}
