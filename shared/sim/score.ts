// Goal evaluation and the leaderboard score (docs/scoring.md).
import type { GoalDef, GoalResult, RoundResult, ScenarioDef, Snapshot } from './types.ts';

/** Value of one goal over the played minutes (snapshots of minutes 0..M, in order). */
export function goalValue(goal: GoalDef, snapshots: readonly Snapshot[]): number {
  const last = snapshots[snapshots.length - 1];
  if (!last) throw new RangeError('no snapshots to evaluate');
  if (goal.aggregate === 'final') return last.indicators[goal.indicator];
  const from = goal.from ?? 1;
  let sum = 0;
  let n = 0;
  for (const s of snapshots) {
    if (s.minute < from) continue;
    sum += s.indicators[goal.indicator];
    n++;
  }
  // A round ended before the window opened: judge the last minute seen.
  return n > 0 ? sum / n : last.indicators[goal.indicator];
}

/** Whether a value is on the right side of a goal's target (the target included). */
export function meets(goal: Pick<GoalDef, 'op' | 'target'>, value: number): boolean {
  return goal.op === '>=' ? value >= goal.target : value <= goal.target;
}

export function evaluateGoal(goal: GoalDef, snapshots: readonly Snapshot[]): GoalResult {
  const value = goalValue(goal, snapshots);
  const met = meets(goal, value);
  return { id: goal.id, indicator: goal.indicator, op: goal.op, value, target: goal.target, met };
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
