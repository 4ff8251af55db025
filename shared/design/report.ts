// The design report of one scenario (docs/exercise-design.md), searched as an adversary would: the best
// full posture (wins first), the best posture plus one reaction, the best adaptive play; each role's set-once
// replacement and its decision windows; lateness; the role-policy teams; the score's ends and any goal
// bought with money. Every search runs at the budget and again at twice it: a verdict that flips is not
// settled. Pure and seeded.
import { saving, scoreRuleOf, MONEY_DECIDES, SAVING_BOUND } from '../sim/score.ts';
import type { ControlValue, SimModel } from '../sim/types.ts';
import { playTeam, teamOf } from '../policies/team.ts';
import type { Skill } from '../policies/types.ts';
import {
  evaluatePlay,
  evaluateSeed,
  evaluateTeam,
  makeBench,
  seedShare,
  seatsOf,
  specOf,
  summarize,
  type Bench,
  type PlayEval,
  type Strategy,
} from './evaluate.ts';
import { EMPTY_PLAY, runPlay, type Play } from './play.ts';
import { climbPlays, Evaluator, searchPosture, searchTwoTime, withPosture, type Found } from './search.ts';
import { ADAPTIVE, buildSpace, delayed, withoutRole, type ControlSpace, type Space } from './space.ts';

export interface ReportOptions {
  seeds: readonly number[];
  /** The budget B: plays run by the fixed, the two-time and the adaptive search each (set-once: B/4 a role). */
  budget: number;
  documented?: Play;
  /** Also run every search at twice the budget and say which verdicts flip (default true). */
  convergence?: boolean;
}

export interface PlayFigures {
  winRate: number;
  meanScore: number;
  /** Share of seeds on which each goal is met, in the scenario's order. */
  goalRates: number[];
}

export interface RoleFigures {
  role: string;
  /** The role's decisions dropped (its controls stay at the scenario's): score lost, as a share of the best. */
  worth: number;
  /** The role's best minute-0 setting in place of its decisions (the setting searched for the most wins). */
  setOnce: PlayFigures & { setting: Record<string, ControlValue>; loss: number };
  /** The same, searched for the best score: its loss (the smallest found). */
  setOnceMinLoss: number;
  /** 5-minute windows in which the role freezing its controls costs ≥ 2 % of the best play's score: the median over seeds, the lowest seed, and on the mean. */
  windows: { median: number; min: number; onMean: number; perWindow: number[] };
}

export interface TeamFigures {
  skill: Skill;
  delay: number;
  winRate: number;
  meanScore: number;
}

export interface Check {
  id: string;
  ok: boolean;
  value: string;
  target: string;
}

/** One run of the searches at one budget. */
export interface SearchRun {
  budget: number;
  /** Plays run, by search. */
  plays: { fixed: number; twoTimes: number; adaptive: number; setOnce: number; total: number };
  restarts: { fixed: number; twoTimes: number };
  fixed: PlayFigures & { play: Play };
  /** The fixed play with the highest mean score (it may win on fewer seeds). */
  fixedBestScore: PlayFigures & { play: Play };
  twoTimes: PlayFigures & { play: Play };
  adaptive: PlayFigures & { play: Play };
  /** What the roles, late and the ceiling are measured on: the best adaptive play, or the careful team at delay 0 when it scores more. */
  best: 'adaptive play' | 'careful team';
  bestScore: number;
  /** The best adaptive strategy, every reaction 3 minutes later. */
  late: PlayFigures;
  roles: RoleFigures[];
  /** Decision times of the best adaptive play (distinct minutes of change, median over seeds). */
  decisionTimes: number;
  seedShare: number;
  buy: BuyCheck;
  ceiling: { atCeiling: number };
  checks: Check[];
}

export interface BuyCheck {
  /** Pairs on a seed (plays × plays) where the play that lost ≥ 1.5× the money scores higher. */
  flagged: number;
  /** Plays compared, seeds. */
  plays: number;
  example?: { seed: number; more: { ledger: number; score: number }; less: { ledger: number; score: number } };
}

export interface FloorCheck {
  /** Corner postures evaluated (every control at an end of its range). */
  corners: number;
  lowest: number;
  /** Corner pairs on a seed, ≥ 1.5× apart in money, that score the same: a plateau. */
  plateaus: number;
  atFloor: number;
}

