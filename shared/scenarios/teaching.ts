// The third depth of a scenario's checks: does it teach? A dry run of a few seconds on a few seeds — doing
// nothing, a team of careful role-policy seats and one of careless ones (shared/policies), and a quick search
// of fixed postures set at minute 0 — read as plain verdicts. The design report (`npm run design-report`) is the
// full version of the same questions. Pure and seeded; it plays the model, so it runs where the engine does.
import { evaluatePlay, evaluateTeam, makeBench, type PlayEval } from '../design/evaluate.ts';
import { EMPTY_PLAY, type Play } from '../design/play.ts';
import { searchPlays } from '../design/search.ts';
import { buildSpace, FIXED } from '../design/space.ts';
import type { ScenarioDef, SimModel } from '../sim/types.ts';
import { withScenario } from './model.ts';

export interface TeachingOptions {
  /** Seeds of the dry run (default 1–5). */
  seeds?: readonly number[];
  /** Fixed postures the search tries (default 40). */
  budget?: number;
}

export interface Verdict {
  /** error: the round does not teach as written (it blocks, like a file error); warning: worth a look; ok. */
  level: 'error' | 'warning' | 'ok';
  /** A stable key for screens and tests, e.g. 'nothing-wins'. */
  key: string;
  message: string;
  /** The goal a verdict is about (goal-free, goal-unmet), for screens that word it themselves. */
  goal?: string;
}

/** What each strategy achieved over the seeds. */
export interface Outcome {
  winRate: number;
  meanScore: number;
  /** Share of seeds on which each goal is met, in the scenario's order. */
  goalRates: number[];
}

export interface TeachingReport {
  seeds: readonly number[];
  nothing: Outcome;
  careful: Outcome;
  careless: Outcome;
  /** The best fixed posture the quick search found, and how it did. */
  posture: Outcome & { play: Play };
  verdicts: Verdict[];
}

const pct = (x: number): string => `${Math.round(x * 100)} %`;
const outcome = (e: PlayEval): Outcome => ({ winRate: e.winRate, meanScore: e.meanScore, goalRates: e.goalRates });

/** The dry run of `def` on `model` (the built-in list may or may not hold it). */
export function checkTeaching(model: SimModel, def: ScenarioDef, opts: TeachingOptions = {}): TeachingReport {
  const seeds = opts.seeds ?? [1, 2, 3, 4, 5];
  const m = withScenario(model, def);
  const bench = makeBench(m, def.id, seeds);
  const nothing = outcome(evaluatePlay(bench, EMPTY_PLAY));
  const careful = outcome(evaluateTeam(bench, 'careful', 1));
  const careless = outcome(evaluateTeam(bench, 'careless', 1));
  const found = searchPlays(bench, buildSpace(m, bench.nothingRuns, bench.minutes), {
    limits: FIXED,
    budget: opts.budget ?? 40,
    seed: 1,
    objective: 'wins',
  });
  const posture = { ...outcome(found.eval), play: found.play };
  return { seeds, nothing, careful, careless, posture, verdicts: verdictsOf(def, nothing, careful, careless, posture) };
}

function verdictsOf(
  def: ScenarioDef,
  nothing: Outcome,
  careful: Outcome,
  careless: Outcome,
  posture: Outcome,
): Verdict[] {
  if (def.goals.length === 0) return [{ level: 'ok', key: 'free', message: 'Free play: no goals to check.' }];
  const out: Verdict[] = [];
  const n = (x: number) => `${pct(x)} of the seeds`;
  if (nothing.winRate === 1)
    out.push({
      level: 'error',
      key: 'nothing-wins',
      message: 'Doing nothing already meets every goal: the round teaches nothing.',
    });
  else if (nothing.winRate > 0)
    out.push({
      level: 'warning',
      key: 'nothing-wins-some',
      message: `Doing nothing meets every goal on ${n(nothing.winRate)}.`,
    });
  if (careful.winRate === 0)
    out.push({
      level: 'warning',
      key: 'careful-never-wins',
      message: 'No team of careful bots can win: the goals may be out of reach for a class too.',
    });
  if (careless.winRate > 0 && careless.winRate >= careful.winRate)
    out.push({
      level: 'warning',
      key: 'careless-as-good',
      message: `Careless bots win as often as careful ones (${pct(careless.winRate)}): reading the desk does not pay.`,
    });
  if (posture.winRate >= 0.5)
    out.push({
      level: 'warning',
      key: 'posture-wins',
      message: `One posture set before minute 1 wins ${n(posture.winRate)}: a team can win without reacting.`,
    });
  def.goals.forEach((g, i) => {
    if (nothing.goalRates[i] === 1 && nothing.winRate < 1)
      out.push({
        level: 'warning',
        key: 'goal-free',
        goal: g.id,
        message: `Goal "${g.id}" is met by doing nothing on every seed: it asks nothing of the team.`,
      });
    if (careful.goalRates[i] === 0 && posture.goalRates[i] === 0)
      out.push({
        level: 'warning',
        key: 'goal-unmet',
        goal: g.id,
        message: `Goal "${g.id}" was met by no bot team and no posture on any seed: it may be out of reach.`,
      });
  });
  if (out.length === 0)
    out.push({
      level: 'ok',
      key: 'teaches',
      message: `Doing nothing loses; careful bots win ${n(careful.winRate)}, careless ones ${n(careless.winRate)}; the best fixed posture wins ${n(posture.winRate)}.`,
    });
  return out;
}
