// Goal evaluation and the team score (docs/scoring.md).
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
    // A share with nothing under it (fraud rate when nothing is approved) says nothing about the goal.
    if (s.na?.includes(goal.indicator)) continue;
    sum += s.indicators[goal.indicator];
    n++;
  }
  // A round ended before the window opened (or a share never had anything under it): the last minute seen.
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

/**
 * The reference round for the score: the same scenario, seed and minutes with no control change
 * (`baselineRun` in engine.ts), and the ledger total's indicator key.
 */
export interface Baseline {
  snapshots: readonly Snapshot[];
  total: string;
}

/** Points per goal met, added only when the team lost less money than doing nothing. */
export const GOAL_BONUS = 100;

/** The ledger total of a round at its last minute, and the baseline's at the same minute. */
export function ledgerTotals(snapshots: readonly Snapshot[], baseline: Baseline): { ledger: number; reference: number } {
  const last = snapshots[snapshots.length - 1];
  if (!last) throw new RangeError('no snapshots to evaluate');
  const ref = baseline.snapshots[Math.min(last.minute, baseline.snapshots.length - 1)];
  if (!ref || ref.minute !== last.minute) throw new RangeError(`the baseline has no minute ${last.minute}`);
  return { ledger: last.indicators[baseline.total], reference: ref.indicators[baseline.total] };
}

/**
 * Saving s = (L0 − L) / L0 against doing nothing, clamped to [−1, 1]: 0 for doing nothing, below 0
 * for any play that lost more money. Nothing lost yet on either side (minute 0) is 0.
 */
export function saving(ledger: number, reference: number): number {
  if (!(reference > 0)) return ledger > reference ? -1 : 0;
  return Math.max(-1, Math.min(1, (reference - ledger) / reference));
}

/** score = 1000·s + (s > 0 ? GOAL_BONUS × goals met : 0), rounded to one decimal. */
export function teamScore(goals: readonly GoalResult[], s: number): number {
  const met = goals.filter((g) => g.met).length;
  return Math.round((1000 * s + (s > 0 ? GOAL_BONUS * met : 0)) * 10) / 10;
}

/** Relative margin by which a goal is met (positive) or missed (negative), clamped to [−1, 1]. */
export function goalMargin(g: GoalResult): number {
  const scale = Math.abs(g.target) > 0 ? Math.abs(g.target) : 1;
  const m = g.op === '>=' ? (g.value - g.target) / scale : (g.target - g.value) / scale;
  return Math.max(-1, Math.min(1, m));
}

/**
 * The score of a round evaluated without a baseline (the server until it passes one): 1000 per goal
 * met plus 100 × the summed margins. It can reward a collapse; docs/scoring.md keeps it only as the
 * interim fallback.
 */
export function goalsOnlyScore(goals: readonly GoalResult[]): number {
  const met = goals.filter((g) => g.met).length;
  const margin = goals.reduce((s, g) => s + goalMargin(g), 0);
  return Math.round((1000 * met + 100 * margin) * 10) / 10;
}

/**
 * Goal verdicts and the team score over the minutes played. With a baseline the score is the ledger
 * score above; without one, the goals-only fallback. Free play (no goals) has no score.
 */
export function evaluateRound(scenario: ScenarioDef, snapshots: readonly Snapshot[], baseline?: Baseline): RoundResult {
  const goals = scenario.goals.map((g) => evaluateGoal(g, snapshots));
  if (goals.length === 0) return { goals, score: null };
  if (!baseline) return { goals, score: goalsOnlyScore(goals) };
  const { ledger, reference } = ledgerTotals(snapshots, baseline);
  return { goals, score: teamScore(goals, saving(ledger, reference)) };
}