export interface ScenarioReport {
  model: string;
  scenario: string;
  goals: string[];
  kind: string;
  /** Whether the targets apply (full shifts and web-service scenarios). */
  targeted: boolean;
  seeds: number;
  nothing: PlayFigures;
  documented?: PlayFigures & { late: PlayFigures };
  teams: TeamFigures[];
  floor: FloorCheck;
  /** The run of record (at twice the budget when convergence is on) and the run at the budget. */
  run: SearchRun;
  half?: SearchRun;
  /** Checks whose verdict differs between the two runs. */
  unsettled: string[];
  checks: Check[];
}

const figures = (e: PlayEval): PlayFigures => ({ winRate: e.winRate, meanScore: e.meanScore, goalRates: e.goalRates });
const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
/** A loss of the best play's score, signed: a gain reads +. */
const lossPct = (x: number) => (x >= 0 ? `−${pct(x)}` : `+${pct(-x)}`);

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return 0;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/** Each control's values (numbers, switches and options; buttons have no posture). */
function postureControls(space: Space, keys?: ReadonlySet<string>): ControlSpace[] {
  return space.controls.filter((c) => c.def.kind !== 'action' && (!keys || keys.has(c.def.key)));
}

/** The team settings the report measures: careful at every delay, late and careless at one minute. */
export const TEAMS: readonly { skill: Skill; delay: number }[] = [
  { skill: 'careful', delay: 0 },
  { skill: 'careful', delay: 1 },
  { skill: 'careful', delay: 2 },
  { skill: 'careful', delay: 3 },
  { skill: 'late', delay: 1 },
  { skill: 'careless', delay: 1 },
];

/**
 * Decision windows of one role in a play: for each 5-minute window [w, w + 5) the role's changes due then wait
 * until w + 5 (the others play on); a window counts on a seed when that costs ≥ 2 % of the play's score there.
 */
function windowsOf(bench: Bench, best: Strategy, base: PlayEval, keys: ReadonlySet<string>): RoleFigures['windows'] {
  const starts: number[] = [];
  for (let w = 0; w < bench.minutes; w += 5) starts.push(w);
  const counts = bench.seeds.map(() => 0);
  const perWindow: number[] = [];
  let onMean = 0;
  for (const w of starts) {
    const frozen = bench.seeds.map((seed, i) => evaluateSeed(bench, best, i, seed, { keys, from: w, to: w + 5 }));
    frozen.forEach((f, i) => {
      const b = base.perSeed[i].score;
      if (b > 0 && (b - f.score) / b >= 0.02) counts[i]++;
    });
    const cost = base.meanScore > 0 ? (base.meanScore - summarize(frozen).meanScore) / base.meanScore : 0;
    perWindow.push(cost);
    if (cost >= 0.02) onMean++;
  }
  return { median: median(counts), min: Math.min(...counts), onMean, perWindow };
}

/** Pairs of plays on a seed where the one that lost ≥ 1.5× the money scores higher. */
export function buyCheck(bench: Bench, plays: readonly PlayEval[]): BuyCheck {
  let flagged = 0;
  let example: BuyCheck['example'];
  bench.seeds.forEach((seed, i) => {
    const rows = plays.map((p) => p.perSeed[i]).sort((a, b) => a.ledger - b.ledger);
    // Best score among plays from index k on (those that lost at least as much).
    const suffixMax: number[] = new Array(rows.length + 1).fill(Number.NEGATIVE_INFINITY);
    const suffixArg: number[] = new Array(rows.length + 1).fill(-1);
    for (let k = rows.length - 1; k >= 0; k--) {
      const better = rows[k].score > suffixMax[k + 1];
      suffixMax[k] = better ? rows[k].score : suffixMax[k + 1];
      suffixArg[k] = better ? k : suffixArg[k + 1];
    }
    let j = 0;
    for (let k = 0; k < rows.length; k++) {
      const limit = MONEY_DECIDES * rows[k].ledger;
      if (j < k) j = k;
      while (j < rows.length && rows[j].ledger < limit) j++;
      if (j < rows.length && suffixMax[j] > rows[k].score) {
        flagged++;
        const more = rows[suffixArg[j]];
        example ??= {
          seed,
          more: { ledger: more.ledger, score: more.score },
          less: { ledger: rows[k].ledger, score: rows[k].score },
        };
      }
    }
  });
  return { flagged, plays: plays.length, ...(example ? { example } : {}) };
}

