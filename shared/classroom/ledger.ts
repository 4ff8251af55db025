// The team's ledger against the round's references (docs/scoring.md), from the references' per-minute
// totals: what the server sends with every minute, and what a replay recomputes at any minute.
import type { BaselineSeries, LedgerFigures } from '../protocol/types.ts';
import {
  evaluateGoal,
  saving,
  savingSpan,
  scoreRuleOf,
  teamScore,
  type Baseline,
  type ScoreRule,
} from '../sim/score.ts';
import type { RoundResult, ScenarioDef, Snapshot } from '../sim/types.ts';

/** A baseline's totals by minute, as they travel (`TeamHistory.baseline`, `ReplayTeam.baseline`). */
export function baselineSeries(b: Baseline): BaselineSeries {
  return { total: [...b.nothing], calm: [...b.calm] };
}

/** The team's ledger at `s.minute` against doing nothing and a calm hour at the same minute (s by `rule`). */
export function ledgerAt(s: Snapshot, totalKey: string, series: BaselineSeries, rule: ScoreRule = 1): LedgerFigures {
  const baseline = series.total[s.minute];
  const calm = series.calm[s.minute];
  if (baseline === undefined || calm === undefined) throw new RangeError(`the baseline has no minute ${s.minute}`);
  const total = s.indicators[totalKey];
  return { total, baseline, calm, saving: saving(total, baseline, calm, rule) };
}

/** `evaluateRound` with the baseline given as its totals by minute (the same numbers, the same score). */
export function evaluateWithSeries(
  scenario: Pick<ScenarioDef, 'goals' | 'scoreRule'>,
  snapshots: readonly Snapshot[],
  series: BaselineSeries,
  totalKey: string,
): RoundResult & { ledger: LedgerFigures } {
  const last = snapshots[snapshots.length - 1];
  if (!last) throw new RangeError('no snapshots to evaluate');
  const goals = scenario.goals.map((g) => evaluateGoal(g, snapshots));
  const rule = scoreRuleOf(scenario);
  const ledger = ledgerAt(last, totalKey, series, rule);
  const span = savingSpan(ledger.baseline, ledger.calm);
  return { goals, score: goals.length === 0 ? null : teamScore(goals, ledger.saving, rule, span), ledger };
}
