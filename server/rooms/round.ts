// A round's teams as values: minute 0 of a team, its next minute, a team rebuilt by re-simulation, and
// a finished team read back from its stored minutes.
import { createRound, scenarioDef, stepRound } from '../../shared/sim/engine.ts';
import { getModel } from '../../shared/sim/registry.ts';
import { ledgerAt } from '../../shared/classroom/ledger.ts';
import { evaluateTallies, tallyGoal, type GoalTally } from '../../shared/sim/score.ts';
import type { ChangeRecord } from '../../shared/protocol/types.ts';
import type { ControlChange, SimStateBase, Snapshot } from '../../shared/sim/types.ts';
import type { RoundRecord } from '../db/store.ts';
import type { TeamResultRecord } from '../db/writes.ts';
import { AppendOnly } from './append-only.ts';
import { roundBaseline, type RoundBaseline } from './baseline.ts';
import type { RoundRun, TeamRun } from './state.ts';

export interface TeamSeat {
  teamId: number;
  idx: number;
  name: string;
}

/** The references of a round that has started (its seed and length are fixed then). */
export function baselineOf(round: Pick<RoundRun, 'model' | 'scenario' | 'seed' | 'minutes' | 'noise'>): RoundBaseline {
  if (round.seed === null) throw new Error('a round without a seed has no baseline');
  return roundBaseline(round.model, {
    scenario: round.scenario,
    seed: round.seed,
    minutes: round.minutes,
    noise: round.noise,
  });
}

/** A round as stored, with no team playing yet (a lobby, or before its teams are rebuilt). */
export function roundRun(row: RoundRecord): RoundRun {
  const model = getModel(row.simulator);
  const started = row.state !== 'lobby' && row.seed !== null;
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
    baseline: started
      ? baselineOf({ model, scenario: row.scenario, seed: row.seed, minutes: row.minutes, noise: row.noise })
      : null,
    teams: new Map(),
    finishedAt: row.finishedAt,
    roleChanges: AppendOnly.of(),
    members: new Map(),
    messages: AppendOnly.of(),
  };
}

/**
 * Each team's goal tallies over its snapshots, kept beside the (immutable) team rather than in it: the next
 * minute adds to them. A team made some other way (a rename, a load) is tallied from its snapshots once.
 */
const tallies = new WeakMap<TeamRun, readonly GoalTally[]>();

/**
 * The team evaluated over its minutes so far against the round's baseline (live progress, or the verdict at
 * the end). `before`: the same team one minute earlier, whose tallies the new minute adds to.
 */
function withSim(round: RoundRun, t: Omit<TeamRun, 'progress' | 'score' | 'ledger'>, before?: TeamRun): TeamRun {
  return evaluated(round, t.teamId, t.idx, t.name, t.sim, t.snapshots, t.changes, before);
}

/**
 * withSim with the team's fields given one by one: a minute makes one TeamRun (a literal of one shape), not a
 * copy of the last one spread and spread again (the tick's path, 2,500 team-minutes a second at 10,000 students).
 */
function evaluated(
  round: RoundRun,
  teamId: number,
  idx: number,
  name: string,
  sim: TeamRun['sim'],
  snapshots: TeamRun['snapshots'],
  changes: TeamRun['changes'],
  before?: TeamRun,
): TeamRun {
  const base = round.baseline;
  if (!base) throw new Error(`round ${round.id} has teams but no baseline`);
  const goals = round.scenarioDef.goals;
  const last = snapshots.at(-1);
  if (!last) throw new Error(`team ${teamId} has no minute`);
  const prev = before && tallies.get(before);
  const now: GoalTally[] = new Array(goals.length);
  for (let i = 0; i < goals.length; i++) {
    if (prev) now[i] = tallyGoal(goals[i], prev[i], last);
    else {
      let acc: GoalTally | null = null;
      for (const s of snapshots) acc = tallyGoal(goals[i], acc, s);
      if (!acc) throw new RangeError(`team ${teamId} of round ${round.id} has no minute to tally`);
      now[i] = acc;
    }
  }
  const r = evaluateTallies(round.scenarioDef, now, last, base.run);
  const team: TeamRun = {
    teamId,
    idx,
    name,
    sim,
    snapshots,
    changes,
    progress: r.goals,
    score: r.score,
    ledger: ledgerAt(last, round.model.ledger.total, base.series),
  };
  tallies.set(team, now);
  return team;
}

