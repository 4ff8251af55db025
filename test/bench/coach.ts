// Bench 9: the hindsight coach — one team's search after a round (target ≤ 1 s per team for a 60-minute
// round). Every scenario with goals at its own length, seeds 1–3, four teams each: one that did nothing,
// one that played the scenario's documented play, one that played it 3 minutes late, and a busy one (a
// change every 4 minutes, drawn from the controls' grids: the search's largest case). Each model's first
// search (a cold JIT, as the coach's thread has at its first request) is reported apart.
import { runCoachJob } from '../../server/replay/coach-job.ts';
import { documentedPlay } from '../../server/cli/design-report.ts';
import { delayed } from '../../shared/design/space.ts';
import { runPlay, type Play } from '../../shared/design/play.ts';
import { gridValues } from '../../shared/design/space.ts';
import { baselineRun } from '../../shared/sim/engine.ts';
import { models } from '../../shared/sim/registry.ts';
import { rngFromSeed, uniform } from '../../shared/sim/rng.ts';
import type { ScheduledChange, SimModel } from '../../shared/sim/types.ts';
import { fmt, summary } from './stats.ts';

export interface CoachBenchRow {
  model: string;
  /** The first search of the process (cold). */
  firstMs: number;
  teams: number;
  medianMs: number;
  p95Ms: number;
  maxMs: number;
  medianTried: number;
  /** Teams that got a suggestion. */
  suggested: number;
}

/** A change every 4 minutes, each a control and a value drawn from its grid (seeded). */
function busy(model: SimModel, minutes: number, seed: number): ScheduledChange[] {
  const rng = rngFromSeed(seed);
  const out: ScheduledChange[] = [];
  for (let m = 2; m <= minutes; m += 4) {
    const def = model.controls[Math.floor(uniform(rng) * model.controls.length)];
    const values = gridValues(def);
    out.push({ minute: m, key: def.key, value: values[Math.floor(uniform(rng) * values.length)] });
  }
  return out;
}

export function benchCoach(seeds: readonly number[] = [1, 2, 3]): CoachBenchRow[] {
  return Object.values(models).map((model) => {
    let firstMs = NaN;
    const ms: number[] = [];
    const tried: number[] = [];
    let suggested = 0;
    for (const def of model.scenarios.filter((s) => s.goals.length > 0)) {
      const minutes = def.minutes ?? model.defaultMinutes;
      const documented = documentedPlay(model.id, def.id);
      const plays: Play[] = [{ timed: [], rules: [] }, ...(documented ? [documented, delayed(documented, 3)] : [])];
      for (const seed of seeds) {
        // What each team did, as the server records it: every change at the minute it applied.
        const teams = plays.map((play) =>
          runPlay(model, { scenario: def.id, seed, noise: true, minutes }, play).applied.filter((c) => c.minute > 0),
        );
        teams.push(busy(model, minutes, seed));
        for (const changes of teams) {
          const done = runCoachJob({
            simulator: model.id,
            scenario: def.id,
            seed,
            noise: true,
            minutes,
            minute: minutes,
            changes,
          });
          if (Number.isNaN(firstMs)) {
            firstMs = done.ms;
            continue;
          }
          ms.push(done.ms);
          tried.push(done.result.tried);
          if (done.result.suggestion) suggested++;
        }
      }
    }
    const t = summary(ms);
    return {
      model: model.id,
      firstMs,
      teams: t.n,
      medianMs: t.median,
      p95Ms: t.p95,
      maxMs: t.max,
      medianTried: summary(tried).median,
      suggested,
    };
  });
}

export function reportCoach(rows: CoachBenchRow[]): string {
  return rows
    .map(
      (r) =>
        `${r.model.padEnd(15)} ${r.teams} teams: median ${fmt(r.medianMs, 0)} ms, p95 ${fmt(r.p95Ms, 0)} ms, max ${fmt(r.maxMs, 0)} ms per team (first, cold: ${fmt(r.firstMs, 0)} ms), ` +
        `${r.medianTried} plays re-simulated (median); ${r.suggested} with a suggestion  (target ≤ 1000 ms per team)`,
    )
    .join('\n');
}

/** The score's references a round computes when it starts (`baselineRun`: doing nothing and a calm hour), per model. */
export function benchBaseline(rounds = 30): { model: string; medianMs: number; maxMs: number }[] {
  return Object.values(models).map((model) => {
    const ms: number[] = [];
    const scenarios = model.scenarios.filter((s) => s.goals.length > 0);
    for (let r = 0; r < rounds; r++) {
      const def = scenarios[r % scenarios.length];
      const t0 = performance.now();
      baselineRun(model, def.id, 100 + r, def.minutes ?? model.defaultMinutes);
      ms.push(performance.now() - t0);
    }
    const t = summary(ms.slice(scenarios.length));
    return { model: model.id, medianMs: t.median, maxMs: t.max };
  });
}

export function reportBaseline(rows: ReturnType<typeof benchBaseline>): string {
  return rows
    .map(
      (r) =>
        `${r.model.padEnd(15)} baseline of a 60-minute round (at its start): median ${fmt(r.medianMs, 2)} ms, max ${fmt(r.maxMs, 2)} ms`,
    )
    .join('\n');
}
