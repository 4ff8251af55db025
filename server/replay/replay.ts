// A teacher's history and the replay of a round, built from what was stored.
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import type { HistoryRoom, HistoryRound, RoundReplay, RoundState, RoundView, Tempo } from '../../shared/protocol/types.ts';
import { dealRoles } from '../../shared/classroom/roles.ts';
import { findChapters } from '../../shared/replay/chapters.ts';
import { toColumns } from '../../shared/replay/columns.ts';
import { getModel, isSimulatorId } from '../../shared/sim/registry.ts';
import type { Snapshot } from '../../shared/sim/types.ts';
import type { RoomRow, RoundRow, Store } from '../db/store.ts';

function forkOf(row: RoundRow): RoundView['forkOf'] {
  return row.forkOfRoundId != null ? { roundId: row.forkOfRoundId, teamId: row.forkOfTeamId!, minute: row.forkMinute! } : null;
}

export function historyRound(store: Store, row: RoundRow): HistoryRound {
  const results = new Map(store.resultsOfRound(row.id).map((r) => [r.teamId, r]));
  if (!isSimulatorId(row.simulator)) throw new Error(`round ${row.id}: unknown simulator`);
  return {
    id: row.id,
    number: row.number,
    simulator: row.simulator,
    scenario: row.scenario,
    seed: row.seed,
    state: row.state as RoundState,
    minutes: row.minutes,
    tempo: row.tempo as Tempo,
    minute: row.minute,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    forkOf: forkOf(row),
    teams: store.roundTeams(row.id).map((t) => {
      const r = results.get(t.teamId);
      return { teamId: t.teamId, idx: t.idx, name: t.name, score: r?.score ?? null, goalsMet: r?.goals.filter((g) => g.met).length ?? 0, goals: r?.goals.length ?? 0 };
    }),
  };
}

/** Every room and round of a teacher, newest first. */
export function teacherHistory(store: Store, teacherId: number): HistoryRoom[] {
  return store.roomsOfTeacher(teacherId).map((room) => ({
    code: room.code,
    createdAt: room.createdAt,
    rounds: store.roundsOfRoom(room.id).map((r) => historyRound(store, r)),
  }));
}

/** The round and its room, if this teacher owns them. */
export function ownedRound(store: Store, teacherId: number, roundId: number): { round: RoundRow; room: RoomRow } {
  const round = store.roundById(roundId);
  const room = round && store.roomById(round.roomId);
  if (!round || !room || room.teacherId !== teacherId) throw new ClassroomError(ErrorCode.ROUND_NOT_FOUND, `no round ${roundId} of yours`);
  return { round, room };
}

export function buildReplay(store: Store, round: RoundRow, room: RoomRow): RoundReplay {
  if (!isSimulatorId(round.simulator)) throw new Error(`round ${round.id}: unknown simulator`);
  const model = getModel(round.simulator);
  const byTeam = new Map<number, Snapshot[]>();
  for (const s of store.snapshotsOfRound(round.id)) {
    let list = byTeam.get(s.teamId);
    if (!list) byTeam.set(s.teamId, (list = []));
    list.push(JSON.parse(s.data));
  }
  const changes = store.changesOfRound(round.id);
  const results = new Map(store.resultsOfRound(round.id).map((r) => [r.teamId, r]));
  const goalOrder = model.scenarios.find((s) => s.id === round.scenario)?.goals.map((g) => g.id) ?? [];
  const history = historyRound(store, round);
  const players = store.playersOfRoom(room.id).filter((p) => !p.removed);
  const roleIds = model.roles.map((r) => r.id);
  /** Members as they stand, with the roles this round's simulator deals them in join order. */
  const membersOf = (teamId: number) => {
    const list = players.filter((p) => p.teamId === teamId).sort((a, b) => a.seq - b.seq);
    const dealt = dealRoles(roleIds, list.length);
    return list.map((p, i) => ({ playerId: p.id, name: p.name, roles: dealt[i] }));
  };
  const forkInfo = (r: RoundRow) => ({ roundId: r.id, roomCode: store.roomById(r.roomId)!.code, teamId: r.forkOfTeamId!, minute: r.forkMinute! });
  return {
    roomCode: room.code,
    round: history,
    teams: history.teams.map((t) => {
      const snaps = byTeam.get(t.teamId) ?? [];
      const res = results.get(t.teamId);
      return {
        teamId: t.teamId,
        idx: t.idx,
        name: t.name,
        members: membersOf(t.teamId),
        columns: toColumns(snaps),
        changes: changes.filter((c) => c.teamId === t.teamId && c.minute <= round.minute),
        result: res ? { goals: [...res.goals].sort((a, b) => goalOrder.indexOf(a.id) - goalOrder.indexOf(b.id)), score: res.score } : null,
        chapters: findChapters(model, round.scenario, snaps),
      };
    }),
    forks: store.forksOf(round.id).map(forkInfo),
    origin: round.forkOfRoundId != null ? { roundId: round.forkOfRoundId, roomCode: store.roomById(store.roundById(round.forkOfRoundId)!.roomId)!.code, teamId: round.forkOfTeamId!, minute: round.forkMinute! } : null,
  };
}
