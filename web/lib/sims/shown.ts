// The scenario a screen shows: a teacher's own (the round's `own`, sent with the room view and the replay) when
// the round plays one, else the built-in by id. Words are text (never HTML); a screen renders them as text.
import type { OwnScenario } from '$shared/protocol/types.ts';
import type { ControlValue, GoalDef } from '$shared/sim/types.ts';
import { getLocale } from '$lib/paraglide/runtime.js';
import { fmtGoal, fmtTarget } from '$lib/format.ts';
import type { Sim } from './types.ts';

type GoalLike = Pick<GoalDef, 'id' | 'indicator' | 'op' | 'target'>;

export interface Shown {
  id: string;
  name: string;
  /** What happens and what the team is asked to do; null when the scenario has no words yet. */
  brief: string | null;
  goals: readonly GoalDef[];
  controls: Readonly<Record<string, ControlValue>>;
  /** A goal's sentence with its target as the desk writes it ("Keep approvals at least 88.5 %"). */
  goalLine(goal: GoalLike): string;
}

export function shownScenario(sim: Sim, id: string, own?: OwnScenario | null): Shown {
  // A goal without its own words reads as its indicator and target ("Approval rate ≥ 88.5 %").
  const plain = (g: GoalLike, display?: Parameters<typeof fmtGoal>[1]) =>
    `${sim.text.indicators[g.indicator]?.() ?? g.indicator} ${display ? fmtGoal(g.op, display, g.target) : g.target}`;
  const line = (g: GoalLike, words: ((target: string) => string) | undefined) => {
    const display = sim.model.indicators.find((i) => i.key === g.indicator)?.display;
    return words ? words(display ? fmtTarget(display, g.target) : String(g.target)) : plain(g, display);
  };
  if (own) {
    const briefs = own.briefs as Record<string, OwnScenario['briefs']['en'] | undefined>;
    const w = briefs[getLocale()] ?? own.briefs.en;
    return {
      id,
      name: w.name,
      brief: w.brief,
      goals: own.goals,
      controls: own.controls ?? {},
      goalLine: (g) => {
        const text = w.goals?.[g.id] ?? own.briefs.en.goals?.[g.id];
        return line(g, text === undefined ? undefined : (target) => text.replaceAll('{target}', target));
      },
    };
  }
  const def = sim.model.scenarios.find((s) => s.id === id);
  const text = sim.text.scenarios[id];
  return {
    id,
    name: text?.name() ?? id,
    brief: text?.brief() ?? null,
    goals: def?.goals ?? [],
    controls: def?.controls ?? {},
    goalLine: (g) => {
      const words = text?.goals[g.id];
      return line(g, words && ((target) => words({ target })));
    },
  };
}
