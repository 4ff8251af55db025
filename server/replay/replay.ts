// A teacher's history and the replay of a round, built from what was stored.
import { endedEarlyAt, rankRows } from '../../shared/classroom/rank.ts';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import {
  DEFAULT_PURPOSE,
  type ForkInfo,
  type HistoryRoom,
  type HistoryRound,
  type RoundReplay,
  type RoundStanding,
} from '../../shared/protocol/types.ts';
import { findChapters } from '../../shared/replay/chapters.ts';
import { toColumns } from '../../shared/replay/columns.ts';
import { getModel } from '../../shared/sim/registry.ts';
import type { Snapshot } from '../../shared/sim/types.ts';
import { dealRoles } from '../../shared/classroom/roles.ts';
import type { PlayerRecord, RoomRecord, RoundRecord } from '../db/records.ts';
import type { Store } from '../db/store.ts';
import type { RoundMemberRecord } from '../db/records.ts';
import { roundBaseline } from '../rooms/baseline.ts';

export async function historyRound(store: Store, row: RoundRecord): Promise<HistoryRound> {
  const [results, teams] = await Promise.all([store.resultsOfRound(row.id), store.roundTeams(row.id)]);
  const byTeam = new Map(results.map((r) => [r.teamId, r]));
  const { roomId: _room, noise: _noise, ...round } = row;
  return {
    ...round,
    endedEarlyAt: endedEarlyAt(row),
    teams: teams.map((t) => {
      const r = byTeam.get(t.teamId);
      const goals = r?.goals ?? [];
      return {
        teamId: t.teamId,
        idx: t.idx,
        name: t.name,
        whatIf: t.whatIf,
        score: r?.score ?? null,
        goalsMet: goals.filter((g) => g.met).length,
        goals: goals.length,
      };
    }),
  };
}

/** Every team's rank in the round, as every screen ranks (shared/classroom/rank.ts). */
export function standingOf(round: HistoryRound): RoundStanding {
  const ranked = rankRows(
    round.teams.map((t) => ({
      teamId: t.teamId,
      score: t.score,
      met: t.goalsMet,
      complete: round.endedEarlyAt === null,
      idx: t.idx,
    })),
  );
  return { teams: round.teams.length, ranks: ranked.map((r) => ({ teamId: r.teamId, rank: r.rank })) };
}

/** Every room and round of a teacher, newest first. */
export async function teacherHistory(store: Store, teacherId: number): Promise<HistoryRoom[]> {
  const rooms = await store.roomsOfTeacher(teacherId);
  return Promise.all(
    rooms.map(async (room) => ({
      code: room.code,
      purpose: room.config.purpose ?? DEFAULT_PURPOSE,
      createdAt: room.createdAt,
      rounds: await Promise.all((await store.roundsOfRoom(room.id)).map((r) => historyRound(store, r))),
    })),
  );
}

/** The round and its room, if this teacher owns them. */
export async function ownedRound(
  store: Store,
  teacherId: number,
  roundId: number,
): Promise<{ round: RoundRecord; room: RoomRecord }> {
  const round = await store.roundById(roundId);
  const room = round && (await store.roomById(round.roomId));
  if (!round || !room || room.teacherId !== teacherId)
    throw new ClassroomError(ErrorCode.ROUND_NOT_FOUND, `no round ${roundId} of yours`);
  return { round, room };
}

/** Where a round was forked: the round, its room's code, the team and the minute. */
async function forkInfo(
  store: Store,
  roundId: number,
  forkOf: { teamId: number; minute: number },
): Promise<ForkInfo | null> {
  const round = await store.roundById(roundId);
  const room = round && (await store.roomById(round.roomId));
  return room ? { roundId, roomCode: room.code, teamId: forkOf.teamId, minute: forkOf.minute } : null;
}

