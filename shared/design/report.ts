// The design report of one scenario (docs/exercise-design.md): what the best fixed, adaptive and
// two-time plays achieve over the seeds, what each role's decisions are worth, how late a team can
// react, how much the seed decides, and the open-loop oracle per seed. Pure and seeded.
import { evaluatePlay, makeBench, seedShare, summarize, type Bench, type PlayEval } from './evaluate.ts';
import { runPlay, type Play } from './play.ts';
import { searchPlays, type Found, type Seen } from './search.ts';
import { ADAPTIVE, buildSpace, delayed, FIXED, ORACLE, withoutRole, type Limits } from './space.ts';
import type { SimModel } from '../sim/types.ts';

export interface ReportOptions {
  seeds: readonly number[];
  /** Plays evaluated by the fixed and the adaptive search (the two-time search gets half). */
  budget: number;
  /** Plays evaluated per seed by the oracle. */
  oracleBudget: number;
  documented?: Play;
}

export interface PlayFigures {
  winRate: number;
  meanScore: number;
  /** Share of seeds on which each goal is met, in the scenario's order. */
  goalRates: number[];
}

export interface ScenarioReport {
  model: string;
  scenario: string;
  goals: string[];
  kind: string;
  /** Whether the contract's targets apply (full-shift and web-service scenarios). */
  targeted: boolean;
  nothing: PlayFigures;
  fixed: PlayFigures & { play: Play };
  adaptive: PlayFigures & { play: Play };
  /** The best play with decisions at no more than two times (the opening and one reaction). */
  twoTimes: PlayFigures;
  /** The best adaptive play with every reaction 3 minutes later. */
  late: PlayFigures;
  documented?: PlayFigures & { late: PlayFigures };
  oracle: PlayFigures;
  /** Score lost when a role's decisions are dropped from the best adaptive play, as a share of its score. */
  roles: { role: string; meanScore: number; worth: number }[];
  /** Distinct minutes at which the best adaptive play changes controls (median over seeds). */
  decisionTimes: number;
  /** Share of score variance the seed explains among the top quarter of the plays tried. */
  seedShare: number;
  plays: number;
  checks: { id: string; ok: boolean; value: string; target: string }[];
}

const figures = (e: PlayEval): PlayFigures => ({ winRate: e.winRate, meanScore: e.meanScore, goalRates: e.goalRates });

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/** The oracle: per seed, the best open-loop schedule near what the best play did on that seed. */
function oracle(bench: Bench, space: ReturnType<typeof buildSpace>, best: Play, budget: number): PlayEval {
  const perSeed = bench.seeds.map((seed, i) => {
    const one: Bench = {
      ...bench,
      seeds: [seed],
      baselines: [bench.baselines[i]],
      nothingRuns: [bench.nothingRuns[i]],
    };
    const { applied } = runPlay(
      bench.model,
      { scenario: bench.scenario.id, seed, noise: bench.noise, minutes: bench.minutes },
      best,
    );
    const start: Play = { timed: applied, rules: [] };
    const found = searchPlays(one, space, {
      limits: ORACLE,
      budget,
      randomShare: 0.1,
      climbs: 1,
      starts: [start],
      seed: 1000 + seed,
    });
    return found.eval.perSeed[0];
  });
  return summarize(perSeed);
}