/** A team at minute 0 of a round. */
export function openTeam(
  round: RoundRun,
  seat: TeamSeat,
  seed: number,
  changes: readonly ChangeRecord[] = [],
): TeamRun {
  const sim = createRound(round.model, { scenario: round.scenario, seed, noise: round.noise });
  return withSim(round, { ...seat, sim, snapshots: AppendOnly.of([sim.snapshot]), changes: AppendOnly.of(changes) });
}

/** The team's latest minute. */
export function latest(t: TeamRun): Snapshot {
  const s = t.snapshots.at(-1);
  if (!s) throw new Error(`team ${t.teamId} has no minute`);
  return s;
}

/** The team one minute on, with the changes recorded for that minute. */
export function advanceTeam(round: RoundRun, t: TeamRun, minute: number): TeamRun {
  if (!t.sim) throw new Error(`team ${t.teamId} of round ${round.id} was read from its stored minutes: it cannot step`);
  const due: ControlChange[] = [];
  // Indexed, not iterated: no iterator allocated per team-minute on the tick's path.
  for (let i = 0; i < t.changes.length; i++) {
    const c = t.changes.at(i);
    if (c?.minute === minute) due.push({ key: c.key, value: c.value });
  }
  const sim: SimStateBase = stepRound(round.model, t.sim, due);
  return evaluated(round, t.teamId, t.idx, t.name, sim, t.snapshots.append(sim.snapshot), t.changes, t);
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
  const check = (s: Snapshot) => {
    if (stored.get(s.minute) !== JSON.stringify(s)) mismatches.push(s.minute);
  };
  check(latest(t));
  for (let m = 1; m <= minute; m++) {
    t = advanceTeam(round, t, m);
    check(latest(t));
  }
  return { team: t, mismatches };
}

/**
 * A team of a finished round as it was stored, without simulating: its minutes `0…minute` parsed from
 * the stored snapshots, goals evaluated once over them. Null when a minute is missing (the caller then
 * re-simulates).
 */
export function storedTeam(
  round: RoundRun,
  seat: TeamSeat,
  changes: readonly ChangeRecord[],
  stored: ReadonlyMap<number, string>,
  minute: number,
): TeamRun | null {
  const snapshots: Snapshot[] = [];
  for (let m = 0; m <= minute; m++) {
    const data = stored.get(m);
    if (data === undefined) return null;
    snapshots.push(JSON.parse(data) as Snapshot);
  }
  return withSim(round, { ...seat, sim: null, snapshots: AppendOnly.of(snapshots), changes: AppendOnly.of(changes) });
}

/**
 * A finished team with the verdict stored when its round ended: rounds scored before the baseline existed
 * keep the score they were given.
 */
export function withStoredResult(t: TeamRun, stored: TeamResultRecord | undefined): TeamRun {
  return stored ? withTeam(t, { progress: stored.goals, score: stored.score }) : t;
}

/**
 * The team with other fields than its minutes (a change recorded, a new name, a stored verdict). It keeps its
 * goal tallies, which depend on its minutes only: its next minute adds to them, where a copy without them went
 * over every minute so far again (each of the ~100 changes a second at 10,000 students, minute 200 of a long
 * round as much as minute 2).
 */
export function withTeam(
  t: TeamRun,
  patch: Partial<Pick<TeamRun, 'changes' | 'name' | 'progress' | 'score'>>,
): TeamRun {
  const next: TeamRun = { ...t, ...patch };
  const kept = tallies.get(t);
  if (kept) tallies.set(next, kept);
  return next;
}

/** Every team's final goals and score, as stored when a round ends. */
export function results(round: RoundRun): TeamResultRecord[] {
  return [...round.teams.values()].map((t) => ({ teamId: t.teamId, goals: [...t.progress], score: t.score }));
}