/** Every control at an end of its range: how low the score goes, and whether money still orders it there. */
function floorCheck(ev: Evaluator, space: Space): FloorCheck {
  const controls = postureControls(space);
  const ends = controls.map((c) => [c.values[0], c.values[c.values.length - 1]] as const);
  const corners: PlayEval[] = [];
  for (let mask = 0; mask < 1 << controls.length; mask++) {
    const posture: Record<string, ControlValue> = {};
    controls.forEach((c, k) => {
      posture[c.def.key] = ends[k][(mask >> k) & 1];
    });
    corners.push(ev.evaluate(withPosture({ timed: [], rules: [] }, posture)).eval);
  }
  let plateaus = 0;
  let atFloor = 0;
  let lowest = Number.POSITIVE_INFINITY;
  const bench = ev.bench;
  const rule = scoreRuleOf(bench.scenario);
  const floor = rule === 1 ? -1000 : -1000 * SAVING_BOUND;
  bench.seeds.forEach((_, i) => {
    const rows = corners.map((c) => c.perSeed[i]);
    for (const r of rows) {
      lowest = Math.min(lowest, r.score);
      if (r.score <= floor) atFloor++;
    }
    for (const a of rows)
      for (const b of rows)
        if (a.ledger >= MONEY_DECIDES * b.ledger && Math.abs(a.score - b.score) < 0.05 && a.score < 0) plateaus++;
  });
  return { corners: corners.length, lowest, plateaus, atFloor };
}

/** Distinct minutes at which a strategy changes controls on each seed, median. */
function decisionTimes(bench: Bench, s: Strategy): number {
  return median(
    bench.seeds.map(
      (seed, i) =>
        new Set(
          runPlay(bench.model, specOf(bench, i), s.play, { seats: seatsOf(bench, s, seed) }).applied.map(
            (c) => c.minute,
          ),
        ).size,
    ),
  );
}

function searchRun(bench: Bench, space: Space, budget: number, documented: Play | undefined, salt: number): SearchRun {
  const ev = new Evaluator(bench);
  const model = bench.model;
  const runs = () => ev.runs;
  const all = postureControls(space);

  // Fixed: full postures, the most wins first; and the best score (a posture may score more and win less).
  let r0 = runs();
  const fixed = searchPosture(ev, {
    controls: all,
    budget: Math.round(0.6 * budget),
    objective: 'wins',
    seed: 11 + salt,
  });
  const fixedScore = searchPosture(ev, {
    controls: all,
    budget: Math.round(0.4 * budget),
    objective: 'score',
    seed: 17 + salt,
    starts: [postureOf(fixed.play)],
  });
  const fixedPlays = runs() - r0;

  // Two-time: a posture and one reaction, the most wins first.
  r0 = runs();
  const twoTimes = searchTwoTime(ev, {
    space,
    budget,
    objective: 'wins',
    seed: 13 + salt,
    postures: [postureOf(fixed.play), postureOf(fixedScore.play)],
  });
  const twoPlays = runs() - r0;

  // Adaptive: from the documented play and the best of the others, the best mean score.
  r0 = runs();
  const adaptive = climbPlays(ev, space, {
    limits: ADAPTIVE,
    budget,
    seed: 12 + salt,
    starts: [...(documented ? [documented] : []), fixedScore.play, twoTimes.play],
    climbs: 4,
  });
  const adaptivePlays = runs() - r0;

  // The best adaptive strategy: the search's play, or the careful team reacting at once if it scores more.
  const careful0 = evaluateTeam(bench, 'careful', 0);
  const teamBest = careful0.meanScore > adaptive.eval.meanScore;
  const best: Strategy = teamBest
    ? { play: EMPTY_PLAY, team: { skill: 'careful', delay: 0 } }
    : { play: adaptive.play };
  const bestEval = teamBest ? careful0 : adaptive.eval;

  // Each role: its decisions dropped, replaced by its best minute-0 setting, and frozen 5 minutes at a time.
  r0 = runs();
  let setOnceRuns = 0;
  const roles: RoleFigures[] = model.roles.map((role, k) => {
    const keys = new Set(role.controls);
    // The role's seat leaves the team, or its changes leave the play; others play on.
    const roleEv = teamBest ? new Evaluator(bench, { skill: 'careful', delay: 0, without: role.id }) : ev;
    const without = teamBest ? EMPTY_PLAY : withoutRole(model, adaptive.play, role.id);
    const before = roleEv.runs;
    const dropped = roleEv.evaluate(without).eval;
    const own = postureControls(space, keys);
    const top = bestEval.meanScore;
    const loss = (e: PlayEval) => (top > 0 ? (top - e.meanScore) / top : 0);
    let setOnce: Found = { play: without, eval: dropped };
    let minLoss = loss(dropped);
    if (own.length > 0) {
      const per = Math.max(20, Math.round(budget / 8));
      setOnce = searchPosture(roleEv, {
        controls: own,
        budget: per,
        objective: 'wins',
        seed: 31 + k + salt,
        base: without,
      });
      const byScore = searchPosture(roleEv, {
        controls: own,
        budget: per,
        objective: 'score',
        seed: 37 + k + salt,
        base: without,
        starts: [postureOf(setOnce.play, keys)],
      });
      minLoss = Math.min(loss(setOnce.eval), loss(byScore.eval));
    }
    if (roleEv !== ev) setOnceRuns += roleEv.runs - before;
    return {
      role: role.id,
      worth: loss(dropped),
      setOnce: { ...figures(setOnce.eval), setting: postureOf(setOnce.play, keys), loss: loss(setOnce.eval) },
      setOnceMinLoss: minLoss,
      windows: windowsOf(bench, best, bestEval, keys),
    };
  });
  const setOncePlays = runs() - r0 + setOnceRuns;

  const late = teamBest
    ? evaluateTeam(bench, 'careful', 3)
    : evaluatePlay(bench, delayed(adaptive.play, 3, bench.minutes));
  // The plays a class might try: the best quarter of everything the searches ran.
  const tried = [...ev.seen.values()];
  const top = [...tried]
    .sort((a, b) => b.eval.meanScore - a.eval.meanScore)
    .slice(0, Math.max(2, Math.ceil(tried.length / 4)));
  const share = seedShare(top.map((f) => f.eval.perSeed.map((r) => r.score)));
  const buy = buyCheck(
    bench,
    tried.map((f) => f.eval),
  );
  const rule = scoreRuleOf(bench.scenario);
  const atCeiling =
    bestEval.perSeed.filter((r, i) => {
      const b = bench.baselines[i];
      const m = bench.minutes;
      return Math.abs(saving(r.ledger, b.nothing[m], b.calm[m], rule)) >= (rule === 1 ? 1 : SAVING_BOUND);
    }).length / bench.seeds.length;

  const run: SearchRun = {
    budget,
    plays: {
      fixed: fixedPlays,
      twoTimes: twoPlays,
      adaptive: adaptivePlays,
      setOnce: setOncePlays,
      total: ev.runs + setOnceRuns,
    },
    restarts: { fixed: fixed.restarts + fixedScore.restarts, twoTimes: twoTimes.restarts },
    fixed: { ...figures(fixed.eval), play: fixed.play },
    fixedBestScore: { ...figures(fixedScore.eval), play: fixedScore.play },
    twoTimes: { ...figures(twoTimes.eval), play: twoTimes.play },
    adaptive: { ...figures(adaptive.eval), play: adaptive.play },
    best: teamBest ? 'careful team' : 'adaptive play',
    bestScore: bestEval.meanScore,
    late: figures(late),
    roles,
    decisionTimes: decisionTimes(bench, best),
    seedShare: share,
    buy,
    ceiling: { atCeiling },
    checks: [],
  };
  run.checks = runChecks(run);
  return run;
}