export function scenarioReport(model: SimModel, scenarioId: string, opts: ReportOptions): ScenarioReport {
  const bench = makeBench(model, scenarioId, opts.seeds);
  const def = bench.scenario;
  const targeted = def.kind === 'full-shift' || (model.id === 'web-service' && def.kind !== 'free');
  // The space: what the desk showed in the baselines and, for thresholds, under the documented play.
  const runs = [...bench.nothingRuns];
  if (opts.documented)
    for (const seed of opts.seeds.slice(0, 5))
      runs.push(
        runPlay(model, { scenario: scenarioId, seed, noise: true, minutes: bench.minutes }, opts.documented).snapshots,
      );
  const space = buildSpace(model, runs, bench.minutes);

  const seen: Seen = new Map();
  const starts = opts.documented ? [opts.documented] : [];
  const sample: Found[] = [];
  const run = (limits: Limits, budget: number, seed: number, from: readonly Play[] = []) =>
    searchPlays(bench, space, { limits, budget, seed, starts: from, sample }, seen);
  const fixed = run(FIXED, Math.round(opts.budget / 2), 11);
  // The documented play seeds the adaptive search (it is one of the plays a team might find).
  const adaptive = run(ADAPTIVE, opts.budget, 12, [...starts, fixed.play]);
  const twoTimes = run({ maxRules: 1, timedAfterStart: false }, Math.round(opts.budget / 2), 13, [fixed.play]);
  // The plays a class might try: the random phases' plays and the best of each search.
  sample.push(fixed, adaptive, twoTimes);

  const nothing = evaluatePlay(bench, { timed: [], rules: [] });
  const late = evaluatePlay(bench, delayed(adaptive.play, 3));
  const roles = model.roles.map((r) => {
    const e = evaluatePlay(bench, withoutRole(model, adaptive.play, r.id));
    return {
      role: r.id,
      meanScore: e.meanScore,
      worth: adaptive.eval.meanScore > 0 ? (adaptive.eval.meanScore - e.meanScore) / adaptive.eval.meanScore : 0,
    };
  });
  const times = bench.seeds.map((seed) => {
    const { applied } = runPlay(
      model,
      { scenario: scenarioId, seed, noise: true, minutes: bench.minutes },
      adaptive.play,
    );
    return new Set(applied.map((c) => c.minute)).size;
  });
  const top = [...sample]
    .sort((a, b) => b.eval.meanScore - a.eval.meanScore)
    .slice(0, Math.max(2, Math.ceil(sample.length / 4)));
  const share = seedShare(top.map((f) => f.eval.perSeed.map((r) => r.score)));
  const documented = opts.documented
    ? {
        ...figures(evaluatePlay(bench, opts.documented)),
        late: figures(evaluatePlay(bench, delayed(opts.documented, 3))),
      }
    : undefined;
  const orc = oracle(bench, space, adaptive.play, opts.oracleBudget);

  const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
  const checks: ScenarioReport['checks'] = [
    { id: 'fixed-wins', ok: fixed.eval.winRate <= 0.2, value: pct(fixed.eval.winRate), target: '≤ 20 %' },
    {
      id: 'fixed-score',
      ok: fixed.eval.meanScore <= 0.8 * adaptive.eval.meanScore,
      value: adaptive.eval.meanScore > 0 ? pct(fixed.eval.meanScore / adaptive.eval.meanScore) : '—',
      target: '≤ 80 % of adaptive',
    },
    {
      id: 'every-role',
      ok: roles.every((r) => r.worth >= 0.1),
      value: roles.map((r) => `${r.role} ${pct(r.worth)}`).join(', '),
      target: 'each ≥ 10 %',
    },
    { id: 'two-times', ok: twoTimes.eval.winRate <= 0.2, value: pct(twoTimes.eval.winRate), target: '≤ 20 % wins' },
    {
      id: 'late-3-min',
      ok: (documented?.late.winRate ?? late.winRate) >= 0.9,
      value: pct(documented?.late.winRate ?? late.winRate),
      target: '≥ 90 % wins',
    },
    { id: 'seed-share', ok: share <= 0.2, value: pct(share), target: '≤ 20 %' },
    { id: 'nothing-loses', ok: nothing.winRate <= 0.05, value: pct(1 - nothing.winRate), target: '≥ 95 % lost' },
    {
      id: 'documented-wins',
      ok: (documented?.winRate ?? 0) >= 0.9,
      value: documented ? pct(documented.winRate) : '—',
      target: '≥ 90 %',
    },
  ];
  return {
    model: model.id,
    scenario: scenarioId,
    goals: def.goals.map((g) => g.id),
    kind: def.kind,
    targeted,
    nothing: figures(nothing),
    fixed: { ...figures(fixed.eval), play: fixed.play },
    adaptive: { ...figures(adaptive.eval), play: adaptive.play },
    twoTimes: figures(twoTimes.eval),
    late: figures(late),
    documented,
    oracle: figures(orc),
    roles,
    decisionTimes: median(times),
    seedShare: share,
    plays: seen.size,
    checks,
  };
}
