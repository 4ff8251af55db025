// Bench 1: the cost of one team-minute step of each simulator (target ≤ 20 µs median).
import { createRound, stepRound } from '../../shared/sim/engine.ts';
import { models } from '../../shared/sim/registry.ts';
import type { ControlChange, SimModel } from '../../shared/sim/types.ts';
import { fmt, summary } from './stats.ts';

export interface SimBenchResult {
  model: string;
  steps: number;
  medianUs: number;
  p95Us: number;
  p99Us: number;
}

/** Steps `rounds` rounds of every crisis scenario, timing each step on its own. */
export function benchModel(model: SimModel, rounds: number, minutes = 60): SimBenchResult {
  const times: number[] = [];
  const scenarios = model.scenarios.filter((s) => s.goals.length > 0).map((s) => s.id);
  const noChanges: ControlChange[] = [];
  // Warm up the JIT before measuring.
  for (let r = 0; r < 20; r++) {
    let s = createRound(model, { scenario: scenarios[r % scenarios.length], seed: 1000 + r, noise: true });
    for (let m = 0; m < minutes; m++) s = stepRound(model, s, noChanges);
  }
  for (let r = 0; r < rounds; r++) {
    let s = createRound(model, { scenario: scenarios[r % scenarios.length], seed: r + 1, noise: true });
    for (let m = 0; m < minutes; m++) {
      const t0 = process.hrtime.bigint();
      s = stepRound(model, s, noChanges);
      times.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
  }
  const st = summary(times);
  return { model: model.id, steps: st.n, medianUs: st.median, p95Us: st.p95, p99Us: st.p99 };
}

export function benchSimulation(rounds = 300): SimBenchResult[] {
  return Object.values(models).map((m) => benchModel(m, rounds));
}

export function reportSimulation(results: SimBenchResult[]): string {
  return results
    .map(
      (r) =>
        `${r.model.padEnd(15)} ${r.steps} steps: median ${fmt(r.medianUs, 2)} µs, p95 ${fmt(r.p95Us, 2)} µs, p99 ${fmt(r.p99Us, 2)} µs  (target ≤ 20 µs median; ${fmt(1e6 / r.medianUs / 1000, 0)}k team-minutes/s on one core)`,
    )
    .join('\n');
}
