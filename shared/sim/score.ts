// Goal evaluation and the team score (docs/scoring.md).
import type { GoalDef, GoalResult, RoundResult, ScenarioDef, Snapshot } from './types.ts';

/** Whether a minute counts in a goal's window. A share with nothing under it (fraud rate when nothing is approved) says nothing about the goal. */
const counts = (goal: GoalDef, s: Snapshot): boolean =>
  goal.aggregate !== 'final' && s.minute >= (goal.from ?? 1) && !s.na?.includes(goal.indicator);

/** Minutes in a `worst` goal's stretch (10 unless it says). */
export const WORST_STRETCH = 10;
const stretchOf = (goal: GoalDef): number => (goal.aggregate === 'worst' ? (goal.stretch ?? WORST_STRETCH) : 0);

/**
 * A scenario's goal tallies as one list of numbers, the goals' in order: for a mean or final goal three numbers
 * (sum, n, last); for a worst goal three (the worst stretch so far, n, last) and then its last `stretch` values,
 * a ring. A room keeps one per team and makes the next every minute: one array of unboxed numbers alive with the
 * team's minute, where a tally object per goal was three objects for each scavenge to copy. Added up in the same
 * order every time: a round's every minute and the whole round give the same numbers.
 */
export type GoalTallies = readonly number[];

/** Each goal's first slot in the tallies, and their length. */
function slots(goals: readonly GoalDef[]): { at: number[]; length: number } {
  const at: number[] = [];
  let k = 0;
  for (const g of goals) {
    at.push(k);
    k += 3 + stretchOf(g);
  }
  return { at, length: k };
}

/** The tallies of no minute yet. */
export const noTallies = (goals: readonly GoalDef[]): number[] => new Array<number>(slots(goals).length).fill(0);

/** The mean of a worst goal's ring over its first `n` values (all of them once full). */
function ringMean(t: readonly number[], k: number, w: number, n: number): number {
  const m = Math.min(n, w);
  let sum = 0;
  for (let j = 0; j < m; j++) sum += t[k + 3 + j];
  return sum / m;
}

/** The tallies with one more minute. */
export function tallyGoals(goals: readonly GoalDef[], prev: GoalTallies, s: Snapshot): number[] {
  const next = prev.slice();
  const { at } = slots(goals);
  for (let i = 0; i < goals.length; i++) {
    const g = goals[i];
    const k = at[i];
    const v = s.indicators[g.indicator];
    if (counts(g, s)) {
      const w = stretchOf(g);
      if (w > 0) {
        const n = next[k + 1];
        next[k + 3 + (n % w)] = v;
        // The worst stretch of `w` minutes running (the higher mean for a ≤ goal, the lower for a ≥ goal).
        if (n + 1 >= w) {
          const mean = ringMean(next, k, w, w);
          next[k] = n + 1 === w ? mean : g.op === '<=' ? Math.max(next[k], mean) : Math.min(next[k], mean);
        }
      } else next[k] += v;
      next[k + 1] += 1;
    }
    next[k + 2] = v;
  }
  return next;
}

/** A goal's value from its slots: a mean, the last value, or the worst stretch (a round shorter than one: its mean). */
function valueAt(goal: GoalDef, t: GoalTallies, k: number): number {
  const n = t[k + 1];
  if (goal.aggregate === 'final' || n === 0) return t[k + 2];
  const w = stretchOf(goal);
  if (w === 0) return t[k] / n;
  return n >= w ? t[k] : ringMean(t, k, w, n);
}

/** Each goal's value from the tallies. */
export function talliedValues(goals: readonly GoalDef[], t: GoalTallies): number[] {
  const { at } = slots(goals);
  return goals.map((g, i) => valueAt(g, t, at[i]));
}

/** The tallies over the played minutes (snapshots of minutes 0..M, in order). */
function tallyOver(goals: readonly GoalDef[], snapshots: readonly Snapshot[]): number[] {
  if (snapshots.length === 0) throw new RangeError('no snapshots to evaluate');
  let t = noTallies(goals);
  for (const s of snapshots) t = tallyGoals(goals, t, s);
  return t;
}

