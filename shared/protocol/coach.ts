// The hindsight coach's answer (`GET /api/rounds/:id/coach`, docs/protocol.md): for each team of a finished
// round, the smallest change to its own decisions that would have met missed goals, or gained the most.
import type { ControlValue, ScheduledChange } from '../sim/types.ts';

/** What a play achieved on the round's seed: goals met of all, the score, the ledger total at its end. */
export interface Outcome {
  goalsMet: number;
  goals: number;
  score: number | null;
  ledgerTotal: number;
}
export const SUGGESTION_KINDS = ['earlier', 'later', 'drop', 'add', 'value'] as const;
export type Unusual = 'swing' | 'costly';
export type SuggestionKind = (typeof SUGGESTION_KINDS)[number];
/**
 * One change to the team's own decisions; its score is always above the team's. `earlier` / `later`: the change of `key` to `value` moved from
 * `fromMinute` to `toMinute`; `drop`: the change at `fromMinute` left out (`toMinute` null); `add`: one more
 * change at `toMinute` (`fromMinute` null); `value`: the change at `fromMinute` with `value` instead
 * (`toMinute` = `fromMinute`). `changes` is the whole suggested play (every recorded change, with this one
 * applied); `forkMinute` the minute to open the what-if at: just before its first difference.
 */
export interface Suggestion {
  kind: SuggestionKind;
  key: string;
  value: ControlValue;
  fromMinute: number | null;
  toMinute: number | null;
  before: Outcome;
  after: Outcome;
  /** Ids of the goals the team missed that the suggestion meets. */
  goalsNowMet: string[];
  /** Ids of the goals the team met that the suggestion misses (the score still rises). */
  goalsNowMissed: string[];
  /**
   * How long the suggested setting lasts: the minute the team's own next change of `key` applies, or
   * null — to the end of the round (and for presses, drops).
   */
  until: number | null;
  /**
   * Only a change few teams would make helped, and why: `swing`, the control at its end for a few
   * minutes only; `costly`, more money lost than the team's (the goal bought). Null: an ordinary change.
   */
  unusual: Unusual | null;
  changes: ScheduledChange[];
  forkMinute: number;
}
export interface CoachTeam {
  teamId: number;
  /** Time the search took (CPU, ms). */
  searchedMs: number;
  /** Plays re-simulated. */
  tried: number;
  /** The smallest change that meets missed goals, else the one that gains the most score; null when none gains. */
  suggestion: Suggestion | null;
}
export interface CoachReport {
  roundId: number;
  teams: CoachTeam[];
}
