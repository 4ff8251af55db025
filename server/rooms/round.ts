// A round's teams as values: minute 0 of a team, its next minute, and a team rebuilt by re-simulation.
import { createRound, scenarioDef, stepRound } from '../../shared/sim/engine.ts';
import { getModel } from '../../shared/sim/registry.ts';
import { evaluateTallies, tallyGoal, type GoalTally } from '../../shared/sim/score.ts';
import type { ChangeRecord } from '../../shared/protocol/types.ts';
import type { ControlChange, SimStateBase } from '../../shared/sim/types.ts';
import type { RoundRecord } from '../db/store.ts';
import type { TeamResultRecord } from '../db/writes.ts';
import { AppendOnly } from './append-only.ts';
import type { RoundRun, TeamRun } from './state.ts';

export interface TeamSeat {
  teamId: number;
  idx: number;
  name: string;
}

/** A round as stored, with no team playing yet (a lobby, or before its teams are rebuilt). */
export function roundRun(row: RoundRecord): RoundRun {
  const model = getModel(row.simulator);
  return {
    id: row.id,
    number: row.number,
    state: row.state,
    simulator: row.simulator,
    scenario: row.scenario,
    seed: row.seed,
    noise: row.noise,
    minutes: row.minutes,
    tempo: row.tempo,
    minute: row.minute,
    forkOf: row.forkOf,
    model,
    scenarioDef: scenarioDef(model, row.scenario),
    teams: new Map(),
  };
}

/**
 * Each team's goal tallies over its snapshots, kept beside the (immutable) team rather than in it: the next
 * minute adds to them. A team made some other way (a rename, a load) is tallied from its snapshots once.
 */
const tallies = new WeakMap<TeamRun, readonly GoalTally[]>();

function withSim(round: RoundRun, t: Omit<TeamRun, 'progress' | 'score'>, before?: TeamRun): TeamRun {
  const goals = round.scenarioDef.goals;
  const prev = before && tallies.get(before);
  const now = prev
    ? goals.map((g, i) => tallyGoal(g, prev[i], t.sim.snapshot))
    : goals.map((g) => [...t.snapshots].reduce<GoalTally | null>((acc, s) => tallyGoal(g, acc, s), null)!);
  const r = evaluateTallies(round.scenarioDef, now);
  const team: TeamRun = { ...t, progress: r.goals, score: r.score };
  tallies.set(team, now);
  return team;
}

/** A team at minute 0 of a round. */
export function openTeam(round: RoundRun, seat: TeamSeat, seed: number, changes: readonly ChangeRecord[] = []): TeamRun {
  const sim = createRound(round.model, { scenario: round.scenario, seed, noise: round.noise });
  return withSim(round, { ...seat, sim, snapshots: AppendOnly.of([sim.snapshot]), changes: AppendOnly.of(changes) });
}

/** The team one minute on, with the changes recorded for that minute. */
export function advanceTeam(round: RoundRun, t: TeamRun, minute: number): TeamRun {
  const due: ControlChange[] = [];
  for (let i = 0; i < t.changes.length; i++) {
    const c = t.changes.at(i)!;
    if (c.minute === minute) due.push({ key: c.key, value: c.value });
  }
  const sim: SimStateBase = stepRound(round.model, t.sim, due);
  return withSim(round, { ...t, sim, snapshots: t.snapshots.append(sim.snapshot) }, t);
}

/**
 * Re-simulates a team from its seed and recorded changes up to `minute` and compares each minute
 * with what was stored. Returns the rebuilt team and the minutes that differ.
 */
export function rebuildTeam(
  round: RoundRun,
  seat: TeamSeat,
  seed: number,
  changes: readonly ChangeRecord[],
  stored: ReadonlyMap<number, string>,
  minute: number,
): { team: TeamRun; mismatches: number[] } {
  let t = openTeam(round, seat, seed, changes);
  const mismatches: number[] = [];
  const check = (s: SimStateBase) => {
    if (stored.get(s.minute) !== JSON.stringify(s.snapshot)) mismatches.push(s.minute);
  };
  check(t.sim);
  for (let m = 1; m <= minute; m++) {
    t = advanceTeam(round, t, m);
    check(t.sim);
  }
  return { team: t, mismatches };
}

/** Every team's final goals and score, as stored when a round ends. */
export function results(round: RoundRun): TeamResultRecord[] {
  return [...round.teams.values()].map((t) => ({ teamId: t.teamId, goals: [...t.progress], score: t.score }));
}