/** The room's present members with the roles dealt to them in join order: for rounds older than round_members. */
async function dealtMembers(store: Store, roomId: number, roleIds: readonly string[]): Promise<RoundMemberRecord[]> {
  const byTeam = new Map<number, PlayerRecord[]>();
  for (const p of await store.playersOfRoom(roomId)) {
    if (p.removed || p.teamId === null) continue;
    const list = byTeam.get(p.teamId) ?? [];
    byTeam.set(p.teamId, list);
    list.push(p);
  }
  const out: RoundMemberRecord[] = [];
  for (const [teamId, list] of byTeam) {
    list.sort((a, b) => a.seq - b.seq);
    const dealt = dealRoles(roleIds, list.length);
    for (const [i, p] of list.entries())
      out.push({ teamId, playerId: p.id, seq: i + 1, name: p.name, roles: dealt[i] });
  }
  return out;
}

export async function buildReplay(store: Store, round: RoundRecord, room: RoomRecord): Promise<RoundReplay> {
  const model = getModel(round.simulator);
  const [snapshots, changes, results, history, members, roleChanges, forks, seatTurns] = await Promise.all([
    store.snapshotsOfRound(round.id),
    store.changesOfRound(round.id),
    store.resultsOfRound(round.id),
    historyRound(store, round),
    store.roundMembers(round.id),
    store.roleChangesOfRound(round.id),
    store.forksOf(round.id),
    store.seatTurnsOfRound(round.id),
  ]);
  const byTeam = new Map<number, Snapshot[]>();
  for (const s of snapshots) {
    const list = byTeam.get(s.teamId) ?? [];
    byTeam.set(s.teamId, list);
    list.push(JSON.parse(s.data));
  }
  const resultOf = new Map(results.map((r) => [r.teamId, r]));
  const goalOrder = model.scenarios.find((s) => s.id === round.scenario)?.goals.map((g) => g.id) ?? [];
  // A round played before members were recorded: the team as it stands, with the roles a deal gives it.
  const recorded = members.length
    ? members
    : round.state === 'lobby'
      ? []
      : await dealtMembers(
          store,
          room.id,
          model.roles.map((r) => r.id),
        );
  /** Everyone who was in the team during the round, with the roles they really held (stored as the round went). */
  const membersOf = (teamId: number) =>
    recorded
      .filter((m) => m.teamId === teamId)
      .map((m) => ({ playerId: m.playerId, name: m.name, roles: [...m.roles] }));
  const forkList = await Promise.all(forks.map((f) => (f.forkOf ? forkInfo(store, f.id, f.forkOf) : null)));
  // The score's references on the round's seed, for the figures at any minute of the replay.
  const seed = round.seed;
  const baseline =
    round.state !== 'lobby' && seed !== null
      ? roundBaseline(model, { scenario: round.scenario, seed, minutes: round.minutes, noise: round.noise }).series
      : { total: [], calm: [] };
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
        whatIf: t.whatIf,
        members: membersOf(t.teamId),
        columns: toColumns(snaps),
        changes: changes.filter((c) => c.teamId === t.teamId && c.minute <= round.minute),
        roleChanges: roleChanges.filter((c) => c.teamId === t.teamId),
        seatTurns: seatTurns.filter((s) => s.teamId === t.teamId),
        result: res
          ? {
              goals: [...res.goals].sort((a, b) => goalOrder.indexOf(a.id) - goalOrder.indexOf(b.id)),
              score: res.score,
            }
          : null,
        chapters: findChapters(model, round.scenario, snaps),
        baseline,
      };
    }),
    forks: forkList.filter((f): f is ForkInfo => f !== null),
    origin: round.forkOf ? await forkInfo(store, round.forkOf.roundId, round.forkOf) : null,
    standing: standingOf(history),
  };
}

/**
 * A student's replay: their own team only (each team they were in during the round), unless the teacher shared the room's replays; no forks
 * and no origin (those name the teacher's other rooms).
 */
export function studentReplay(full: RoundReplay, teamIds: readonly number[], shared: boolean): RoundReplay {
  const keep = (id: number) => shared || teamIds.includes(id);
  return {
    ...full,
    round: { ...full.round, teams: full.round.teams.filter((t) => keep(t.teamId)) },
    teams: full.teams.filter((t) => keep(t.teamId)),
    forks: [],
    origin: null,
    // Their team's real rank among all the teams; the others' names and scores stay the teacher's to share.
    standing: { ...full.standing, ranks: full.standing.ranks.filter((r) => keep(r.teamId)) },
  };
}
