// One round in memory: every team's simulation state, its minutes so far and its changes.
import { createRound, scenarioDef, stepRound } from '../../shared/sim/engine.ts';
import { getModel, isSimulatorId } from '../../shared/sim/registry.ts';
import { evaluateRound } from '../../shared/sim/score.ts';
import type { ControlChange, GoalResult, ScenarioDef, SimModel, SimStateBase, Snapshot } from '../../shared/sim/types.ts';
import type { ChangeRecord, RoomMinute, RoomSummary, RoundScores, RoundState, RoundView, TeamHistory, TeamMinute, TeamSummary, Tempo } from '../../shared/protocol/types.ts';
import type { RoundRow, Store } from '../db/store.ts';

export interface TeamRun {
  teamId: number;
  idx: number;
  name: string;
  sim: SimStateBase;
  snapshots: Snapshot[];
  /** Every change of the round for this team, applied or pending, in arrival order. */
  changes: ChangeRecord[];
  progress: GoalResult[];
  score: number | null;
}

export interface RoundRun {
  id: number;
  number: number;
  state: RoundState;
  simulator: SimModel<any>['id'];
  scenario: string;
  seed: number | null;
  minutes: number;
  tempo: Tempo;
  minute: number;
  forkOf: RoundView['forkOf'];
  model: SimModel<any>;
  scenarioDef: ScenarioDef;
  /** Empty in the lobby; one entry per playing team once started, in team order. */
  teams: Map<number, TeamRun>;
}

export function toControlChanges(list: readonly ChangeRecord[]): ControlChange[] {
  return list.map((c) => ({ key: c.key, value: c.value }));
}

function withResult(t: TeamRun, def: ScenarioDef): TeamRun {
  const r = evaluateRound(def, t.snapshots);
  t.progress = r.goals;
  t.score = r.score;
  return t;
}

/** A team at minute 0 of a round. */
export function openTeam(round: RoundRun, team: { teamId: number; idx: number; name: string }, seed: number): TeamRun {
  const sim = createRound(round.model, { scenario: round.scenario, seed, noise: true });
  return withResult({ ...team, sim, snapshots: [sim.snapshot], changes: [], progress: [], score: null }, round.scenarioDef);
}

/** The team's next minute, computed without touching the team (committed by `commitStep`). */
export function stepTeam(round: RoundRun, t: TeamRun, minute: number): SimStateBase {
  return stepRound(round.model, t.sim, toControlChanges(t.changes.filter((c) => c.minute === minute)));
}

export function commitStep(round: RoundRun, t: TeamRun, sim: SimStateBase): void {
  t.sim = sim;
  t.snapshots.push(sim.snapshot);
  withResult(t, round.scenarioDef);
}

/**
 * Re-simulates a team from its seed and recorded changes up to `minute` and compares each minute
 * with what was stored. Returns the rebuilt team and the minutes that differ.
 */
export function rebuildTeam(
  round: RoundRun,
  team: { teamId: number; idx: number; name: string },
  seed: number,
  changes: ChangeRecord[],
  stored: Map<number, string>,
  minute: number,
): { team: TeamRun; mismatches: number[] } {
  const t = openTeam(round, team, seed);
  t.changes = changes;
  const mismatches: number[] = [];
  const check = (s: Snapshot) => {
    if (stored.get(s.minute) !== JSON.stringify(s)) mismatches.push(s.minute);
  };
  check(t.sim.snapshot);
  for (let m = 1; m <= minute; m++) {
    commitStep(round, t, stepTeam(round, t, m));
    check(t.sim.snapshot);
  }
  return { team: t, mismatches };
}

export function teamMinute(t: TeamRun): Omit<TeamMinute, 'roundId' | 'sentAt'> {
  return { teamId: t.teamId, snapshot: t.sim.snapshot, progress: t.progress, score: t.score };
}

export function teamHistory(roundId: number, t: TeamRun): TeamHistory {
  return { roundId, teamId: t.teamId, snapshots: t.snapshots, changes: t.changes, progress: t.progress, score: t.score };
}

export function teamSummary(round: RoundRun, t: TeamRun): TeamSummary {
  const s = t.sim.snapshot;
  const headline: Record<string, number> = {};
  for (const i of round.model.indicators) if (i.headline) headline[i.key] = s.indicators[i.key];
  return {
    teamId: t.teamId,
    name: t.name,
    minute: s.minute,
    headline,
    status: s.status,
    progress: t.progress.map((g) => ({ id: g.id, value: g.value, met: g.met })),
    score: t.score,
  };
}

/** Headline series of a team so far (for the teacher's small trends). */
export function headlineTrend(round: RoundRun, t: TeamRun): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const i of round.model.indicators) if (i.headline) out[i.key] = t.snapshots.map((s) => s.indicators[i.key]);
  return out;
}

export function roomMinute(r: RoundRun, sentAt: number): RoomMinute {
  return { roundId: r.id, minute: r.minute, sentAt, teams: [...r.teams.values()].map(teamMinute) };
}

export function roomSummary(r: RoundRun, sentAt: number): RoomSummary {
  return { roundId: r.id, state: r.state, minute: r.minute, sentAt, teams: [...r.teams.values()].map((t) => teamSummary(r, t)) };
}

export function roundScores(r: RoundRun): RoundScores | null {
  if (r.state !== 'finished') return null;
  return { roundId: r.id, teams: [...r.teams.values()].map((t) => ({ teamId: t.teamId, name: t.name, goals: t.progress, score: t.score })) };
}

/**
 * A round from its stored row. A started round is rebuilt by re-simulating every team from the seed
 * and the recorded changes, and each minute is compared with the stored snapshot.
 */
export function loadRoundRun(store: Store, row: RoundRow): { round: RoundRun; mismatches: { teamId: number; minutes: number[] }[] } {
  if (!isSimulatorId(row.simulator)) throw new Error(`round ${row.id}: unknown simulator ${row.simulator}`);
  const model = getModel(row.simulator);
  const round: RoundRun = {
    id: row.id,
    number: row.number,
    state: row.state as RoundState,
    simulator: row.simulator,
    scenario: row.scenario,
    seed: row.seed,
    minutes: row.minutes,
    tempo: row.tempo as Tempo,
    minute: row.minute,
    forkOf: row.forkOfRoundId != null ? { roundId: row.forkOfRoundId, teamId: row.forkOfTeamId!, minute: row.forkMinute! } : null,
    model,
    scenarioDef: scenarioDef(model, row.scenario),
    teams: new Map(),
  };
  const mismatches: { teamId: number; minutes: number[] }[] = [];
  if (row.state === 'lobby') return { round, mismatches };
  const changes = store.changesOfRound(row.id);
  const stored = new Map<number, Map<number, string>>();
  for (const s of store.snapshotsOfRound(row.id)) {
    let m = stored.get(s.teamId);
    if (!m) stored.set(s.teamId, (m = new Map()));
    m.set(s.minute, s.data);
  }
  for (const rt of store.roundTeams(row.id)) {
    const { team, mismatches: bad } = rebuildTeam(
      round,
      { teamId: rt.teamId, idx: rt.idx, name: rt.name },
      row.seed!,
      changes.filter((c) => c.teamId === rt.teamId),
      stored.get(rt.teamId) ?? new Map(),
      row.minute,
    );
    if (bad.length) mismatches.push({ teamId: rt.teamId, minutes: bad });
    round.teams.set(rt.teamId, team);
  }
  return { round, mismatches };
}
