// Searching plays: random search, then hill-climbing from the best few (seeded, pure). The design
// report uses it over seeds 1–20; the hindsight coach over one team's seed, near its own decisions.
import { rngFromSeed, type Rng } from '../sim/rng.ts';
import { evaluatePlay, type Bench, type PlayEval } from './evaluate.ts';
import type { Play } from './play.ts';
import { mutatePlay, normalize, playKey, randomPlay, type Limits, type Space } from './space.ts';

export interface Found {
  play: Play;
  eval: PlayEval;
}

export interface SearchOptions {
  limits: Limits;
  /** Plays evaluated in all (random phase and climbs). */
  budget: number;
  /** Share of the budget spent on random plays before climbing. */
  randomShare?: number;
  /** Climbs, each from one of the best plays found so far. */
  climbs?: number;
  /** Plays to start from (evaluated first, kept as climb starts if they are among the best). */
  starts?: readonly Play[];
  seed?: number;
  /** Receives every play of the random phase (a sample of the plays a class might try). */
  sample?: Found[];
}

/** Every play the search evaluated, by its text (so no play is evaluated twice). */
export type Seen = Map<string, Found>;

function better(a: PlayEval, b: PlayEval): boolean {
  return a.meanScore > b.meanScore || (a.meanScore === b.meanScore && a.winRate > b.winRate);
}

/** Random search plus hill-climbing within `limits`; returns the best play and (in `seen`) every play tried. */
export function searchPlays(bench: Bench, space: Space, opts: SearchOptions, seen: Seen = new Map()): Found {
  const rng: Rng = rngFromSeed(opts.seed ?? 1);
  let spent = 0;
  const evaluate = (p: Play): Found => {
    const play = normalize(p);
    const key = playKey(play);
    const known = seen.get(key);
    if (known) return known;
    spent++;
    const f = { play, eval: evaluatePlay(bench, play) };
    seen.set(key, f);
    return f;
  };
  const pool: Found[] = [];
  for (const s of opts.starts ?? []) pool.push(evaluate(s));
  pool.push(evaluate({ timed: [], rules: [] }));
  const randomBudget = Math.floor(opts.budget * (opts.randomShare ?? 0.3));
  for (let i = 0; i < randomBudget * 4 && spent < randomBudget; i++) {
    const f = evaluate(randomPlay(rng, space, opts.limits));
    pool.push(f);
    opts.sample?.push(f);
  }

  const climbs = opts.climbs ?? 4;
  const starts = [...new Map(pool.map((f) => [playKey(f.play), f])).values()]
    .sort((a, b) => b.eval.meanScore - a.eval.meanScore)
    .slice(0, climbs);
  let best = starts[0];
  for (let c = 0; c < starts.length; c++) {
    let cur = starts[c];
    const stop = spent + Math.floor((opts.budget - spent) / (starts.length - c));
    // Tries stop on a budget of new plays; a cap on attempts ends a climb stuck among known plays.
    for (let tries = 0; spent < stop && tries < 20 * opts.budget; tries++) {
      const next = evaluate(mutatePlay(rng, space, cur.play, opts.limits));
      if (!better(cur.eval, next.eval)) cur = next;
    }
    if (better(cur.eval, best.eval)) best = cur;
  }
  return best;
}
