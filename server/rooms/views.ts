// What people are sent, computed from a room's state: the room view, a team's minute and history,
// the teacher's and observers' minute, the scores. Pure.
import { endedEarlyAt } from '../../shared/classroom/rank.ts';
import type {
  RoleChange,
  RoomMinute,
  RoomSummary,
  RoomView,
  RoundScores,
  SeatTurn,
  TeacherMessage,
  TeamHistory,
  TeamMinute,
  TeamSummary,
} from '../../shared/protocol/types.ts';
import type { GoalResult, Snapshot } from '../../shared/sim/types.ts';
import { activePlayers, activeTeams } from './roster.ts';
import { headlineKeys } from './round.ts';
import { ownScenario } from './scenario-content.ts';
import type { RoomState, RoundRun, TeamRun } from './state.ts';

/**
 * Who reads a room view: the teacher, or anyone else (students, observers, the feed). Only the
 * teacher knows the seed before the round ends: with it, the minutes to come could be computed.
 */
export type Audience = 'teacher' | 'public';

/** What the room's shell knows of a student's page right now (presence.ts). */
export interface SeatPresence {
  connected: boolean;
  idle: boolean;
  free: boolean;
}

export function roomView(s: RoomState, presence: (playerId: number) => SeatPresence, audience: Audience): RoomView {
  const { id, number, state, simulator, scenario, seed, minutes, tempo, minute, forkOf } = s.round;
  const secret = audience !== 'teacher';
  const own = ownScenario(s.round.content);
  return {
    code: s.code,
    config: secret ? { ...s.config, seed: null } : s.config,
    round: {
      id,
      number,
      state,
      simulator,
      scenario,
      seed: secret && state !== 'finished' ? null : seed,
      minutes,
      tempo,
      minute,
      forkOf,
      ...(own ? { own } : {}),
      endedEarlyAt: endedEarlyAt(s.round),
    },
    teams: activeTeams(s, s.config.teamCount).map((t) => ({ id: t.id, idx: t.idx, name: t.name, whatIf: t.whatIf })),
    players: activePlayers(s)
      .sort((a, b) => a.id - b.id)
      .map((p) => ({
        id: p.id,
        name: p.name,
        teamId: p.teamId,
        roles: [...p.roles],
        ...presence(p.id),
        pilot: p.pilot,
      })),
    locked: s.locked,
    replayShared: s.replayShared,
  };
}

/** The round's role changes, of one team or of all (null). */
export function roleChangesOf(r: RoundRun, teamId: number | null): RoleChange[] {
  return [...r.roleChanges].filter((c) => teamId === null || c.teamId === teamId);
}

/** The round's seat turns, of one team or of all (null). */
export function seatTurnsOf(r: RoundRun, teamId: number | null): SeatTurn[] {
  return [...r.seatTurns].filter((t) => teamId === null || t.teamId === teamId);
}

/** The messages a desk shows after a reload, until the round ends: to its team or to all (`null`: no team); `'all'`: every one (the teacher). */
export function messagesFor(r: RoundRun, teamId: number | null | 'all'): TeacherMessage[] {
  if (r.state === 'finished') return [];
  return [...r.messages].filter((m) => teamId === 'all' || m.teamId === null || m.teamId === teamId);
}

export function teamMinute(t: TeamRun): Omit<TeamMinute, 'roundId' | 'sentAt'> {
  return {
    teamId: t.teamId,
    snapshot: t.snapshot,
    progress: t.progress as GoalResult[],
    score: t.score,
    ledger: t.ledger,
  };
}

/**
 * A team's history: `snapshots`, its minutes `0…` its latest, as stored (Room.historyOf reads them). The round's
 * references (doing nothing, a calm hour) go up to the latest minute until the round is over: further on they
 * would show when and how hard each shock of the seed lands.
 */
export function teamHistory(r: RoundRun, t: TeamRun, snapshots: Snapshot[]): TeamHistory {
  const series = r.baseline?.series ?? { total: [], calm: [] };
  const known = r.state === 'finished' ? series.total.length : Math.max(0, r.minute + 1);
  return {
    roundId: r.id,
    teamId: t.teamId,
    snapshots,
    changes: t.changes.toArray(),
    roleChanges: roleChangesOf(r, t.teamId),
    seatTurns: seatTurnsOf(r, t.teamId),
    progress: [...t.progress],
    score: t.score,
    ledger: t.ledger,
    baseline: { total: series.total.slice(0, known), calm: series.calm.slice(0, known) },
  };
}

function teamSummary(round: RoundRun, t: TeamRun): TeamSummary {
  const s = t.snapshot;
  const headline: Record<string, number> = {};
  for (const i of round.model.indicators) if (i.headline) headline[i.key] = s.indicators[i.key];
  const na = s.na?.filter((key) => key in headline);
  return {
    teamId: t.teamId,
    name: t.name,
    minute: s.minute,
    headline,
    ...(na?.length ? { na } : {}),
    status: s.status,
    progress: t.progress.map((g) => ({ id: g.id, value: g.value, met: g.met })),
    score: t.score,
    ledger: t.ledger,
  };
}

/** Headline series of every team so far (the teacher's small trends): teamId → indicator → values by minute. */
export function headlineTrends(round: RoundRun): Record<number, Record<string, number[]>> {
  const out: Record<number, Record<string, number[]>> = {};
  const keys = headlineKeys(round.model);
  for (const t of round.teams.values()) {
    const series: Record<string, number[]> = {};
    for (const [k, key] of keys.entries()) {
      const values: number[] = [];
      for (let at = k; at < t.headlines.length; at += keys.length) values.push(t.headlines.at(at) as number);
      series[key] = values;
    }
    out[t.teamId] = series;
  }
  return out;
}

export function roomMinute(r: RoundRun, sentAt: number): RoomMinute {
  return { roundId: r.id, minute: r.minute, sentAt, teams: [...r.teams.values()].map(teamMinute) };
}

export function roomSummary(r: RoundRun, sentAt: number): RoomSummary {
  return {
    roundId: r.id,
    state: r.state,
    minute: r.minute,
    sentAt,
    teams: [...r.teams.values()].map((t) => teamSummary(r, t)),
  };
}

/** Every team's goals and score (the final verdict once the round is finished). */
export function roundScores(r: RoundRun): RoundScores {
  const teams = [...r.teams.values()].map((t) => ({
    teamId: t.teamId,
    name: t.name,
    goals: [...t.progress],
    score: t.score,
  }));
  return { roundId: r.id, endedEarlyAt: endedEarlyAt(r), teams };
}
