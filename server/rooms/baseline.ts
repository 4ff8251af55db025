// The score's references of a round — doing nothing and a calm hour on its seed and minutes
// (`baselineRun`, docs/scoring.md) — computed once per round. Pure and deterministic from the seed, so
// nothing is stored: a loaded round, a fork and a replay compute the same numbers. A small cache lets
// rounds on the same seed (forks of one round, its replay) share one computation.
import { baselineSeries } from '../../shared/classroom/ledger.ts';
import type { BaselineSeries } from '../../shared/protocol/types.ts';
import { baselineRun } from '../../shared/sim/engine.ts';
import type { Baseline } from '../../shared/sim/score.ts';
import type { SimModel } from '../../shared/sim/types.ts';
import { trimOldest } from '../lib/maps.ts';

export interface RoundBaseline {
  run: Baseline;
  /** The same references as totals by minute, as they are sent. */
  series: BaselineSeries;
}

export interface BaselineKey {
  scenario: string;
  seed: number;
  minutes: number;
  noise: boolean;
}

const CACHED = 64;
const cache = new Map<string, RoundBaseline>();

/** The references of a round on this model, scenario, seed and length (two silent rounds, a few ms; cached). */
export function roundBaseline(model: SimModel, k: BaselineKey): RoundBaseline {
  const key = `${model.id}|${k.scenario}|${k.seed}|${k.minutes}|${k.noise}`;
  const hit = cache.get(key);
  if (hit) {
    // Most recently used last, so the oldest goes first.
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const run = baselineRun(model, k.scenario, k.seed, k.minutes, k.noise);
  const made = { run, series: baselineSeries(run) };
  cache.set(key, made);
  trimOldest(cache, CACHED);
  return made;
}