/** The posture a play sets at minute 0 (of `keys` only, when given). */
function postureOf(p: Play, keys?: ReadonlySet<string>): Record<string, ControlValue> {
  return Object.fromEntries(
    p.timed.filter((c) => c.minute === 0 && (!keys || keys.has(c.key))).map((c) => [c.key, c.value]),
  );
}

/** The search's checks (targets of docs/exercise-design.md). */
function runChecks(r: SearchRun): Check[] {
  const fixedScore = Math.max(r.fixed.meanScore, r.fixedBestScore.meanScore);
  const best = r.bestScore;
  return [
    { id: 'fixed-wins', ok: r.fixed.winRate <= 0.2, value: pct(r.fixed.winRate), target: '≤ 20 %' },
    {
      id: 'fixed-score',
      ok: best > 0 && fixedScore <= 0.8 * best,
      value: best > 0 ? pct(fixedScore / best) : '—',
      target: '≤ 80 % of adaptive',
    },
    { id: 'two-times', ok: r.twoTimes.winRate <= 0.2, value: pct(r.twoTimes.winRate), target: '≤ 20 % wins' },
    {
      id: 'set-once',
      ok: r.roles.every((x) => x.setOnceMinLoss >= 0.1 && x.setOnce.winRate <= 0.5),
      value: r.roles.map((x) => `${x.role} ${lossPct(x.setOnceMinLoss)}/${pct(x.setOnce.winRate)} won`).join(', '),
      target: 'each loses ≥ 10 %, wins ≤ 50 %',
    },
    {
      id: 'windows',
      ok: r.roles.every((x) => x.windows.median >= 4),
      value: r.roles.map((x) => `${x.role} ${x.windows.median}`).join(', '),
      target: 'each role ≥ 4 (median over seeds)',
    },
    {
      id: 'late-best',
      ok: r.late.winRate >= 0.5,
      value: pct(r.late.winRate),
      target: '≥ 50 % wins 3 min late',
    },
    {
      id: 'buy-check',
      ok: r.buy.flagged === 0,
      value: `${r.buy.flagged} pairs`,
      target: 'no play that lost ≥ 1.5× the money scores higher',
    },
    {
      id: 'ceiling',
      ok: r.ceiling.atCeiling <= 0.1,
      value: `${pct(r.ceiling.atCeiling)} at the bound`,
      target: 'best play below the ceiling on ≥ 90 %',
    },
  ];
}

