// `npm run design-attack -- --scenario ID`: an independent check of the design report's verdicts, searching
// otherwise than the report does — a genetic search over full postures, coordinate descent on each quarter of
// the seeds alone (a posture that wins a subset), then every reflex to a banner (each event the desk showed,
// each single control change) on the best postures, the best reflexes' postures descended again with the
// reflex in place, and random rules of any trigger. It prints the most wins it found for a posture and for a
// posture with one rule; a designer runs it before calling a scenario done. Seeded: the same options give the
// same search.
import { parseArgs as parseArgv } from 'node:util';
import { evaluatePlay, makeBench, specOf, type Bench, type PlayEval } from '../../shared/design/evaluate.ts';
import { playArgs, runPlay, shellLine, type Play, type Rule } from '../../shared/design/play.ts';
import { better, withPosture } from '../../shared/design/search.ts';
import { buildSpace, type ControlSpace } from '../../shared/design/space.ts';
import { rngFromSeed, uniform, type Rng } from '../../shared/sim/rng.ts';
import { models } from '../../shared/sim/registry.ts';
import type { ControlValue, SimModel } from '../../shared/sim/types.ts';

type Posture = Record<string, ControlValue>;

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(uniform(rng) * xs.length)];

function randomPosture(rng: Rng, controls: readonly ControlSpace[]): Posture {
  const p: Posture = {};
  for (const c of controls) {
    const r = uniform(rng);
    p[c.def.key] = r < 0.1 ? c.values[0] : r < 0.2 ? c.values[c.values.length - 1] : pick(rng, c.values);
  }
  return p;
}

class Judge {
  readonly seen = new Map<string, PlayEval>();
  constructor(readonly bench: Bench) {}
  eval(play: Play): PlayEval {
    const key = JSON.stringify(play);
    let e = this.seen.get(key);
    if (!e) {
      e = evaluatePlay(this.bench, play);
      this.seen.set(key, e);
    }
    return e;
  }
}

/** A genetic search: a population of full postures, the fitter half kept, crossed over and mutated. */
function genetic(j: Judge, controls: readonly ControlSpace[], rng: Rng, size: number, generations: number): Posture[] {
  let pop = Array.from({ length: size }, () => randomPosture(rng, controls));
  const rank = (ps: Posture[]) =>
    ps
      .map((p) => ({ p, e: j.eval(withPosture({ timed: [], rules: [] }, p)) }))
      .sort((a, b) => (better(a.e, b.e, 'wins') ? -1 : better(b.e, a.e, 'wins') ? 1 : 0));
  for (let g = 0; g < generations; g++) {
    const ranked = rank(pop);
    const parents = ranked.slice(0, size / 2).map((x) => x.p);
    const children: Posture[] = [];
    while (children.length < size / 2) {
      const a = pick(rng, parents);
      const b = pick(rng, parents);
      const child: Posture = {};
      for (const c of controls) {
        child[c.def.key] = uniform(rng) < 0.5 ? a[c.def.key] : b[c.def.key];
        if (uniform(rng) < 0.15) child[c.def.key] = pick(rng, c.values);
      }
      children.push(child);
    }
    pop = [...parents, ...children];
  }
  return rank(pop).map((x) => x.p);
}

/** At most 30 of a control's values, evenly spread (both ends kept). */
const spread = (c: ControlSpace): readonly ControlValue[] =>
  c.values.length > 30
    ? c.values.filter((_, k) => k % Math.ceil(c.values.length / 30) === 0 || k === c.values.length - 1)
    : c.values;

/** Coordinate descent for the most wins, from posture `p` under the rules `rules`, every control's values tried. */
function descent(
  j: Judge,
  controls: readonly ControlSpace[],
  p0: Posture,
  rules: Rule[],
  sweeps = 4,
): { p: Posture; e: PlayEval } {
  let p = p0;
  let best = j.eval(withPosture({ timed: [], rules }, p));
  for (let sweep = 0; sweep < sweeps; sweep++) {
    let moved = false;
    for (const c of controls) {
      for (const v of spread(c)) {
        const q = { ...p, [c.def.key]: v };
        const e = j.eval(withPosture({ timed: [], rules }, q));
        if (better(e, best, 'wins')) {
          best = e;
          p = q;
          moved = true;
        }
      }
    }
    if (!moved) break;
  }
  return { p, e: best };
}

/** Coordinate descent for the most wins on a subset of the seeds, from a random posture. */
function descentOn(
  model: SimModel,
  scenario: string,
  seeds: number[],
  controls: readonly ControlSpace[],
  rng: Rng,
): Posture {
  return descent(new Judge(makeBench(model, scenario, seeds)), controls, randomPosture(rng, controls), []).p;
}

