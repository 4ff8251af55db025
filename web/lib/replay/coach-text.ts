// The hindsight coach's suggestion in words: what to change ("Press Roll back at minute 11 instead of
// 14"), what it would have done ("would have met “Error budget remaining ≥ 20 %”") and its figures
// (goals, score and money lost, before → after).
import type { Suggestion } from '$shared/protocol/types.ts';
import type { ControlValue, GoalDef } from '$shared/sim/types.ts';
import { m } from '$lib/paraglide/messages.js';
import { fmtControl, fmtInt, fmtTarget } from '$lib/format.ts';
import { fmtMoney } from '$lib/sims/money.ts';
import type { Sim } from '$lib/sims/types.ts';

/** The change itself. `old`: the value the team chose at that minute (for a changed value). */
export function suggestionText(sim: Sim, s: Suggestion, old: ControlValue | null): string {
  const def = sim.model.controls.find((c) => c.key === s.key);
  const control = sim.text.controls[s.key]?.label() ?? s.key;
  const press = !def || def.kind === 'action';
  const value = def ? fmtControl(def, s.value, sim.text) : String(s.value);
  const from = fmtInt(s.fromMinute ?? 0);
  const to = fmtInt(s.toMinute ?? 0);
  switch (s.kind) {
    case 'earlier':
    case 'later':
      return press ? m.coach_moved_press({ control, to, from }) : m.coach_moved_set({ control, value, to, from });
    case 'drop':
      return press ? m.coach_drop_press({ control, from }) : m.coach_drop_set({ control, value, from });
    case 'add':
      return press ? m.coach_add_press({ control, to }) : m.coach_add_set({ control, value, to });
    case 'value':
      return m.coach_value({ control, value, old: def && old !== null ? fmtControl(def, old, sim.text) : '', from });
  }
}

/** What it would have done: the goals it meets that the team missed, or the points it gains. */
export function effectText(sim: Sim, scenario: string, s: Suggestion): string {
  const goals = sim.model.scenarios.find((x) => x.id === scenario)?.goals ?? [];
  const named = s.goalsNowMet.map((id) =>
    goalName(
      sim,
      scenario,
      goals.find((g) => g.id === id),
      id,
    ),
  );
  const points = signed(Math.round((s.after.score ?? 0) - (s.before.score ?? 0)));
  return named.length > 0
    ? m.coach_effect_goals({ goals: named.join(', '), points })
    : m.coach_effect_score({ points });
}

/** The figures before → after. */
export function figuresText(sim: Sim, s: Suggestion): string {
  return m.coach_figures({
    met: fmtInt(s.before.goalsMet),
    metAfter: fmtInt(s.after.goalsMet),
    goals: fmtInt(s.after.goals),
    score: s.before.score === null ? m.score_none() : fmtInt(s.before.score),
    scoreAfter: s.after.score === null ? m.score_none() : fmtInt(s.after.score),
    lost: fmtMoney(sim, s.before.ledgerTotal),
    lostAfter: fmtMoney(sim, s.after.ledgerTotal),
  });
}

function goalName(sim: Sim, scenario: string, goal: GoalDef | undefined, id: string): string {
  const ind = goal ? sim.model.indicators.find((i) => i.key === goal.indicator) : undefined;
  const sentence =
    goal && ind
      ? sim.text.scenarios[scenario]?.goals[id]?.({ target: fmtTarget(ind.display, goal.target) })
      : undefined;
  return m.coach_goal_quoted({ goal: sentence ?? id });
}

const signed = (n: number) => (n > 0 ? `+${fmtInt(n)}` : fmtInt(n));