export function scenarioReport(model: SimModel, scenarioId: string, opts: ReportOptions): ScenarioReport {
  const bench = makeBench(model, scenarioId, opts.seeds);
  const def = bench.scenario;
  const targeted = def.kind === 'full-shift' || (model.id === 'web-service' && def.kind !== 'free');
  // The space: what the desk showed in the baselines and, for thresholds, under the documented play and a
  // careful team.
  const runs = [...bench.nothingRuns];
  for (const [i, seed] of opts.seeds.slice(0, 5).entries()) {
    if (opts.documented) runs.push(runPlay(model, specOf(bench, i), opts.documented).snapshots);
    runs.push(playTeam(model, specOf(bench, i), teamOf(model, 'careful', 1, seed)).snapshots);
  }
  const space = buildSpace(model, runs, bench.minutes);

  const nothing = evaluatePlay(bench, { timed: [], rules: [] });
  const documented = opts.documented
    ? {
        ...figures(evaluatePlay(bench, opts.documented)),
        late: figures(evaluatePlay(bench, delayed(opts.documented, 3, bench.minutes))),
      }
    : undefined;
  const teams = TEAMS.map((t) => ({ ...t, ...figures(evaluateTeam(bench, t.skill, t.delay)) }));
  const floor = floorCheck(new Evaluator(bench), space);

  const converge = opts.convergence ?? true;
  const half = converge ? searchRun(bench, space, opts.budget, opts.documented, 0) : undefined;
  const run = searchRun(bench, space, converge ? 2 * opts.budget : opts.budget, opts.documented, converge ? 100 : 0);
  const team = (skill: Skill, delay: number) => teams.find((t) => t.skill === skill && t.delay === delay);
  const careful1 = team('careful', 1)?.winRate ?? 0;
  const careful3 = team('careful', 3)?.winRate ?? 0;
  const careless = team('careless', 1)?.winRate ?? 1;
  const fixedChecks: Check[] = [
    { id: 'nothing-loses', ok: nothing.winRate <= 0.05, value: pct(1 - nothing.winRate), target: '≥ 95 % lost' },
    {
      id: 'documented-wins',
      ok: (documented?.winRate ?? 0) >= 0.9,
      value: documented ? pct(documented.winRate) : '—',
      target: '≥ 90 %',
    },
    {
      id: 'late-documented',
      ok: (documented?.late.winRate ?? 0) >= 0.6,
      value: documented ? pct(documented.late.winRate) : '—',
      target: '≥ 60 % wins 3 min late',
    },
    {
      id: 'teams',
      ok: careful1 >= 0.8 && careful3 >= 0.6 && careless <= 0.2,
      value: `careful@1 ${pct(careful1)}, careful@3 ${pct(careful3)}, careless ${pct(careless)}`,
      target: 'careful@1 ≥ 80 %, careful@3 ≥ 60 %, careless ≤ 20 %',
    },
    {
      id: 'floor',
      ok: floor.plateaus === 0 && floor.atFloor === 0,
      value: `lowest ${floor.lowest.toFixed(0)}, ${floor.plateaus} ties ≥ 1.5× apart`,
      target: 'the score keeps falling with the money lost',
    },
  ];
  const unsettled = half
    ? run.checks.filter((c) => half.checks.find((h) => h.id === c.id)?.ok !== c.ok).map((c) => c.id)
    : [];
  const checks: Check[] = [
    ...fixedChecks,
    ...run.checks,
    {
      id: 'converged',
      ok: unsettled.length === 0,
      value: unsettled.length === 0 ? 'settled' : `flips: ${unsettled.join(', ')}`,
      target: 'no verdict flips at twice the budget',
    },
  ];
  return {
    model: model.id,
    scenario: scenarioId,
    goals: def.goals.map((g) => g.id),
    kind: def.kind,
    targeted,
    seeds: opts.seeds.length,
    nothing: figures(nothing),
    ...(documented ? { documented } : {}),
    teams,
    floor,
    run,
    ...(half ? { half } : {}),
    unsettled,
    checks,
  };
}