/** Value of one goal over the played minutes (snapshots of minutes 0..M, in order). */
export function goalValue(goal: GoalDef, snapshots: readonly Snapshot[]): number {
  return talliedValues([goal], tallyOver([goal], snapshots))[0];
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

/**
 * The references of a round's score (`baselineRun` in engine.ts): doing nothing — the same scenario,
 * seed and minutes with no control change — and a calm hour — free play, same seed and minutes.
 * `total` is the ledger total's indicator key. Only the totals are kept, not the runs' minutes: a round holds
 * its references for as long as it is played, and a team's every minute reads one number of each.
 */
export interface Baseline {
  /** Doing nothing's ledger total at each minute (index = minute). */
  nothing: readonly number[];
  /** The calm hour's ledger total at each minute (index = minute). */
  calm: readonly number[];
  total: string;
}

/**
 * The two score rules (docs/scoring.md says which rounds each applies to). Rule 1, mission first: 1000·s plus
 * MISSION_POINTS for meeting every goal, s clamped to [−1, 1]; kept for the rounds of the retired scenarios,
 * whose stored scores were made with it. Rule 2, money first: the mission is worth at most MISSION_LOG of
 * log-money, less than the 1.5× of money lost that must always decide, and s is not clamped to ±1.
 */
export type ScoreRule = 1 | 2;

/** The rule a scenario's rounds are scored by (rule 2 unless the scenario keeps rule 1). */
export const scoreRuleOf = (scenario: Pick<ScenarioDef, 'scoreRule'>): ScoreRule => scenario.scoreRule ?? 2;

/**
 * Rule 1's points for meeting every goal (each goal is worth an equal share), added only when the team lost
 * less money than doing nothing: more than the best saving's 1000, so the mission comes first.
 */
export const MISSION_POINTS = 1200;

/**
 * Rule 2's mission: meeting every goal counts as losing 1.4× less money (each goal an equal share of ln 1.4).
 * Below ln 1.5, so a play that lost 1.5× the money of another never outscores it, whatever goals it met.
 */
export const MISSION_LOG = Math.log(1.4);

/** The money ratio that always decides under rule 2 (the design report flags any pair that breaks it). */
export const MONEY_DECIDES = 1.5;

/** The ledger totals at a round's last minute: the team's, doing nothing's and the calm hour's. */
export function ledgerTotals(
  snapshots: readonly Snapshot[],
  baseline: Baseline,
): { ledger: number; nothing: number; calm: number } {
  const last = snapshots[snapshots.length - 1];
  if (!last) throw new RangeError('no snapshots to evaluate');
  return ledgerTotalsAt(last, baseline);
}

/** The ledger totals at the minute of `last`. */
function ledgerTotalsAt(last: Snapshot, baseline: Baseline): { ledger: number; nothing: number; calm: number } {
  const nothing = baseline.nothing[last.minute];
  const calm = baseline.calm[last.minute];
  if (nothing === undefined || calm === undefined) throw new RangeError(`the baseline has no minute ${last.minute}`);
  return { ledger: last.indicators[baseline.total], nothing, calm };
}

/**
 * Savings this close to doing nothing are doing nothing: collapsing on a smaller server bill is no saving,
 * and goals earn mission points only on top of a real saving.
 */
export const DEAD_ZONE = 0.05;

/** Rule 2's bound on s: far beyond any play (a ledger e^(10D) from doing nothing's), so nothing ties there. */
export const SAVING_BOUND = 10;

/** The log scale's span D = max(ln(L0 / Lc), ln 2): a calm hour's saving is 1. */
export function savingSpan(nothing: number, calm: number): number {
  return Math.max(Math.log(nothing / calm), Math.LN2);
}

/**
 * The saving s against doing nothing, on a log scale: s = ln(L0 / L) / D, D = max(ln(L0 / Lc), ln 2), 0
 * within ±DEAD_ZONE, clamped to [−1, 1] (rule 1) or [−SAVING_BOUND, SAVING_BOUND] (rule 2). Doing nothing is
 * 0, losing more money is below 0, running the shift as cheaply as a calm hour is 1; each halving of the
 * money lost is worth the same. Before anything is lost (minute 0) s = 0.
 */
export function saving(ledger: number, nothing: number, calm: number, rule: ScoreRule = 1): number {
  const bound = rule === 1 ? 1 : SAVING_BOUND;
  if (!(nothing > 0)) return ledger > nothing ? -bound : 0;
  if (!(ledger > 0)) return bound;
  const s = Math.max(-bound, Math.min(bound, Math.log(nothing / ledger) / savingSpan(nothing, calm)));
  return Math.abs(s) < DEAD_ZONE ? 0 : s;
}

/**
 * The dead zone in money at a minute: a ledger within [L0 − save, L0 + lose] scores s = 0 — what a
 * saving must reach to count now (`save`), and what losing more than doing nothing must reach to count
 * against (`lose`). Both grow with the scale D = max(ln(L0 / Lc), ln 2).
 */
export function deadZoneMoney(nothing: number, calm: number): { save: number; lose: number } {
  if (!(nothing > 0) || !(calm > 0)) return { save: 0, lose: 0 };
  const span = savingSpan(nothing, calm);
  return { save: nothing * (1 - Math.exp(-DEAD_ZONE * span)), lose: nothing * (Math.exp(DEAD_ZONE * span) - 1) };
}

/**
 * Rule 1: 1000·s + (s > 0 ? MISSION_POINTS × goals met / goals : 0). Rule 2: 1000·(s + (s > 0 ?
 * MISSION_LOG × goals met / goals / D : 0)), D the saving's span. Rounded to one decimal.
 */
export function teamScore(goals: readonly GoalResult[], s: number, rule: ScoreRule = 1, span = 1): number {
  const met = goals.filter((g) => g.met).length;
  const share = s > 0 && goals.length > 0 ? met / goals.length : 0;
  const mission = rule === 1 ? MISSION_POINTS * share : (1000 * MISSION_LOG * share) / span;
  return Math.round((1000 * s + mission) * 10) / 10;
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
  const last = snapshots[snapshots.length - 1];
  if (!last) throw new RangeError('no snapshots to evaluate');
  const values = talliedValues(scenario.goals, tallyOver(scenario.goals, snapshots));
  return scored(
    scenario,
    scenario.goals.map((g, i) => goalResult(g, values[i])),
    last,
    baseline,
  );
}

/** evaluateRound from the goals' tallies (GoalTallies) and the last minute played. */
export function evaluateTallies(
  scenario: ScenarioDef,
  tallies: GoalTallies,
  last: Snapshot,
  baseline?: Baseline,
): RoundResult {
  const values = talliedValues(scenario.goals, tallies);
  return scored(
    scenario,
    scenario.goals.map((g, i) => goalResult(g, values[i])),
    last,
    baseline,
  );
}

function scored(
  scenario: ScenarioDef,
  goals: GoalResult[],
  last: Snapshot,
  baseline: Baseline | undefined,
): RoundResult {
  if (goals.length === 0) return { goals, score: null };
  if (!baseline) return { goals, score: goalsOnlyScore(goals) };
  const t = ledgerTotalsAt(last, baseline);
  const rule = scoreRuleOf(scenario);
  const s = saving(t.ledger, t.nothing, t.calm, rule);
  return { goals, score: teamScore(goals, s, rule, savingSpan(t.nothing, t.calm)) };
}
