// The dry run's verdicts in the reader's language: each verdict's key and the report's figures (the shared
// code words them in English for the CLI).
import type { TeachingReport, Verdict } from '$shared/scenarios/teaching.ts';
import { m } from '$lib/paraglide/messages.js';
import { fmtInt } from '$lib/format.ts';

const pct = (x: number) => `${fmtInt(Math.round(x * 100))} %`;

export function verdictText(v: Verdict, r: TeachingReport): string {
  switch (v.key) {
    case 'free':
      return m.editor_v_free();
    case 'nothing-wins':
      return m.editor_v_nothing_wins();
    case 'nothing-wins-some':
      return m.editor_v_nothing_wins_some({ share: pct(r.nothing.winRate) });
    case 'careful-never-wins':
      return m.editor_v_careful_never_wins();
    case 'careless-as-good':
      return m.editor_v_careless_as_good({ share: pct(r.careless.winRate) });
    case 'posture-wins':
      return m.editor_v_posture_wins({ share: pct(r.posture.winRate) });
    case 'goal-free':
      return m.editor_v_goal_free({ goal: v.goal ?? '' });
    case 'goal-unmet':
      return m.editor_v_goal_unmet({ goal: v.goal ?? '' });
    case 'teaches':
      return m.editor_v_teaches({
        careful: pct(r.careful.winRate),
        careless: pct(r.careless.winRate),
        posture: pct(r.posture.winRate),
      });
    default:
      return v.message;
  }
}
