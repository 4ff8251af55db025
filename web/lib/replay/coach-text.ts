// The hindsight coach's suggestion in words: what to change ("Press Roll back at minute 11 instead of
// 14") and for how long ("until minute 41, when your own 3.0 σ applies"), what it would have done
// ("would have met “Error budget remaining ≥ 20 %”", with the money it costs when it costs some) and
// its figures (goals, score and money lost, before → after).
import type { Suggestion } from '$shared/protocol/types.ts';
import type { ControlValue } from '$shared/sim/types.ts';
import { m } from '$lib/paraglide/messages.js';
import { fmtControl, fmtInt } from '$lib/format.ts';
import { fmtMoney } from '$lib/sims/money.ts';
import type { Shown } from '$lib/sims/shown.ts';
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

/**
 * How long the suggested setting lasts: until the team's own next change of that control ("until minute
 * 41, when your own 3.0 σ applies"), or to the end of the round; null for a press or a change left out.
 */
export function durationText(sim: Sim, s: Suggestion): string | null {
  const def = sim.model.controls.find((c) => c.key === s.key);
  if (!def || def.kind === 'action' || s.kind === 'drop' || s.toMinute === null) return null;
  if (s.until === null) return m.coach_until_end();
  const next = s.changes.filter((c) => c.key === s.key && c.minute === s.until).at(-1);
  return next
    ? m.coach_until({ until: fmtInt(s.until), value: fmtControl(def, next.value, sim.text) })
    : m.coach_until_minute({ until: fmtInt(s.until) });
}

/**
 * What it would have done: the goals it meets that the team missed — with the money it costs, when it
 * loses more than the team did — or the points it gains; and the goals it would have missed instead.
 */
export function effectText(sim: Sim, scenario: Shown, s: Suggestion): string {
  const names = (ids: readonly string[]) =>
    ids
      .map((id) => {
        const goal = scenario.goals.find((g) => g.id === id);
        return m.coach_goal_quoted({ goal: goal ? scenario.goalLine(goal) : id });
      })
      .join(', ');
  const points = signed(Math.round((s.after.score ?? 0) - (s.before.score ?? 0)));
  const more = s.after.ledgerTotal - s.before.ledgerTotal;
  const costs = fmtMoney(sim, more) !== fmtMoney(sim, 0) && more > 0;
  const effect =
    s.goalsNowMet.length === 0
      ? m.coach_effect_score({ points })
      : costs
        ? m.coach_effect_goals_cost({ goals: names(s.goalsNowMet), more: fmtMoney(sim, more), points })
        : m.coach_effect_goals({ goals: names(s.goalsNowMet), points });
  return (s.goalsNowMissed ?? []).length > 0
    ? `${effect} ${m.coach_also_missed({ goals: names(s.goalsNowMissed) })}`
    : effect;
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

const signed = (n: number) => (n > 0 ? `+${fmtInt(n)}` : fmtInt(n));
