// Key moments of a finished round, found automatically for the debrief: the scenario's happenings and
// the model's own events (a retry storm starts, the burn-rate page fires, servers finish booting…), and
// the minute each goal was lost for good.
import type { GoalDef, IndicatorDef, SimMeta, Snapshot } from '../sim/types.ts';
import { indicatorDef } from '../sim/engine.ts';
import { meets, noTallies, talliedValues, tallyGoals, WORST_STRETCH } from '../sim/score.ts';
import { bounds } from './units.ts';

export interface Chapter {
  minute: number;
  /** A model event kind ('page', 'servers-ready', …) or 'goal-lost'. */
  kind: string;
  /** For 'goal-lost': the goal id. */
  goal?: string;
  /** The event's own fields (e.g. count: how many servers became ready; group: which issuers). */
  count?: number;
  group?: string;
  [field: string]: string | number | boolean | undefined;
}

/** Events that are not chapters: control changes are shown as markers of their own. */
const NOT_CHAPTERS = new Set(['control']);

/**
 * The first minute after which a goal cannot be met whatever happens next, or null. Final goals on a
 * cumulative indicator are lost once the value has crossed the target the wrong way; mean goals once
 * even the best possible value in every remaining minute could not bring the average back; worst goals at the
 * end of the first stretch of minutes that misses.
 */
export function goalLostAt(
  goal: GoalDef,
  def: IndicatorDef,
  snapshots: readonly Snapshot[],
  lastMinute: number,
): number | null {
  if (goal.aggregate === 'final') {
    const irreversible = (goal.op === '<=' && def.trend === 'rising') || (goal.op === '>=' && def.trend === 'falling');
    if (!irreversible) return null;
    for (const s of snapshots) {
      if (!meets(goal, s.indicators[goal.indicator])) return s.minute;
    }
    return null;
  }
  if (goal.aggregate === 'worst') {
    let t = noTallies([goal]);
    for (const s of snapshots) {
      t = tallyGoals([goal], t, s);
      // t[1]: the minutes counted so far.
      if (t[1] >= (goal.stretch ?? WORST_STRETCH) && !meets(goal, talliedValues([goal], t)[0])) return s.minute;
    }
    return null;
  }
  const from = goal.from ?? 1;
  const [lo, hi] = bounds(def);
  const best = goal.op === '>=' ? hi : lo;
  if (!Number.isFinite(best)) return null;
  const total = lastMinute - from + 1;
  let sum = 0;
  let n = 0;
  for (const s of snapshots) {
    if (s.minute < from) continue;
    sum += s.indicators[goal.indicator];
    n++;
    const mean = (sum + best * (total - n)) / total;
    if (!meets(goal, mean)) return s.minute;
  }
  return null;
}

export function findChapters(model: SimMeta, scenario: string, snapshots: readonly Snapshot[]): Chapter[] {
  const out: Chapter[] = [];
  for (const s of snapshots) {
    for (const e of s.events) {
      if (NOT_CHAPTERS.has(e.kind)) continue;
      out.push({ ...e, minute: s.minute, kind: e.kind });
    }
  }
  const def = model.scenarios.find((x) => x.id === scenario);
  const last = snapshots[snapshots.length - 1]?.minute ?? 0;
  for (const g of def?.goals ?? []) {
    const ind = indicatorDef(model, g.indicator);
    const at = goalLostAt(g, ind, snapshots, last);
    if (at !== null) out.push({ minute: at, kind: 'goal-lost', goal: g.id });
  }
  return out.sort((a, b) => a.minute - b.minute);
}
