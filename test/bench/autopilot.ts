// Bench: 1,000 seats on autopilot. Every simulated minute each seat's role policy reads its role's split view of its
// team's minute and decides (shared/classroom/autopilot.ts, the server's autopilot and the bots alike): the cost of
// one seat-minute, and of a whole minute of 1,000 seats, beside the simulation step of their 250 teams.
import { playSeat, type SeatMemory } from '../../shared/classroom/autopilot.ts';
import { createRound, stepRound } from '../../shared/sim/engine.ts';
import { models } from '../../shared/sim/registry.ts';
import type { ControlChange, SimModel, SimStateBase, Snapshot } from '../../shared/sim/types.ts';
import { fmt, summary } from './stats.ts';

export interface AutopilotBenchResult {
  model: string;
  seats: number;
  minutes: number;
  seatMedianUs: number;
  seatP99Us: number;
  /** Wall time of all seats' decisions in one minute, median over the minutes. */
  minuteMs: number;
  /** The same minute's simulation steps of the seats' teams, for scale. */
  stepMs: number;
  changes: number;
}

function benchModel(model: SimModel, seats: number, minutes: number): AutopilotBenchResult {
  const scenario = model.scenarios.find((s) => s.minutes && s.goals.length > 0)?.id ?? model.scenarios[1].id;
  const roles = model.roles.map((r) => r.id);
  const teams = Math.ceil(seats / roles.length);
  let states: SimStateBase[] = Array.from({ length: teams }, (_, i) =>
    createRound(model, { scenario, seed: 100 + i, noise: true }),
  );
  const memory: SeatMemory[] = Array.from({ length: teams * roles.length }, () => ({}));
  let prev: (Snapshot | undefined)[] = Array.from({ length: teams }, () => undefined);
  const pending: ControlChange[][] = Array.from({ length: teams }, () => []);
  const seatTimes: number[] = [];
  const minuteTimes: number[] = [];
  const stepTimes: number[] = [];
  let changes = 0;
  for (let m = 0; m < minutes; m++) {
    const s0 = performance.now();
    states = states.map((s, t) => stepRound(model, s, pending[t].splice(0)));
    stepTimes.push(performance.now() - s0);
    const m0 = performance.now();
    for (let t = 0; t < teams; t++) {
      const view = states[t].snapshot;
      for (let r = 0; r < roles.length; r++) {
        const k = t * roles.length + r;
        if (k >= seats) break;
        const t0 = process.hrtime.bigint();
        const out = playSeat(model, [roles[r]], { skill: 'careful', delay: 0, seed: k }, memory[k], view, prev[t]);
        seatTimes.push(Number(process.hrtime.bigint() - t0) / 1000);
        memory[k] = out.memory;
        pending[t].push(...out.changes);
        changes += out.changes.length;
      }
      prev[t] = view;
    }
    minuteTimes.push(performance.now() - m0);
  }
  prev = [];
  const st = summary(seatTimes);
  return {
    model: model.id,
    seats,
    minutes,
    seatMedianUs: st.median,
    seatP99Us: st.p99,
    minuteMs: summary(minuteTimes).median,
    stepMs: summary(stepTimes).median,
    changes,
  };
}

export function benchAutopilot(seats = 1000, minutes = 60): AutopilotBenchResult[] {
  // Warm up the JIT first.
  for (const model of Object.values(models)) benchModel(model, 100, 20);
  return Object.values(models).map((model) => benchModel(model, seats, minutes));
}

export function reportAutopilot(results: AutopilotBenchResult[]): string {
  return results
    .map(
      (r) =>
        `${r.model.padEnd(15)} ${r.seats} seats × ${r.minutes} minutes: a seat-minute median ${fmt(r.seatMedianUs, 2)} µs, p99 ${fmt(r.seatP99Us, 2)} µs; all ${r.seats} seats ${fmt(r.minuteMs, 2)} ms a minute (their teams' simulation steps ${fmt(r.stepMs, 2)} ms); ${r.changes} changes decided`,
    )
    .join('\n');
}