export async function attack(modelId: string, scenario: string, seedsN: number, effort: number): Promise<string> {
  const model = Object.values(models).find((m) => m.id === modelId);
  if (!model) throw new Error(`unknown model ${modelId}`);
  const seeds = Array.from({ length: seedsN }, (_, i) => i + 1);
  const bench = makeBench(model, scenario, seeds);
  const j = new Judge(bench);
  const rng = rngFromSeed(4242);
  // The triggers: whatever the desk showed under doing nothing and under random postures.
  const runs = [...bench.nothingRuns];
  const base = buildSpace(model, runs, bench.minutes);
  const controls = base.controls.filter((c) => c.def.kind !== 'action');
  for (let i = 0; i < 6; i++)
    runs.push(
      runPlay(
        model,
        specOf(bench, i % seeds.length),
        withPosture({ timed: [], rules: [] }, randomPosture(rng, controls)),
      ).snapshots,
    );
  const space = buildSpace(model, runs, bench.minutes);

  const fromGenetic = genetic(j, controls, rng, 24, effort);
  const quarter = Math.max(1, Math.floor(seedsN / 4));
  const fromSubsets = [0, 1, 2, 3].map((k) =>
    descentOn(model, scenario, seeds.slice(k * quarter, (k + 1) * quarter), controls, rng),
  );
  const postures = [...fromGenetic.slice(0, 4), ...fromSubsets];
  let bestFixed = {
    play: withPosture({ timed: [], rules: [] }, postures[0]),
    e: j.eval(withPosture({ timed: [], rules: [] }, postures[0])),
  };
  for (const p of postures) {
    const play = withPosture({ timed: [], rules: [] }, p);
    const e = j.eval(play);
    if (better(e, bestFixed.e, 'wins')) bestFixed = { play, e };
  }
  // Every reflex to a banner — each event, each single change at once — on the best postures; then the best
  // reflexes' postures descended again with the reflex in place.
  const reflexes: { p: Posture; rule: Rule; e: PlayEval }[] = [];
  const top = postures.slice(0, 3);
  for (const event of space.events)
    for (const c of space.controls)
      for (const value of c.def.kind === 'action'
        ? c.values
        : spread(c).filter((_, k, xs) => xs.length <= 12 || k % Math.ceil(xs.length / 12) === 0))
        for (const p of top) {
          const rule: Rule = { on: { event }, delay: 0, changes: [{ key: c.def.key, value }] };
          reflexes.push({ p, rule, e: j.eval(withPosture({ timed: [], rules: [rule] }, p)) });
        }
  reflexes.sort((a, b) => (better(a.e, b.e, 'wins') ? -1 : better(b.e, a.e, 'wins') ? 1 : 0));
  let bestTwo = { play: bestFixed.play, e: bestFixed.e };
  for (const x of reflexes.slice(0, 4)) {
    const d = descent(j, controls, x.p, [x.rule], 2);
    const play = withPosture({ timed: [], rules: [x.rule] }, d.p);
    if (better(d.e, bestTwo.e, 'wins')) bestTwo = { play, e: d.e };
  }
  // One random rule of any trigger on each of the best postures.
  const triggers = [
    ...space.events.map((event) => ({ event })),
    ...space.crossings.flatMap((c) =>
      c.values.flatMap((value) => (['<', '>'] as const).map((op) => ({ indicator: c.indicator, op, value }))),
    ),
  ];
  const allControls = space.controls;
  for (const p of postures) {
    for (let k = 0; k < effort * 8; k++) {
      const changes = Array.from({ length: 1 + Math.floor(uniform(rng) * 3) }, () => {
        const c = pick(rng, allControls);
        return { key: c.def.key, value: pick(rng, c.values) };
      });
      const rule: Rule = { on: pick(rng, triggers), delay: Math.floor(uniform(rng) * 6), changes };
      const play = withPosture({ timed: [], rules: [rule] }, p);
      const e = j.eval(play);
      if (better(e, bestTwo.e, 'wins')) bestTwo = { play, e };
    }
  }
  const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
  return [
    `${modelId} / ${scenario}: ${j.seen.size} plays, seeds 1–${seedsN}`,
    `  best posture: wins ${pct(bestFixed.e.winRate)}, score ${bestFixed.e.meanScore.toFixed(1)}   ${shellLine(playArgs(bestFixed.play))}`,
    `  best posture and one rule: wins ${pct(bestTwo.e.winRate)}, score ${bestTwo.e.meanScore.toFixed(1)}   ${shellLine(playArgs(bestTwo.play))}`,
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgv({
    options: {
      model: { type: 'string' },
      scenario: { type: 'string' },
      seeds: { type: 'string' },
      effort: { type: 'string' },
    },
    strict: true,
  });
  const scenario = values.scenario;
  const model = Object.values(models).find((m) => m.scenarios.some((s) => s.id === scenario));
  if (!scenario || !model) {
    console.error('usage: npm run design-attack -- --scenario ID [--seeds N] [--effort N]');
    process.exitCode = 2;
    return;
  }
  console.log(await attack(model.id, scenario, Number(values.seeds ?? 20), Number(values.effort ?? 12)));
}

if (/design-attack\.ts$/.test(process.argv[1] ?? '')) void main();
