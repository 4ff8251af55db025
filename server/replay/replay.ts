// A teacher's history and the replay of a round, built from what was stored.
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import type { ForkInfo, HistoryRoom, HistoryRound, RoundReplay } from '../../shared/protocol/types.ts';
import { dealRoles } from '../../shared/classroom/roles.ts';
import { findChapters } from '../../shared/replay/chapters.ts';
import { toColumns } from '../../shared/replay/columns.ts';
import { getModel } from '../../shared/sim/registry.ts';
import type { Snapshot } from '../../shared/sim/types.ts';
import type { RoomRecord, RoundRecord, Store } from '../db/store.ts';

export async function historyRound(store: Store, row: RoundRecord): Promise<HistoryRound> {
  const [results, teams] = await Promise.all([store.resultsOfRound(row.id), store.roundTeams(row.id)]);
  const byTeam = new Map(results.map((r) => [r.teamId, r]));
  const { roomId: _room, noise: _noise, ...round } = row;
  return {
    ...round,
    teams: teams.map((t) => {
      const r = byTeam.get(t.teamId);
      const goals = r?.goals ?? [];
      return { teamId: t.teamId, idx: t.idx, name: t.name, score: r?.score ?? null, goalsMet: goals.filter((g) => g.met).length, goals: goals.length };
    }),
  };
}

/** Every room and round of a teacher, newest first. */
export async function teacherHistory(store: Store, teacherId: number): Promise<HistoryRoom[]> {
  const rooms = await store.roomsOfTeacher(teacherId);
  return Promise.all(
    rooms.map(async (room) => ({
      code: room.code,
      createdAt: room.createdAt,
      rounds: await Promise.all((await store.roundsOfRoom(room.id)).map((r) => historyRound(store, r))),
    })),
  );
}

/** The round and its room, if this teacher owns them. */
export async function ownedRound(store: Store, teacherId: number, roundId: number): Promise<{ round: RoundRecord; room: RoomRecord }> {
  const round = await store.roundById(roundId);
  const room = round && (await store.roomById(round.roomId));
  if (!round || !room || room.teacherId !== teacherId) throw new ClassroomError(ErrorCode.ROUND_NOT_FOUND, `no round ${roundId} of yours`);
  return { round, room };
}

/** Where a round was forked: the round, its room's code, the team and the minute. */
async function forkInfo(store: Store, roundId: number, forkOf: { teamId: number; minute: number }): Promise<ForkInfo | null> {
  const round = await store.roundById(roundId);
  const room = round && (await store.roomById(round.roomId));
  return room ? { roundId, roomCode: room.code, teamId: forkOf.teamId, minute: forkOf.minute } : null;
}

export async function buildReplay(store: Store, round: RoundRecord, room: RoomRecord): Promise<RoundReplay> {
  const model = getModel(round.simulator);
  const [snapshots, changes, results, history, players, forks] = await Promise.all([
    store.snapshotsOfRound(round.id),
    store.changesOfRound(round.id),
    store.resultsOfRound(round.id),
    historyRound(store, round),
    store.playersOfRoom(room.id),
    store.forksOf(round.id),
  ]);
  const byTeam = new Map<number, Snapshot[]>();
  for (const s of snapshots) {
    let list = byTeam.get(s.teamId);
    if (!list) byTeam.set(s.teamId, (list = []));
    list.push(JSON.parse(s.data));
  }
  const resultOf = new Map(results.map((r) => [r.teamId, r]));
  const goalOrder = model.scenarios.find((s) => s.id === round.scenario)?.goals.map((g) => g.id) ?? [];
  const present = players.filter((p) => !p.removed);
  const roleIds = model.roles.map((r) => r.id);
  /** Members as they stand, with the roles this round's simulator deals them in join order. */
  const membersOf = (teamId: number) => {
    const list = present.filter((p) => p.teamId === teamId).sort((a, b) => a.seq - b.seq);
    const dealt = dealRoles(roleIds, list.length);
    return list.map((p, i) => ({ playerId: p.id, name: p.name, roles: dealt[i] }));
  };
  const forkList = await Promise.all(forks.map((f) => (f.forkOf ? forkInfo(store, f.id, f.forkOf) : null)));
  return {
    roomCode: room.code,
    round: history,
    teams: history.teams.map((t) => {
      const snaps = byTeam.get(t.teamId) ?? [];
      const res = resultOf.get(t.teamId);
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
    forks: forkList.filter((f): f is ForkInfo => f !== null),
    origin: round.forkOf ? await forkInfo(store, round.forkOf.roundId, round.forkOf) : null,
  };
}
