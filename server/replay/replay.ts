// A teacher's history and the replay of a round, built from what was stored.
import { endedEarlyAt, rankRows } from '../../shared/classroom/rank.ts';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import {
  DEFAULT_PURPOSE,
  type ForkInfo,
  type HistoryPage,
  type HistoryRound,
  type RoundReplay,
  type RoundStanding,
} from '../../shared/protocol/types.ts';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type Chapter, findChapters } from '../../shared/replay/chapters.ts';
import { type SnapshotColumns, toColumns } from '../../shared/replay/columns.ts';
import type { Snapshot } from '../../shared/sim/types.ts';
import { dealRoles } from '../../shared/classroom/roles.ts';
import type { PlayerRecord, RoomRecord, RoundMemberRecord, RoundRecord, RoundTeamRecord } from '../db/records.ts';
import type { RoomCursor, Store, TeamStanding } from '../db/store.ts';
import { roundBaseline } from '../rooms/baseline.ts';
import { ownScenario, roundPlay } from '../rooms/scenario-content.ts';

/** A round as the history lists it: its teams with their scores and goals met (`standing`: a team's, if scored). */
function listedRound(
  row: RoundRecord,
  teams: readonly RoundTeamRecord[],
  standing: (teamId: number) => Omit<TeamStanding, 'roundId' | 'teamId'> | undefined,
): HistoryRound {
  const { roomId: _room, noise: _noise, ...round } = row;
  return {
    ...round,
    endedEarlyAt: endedEarlyAt(row),
    teams: teams.map((t) => {
      const s = standing(t.teamId);
      return {
        teamId: t.teamId,
        idx: t.idx,
        name: t.name,
        whatIf: t.whatIf,
        score: s?.score ?? null,
        goalsMet: s?.met ?? 0,
        goals: s?.goals ?? 0,
      };
    }),
  };
}

export async function historyRound(store: Store, row: RoundRecord): Promise<HistoryRound> {
  const [results, teams] = await Promise.all([store.resultsOfRound(row.id), store.roundTeams(row.id)]);
  const byTeam = new Map(results.map((r) => [r.teamId, r]));
  return listedRound(row, teams, (teamId) => {
    const r = byTeam.get(teamId);
    return r && { score: r.score, goals: r.goals.length, met: r.goals.filter((g) => g.met).length };
  });
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

/** Rooms of a teacher's history page at most, and rounds: a page stops at the room that takes it past `rounds`. */
export const HISTORY_PAGE = { rooms: 20, rounds: 60 };

/** A page's place in the history, as the client sends it back: `createdAt.id` of the last room it got. */
export function parseCursor(text: string | undefined): RoomCursor | undefined {
  const m = text ? /^(\d{1,15})\.(\d{1,10})$/.exec(text) : null;
  return m ? { createdAt: Number(m[1]), id: Number(m[2]) } : undefined;
}

/**
 * One page of a teacher's rooms and rounds, newest first: up to `limit` rooms, fewer when their rounds pass
 * HISTORY_PAGE.rounds (a room is never split). Five queries whatever the page holds, so a long history costs
 * its pages, one at a time, not one long stretch of the event loop.
 */
export async function teacherHistory(
  store: Store,
  teacherId: number,
  opts: { before?: RoomCursor; limit?: number } = {},
): Promise<HistoryPage> {
  const limit = Math.min(opts.limit ?? HISTORY_PAGE.rooms, HISTORY_PAGE.rooms);
  // One room more than asked: whether there is a next page.
  const found = await store.roomsOfTeacherPage(teacherId, limit + 1, opts.before);
  const rounds = await store.roundsOfRooms(found.slice(0, limit).map((r) => r.id));
  const byRoom = new Map<number, RoundRecord[]>();
  for (const r of rounds) byRoom.set(r.roomId, [...(byRoom.get(r.roomId) ?? []), r]);
  const rooms: RoomRecord[] = [];
  let count = 0;
  for (const room of found.slice(0, limit)) {
    const n = byRoom.get(room.id)?.length ?? 0;
    if (rooms.length > 0 && count + n > HISTORY_PAGE.rounds) break;
    rooms.push(room);
    count += n;
  }
  const ids = rooms.flatMap((room) => (byRoom.get(room.id) ?? []).map((r) => r.id));
  const [teams, standings] = await Promise.all([store.teamsOfRounds(ids), store.standingsOfRounds(ids)]);
  const teamsOf = new Map<number, RoundTeamRecord[]>();
  for (const t of teams) teamsOf.set(t.roundId, [...(teamsOf.get(t.roundId) ?? []), t]);
  const standingOf = new Map(standings.map((s) => [`${s.roundId}:${s.teamId}`, s]));
  const last = rooms.at(-1);
  return {
    rooms: rooms.map((room) => ({
      code: room.code,
      purpose: room.config.purpose ?? DEFAULT_PURPOSE,
      createdAt: room.createdAt,
      rounds: (byRoom.get(room.id) ?? []).map((row) =>
        listedRound(row, teamsOf.get(row.id) ?? [], (teamId) => standingOf.get(`${row.id}:${teamId}`)),
      ),
    })),
    next: last && found.length > rooms.length ? `${last.createdAt}.${last.id}` : null,
  };
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

/** A team's minutes as a replay shows them: one column per figure, and the moments worth a chapter. */
export interface TeamMinutesView {
  columns: SnapshotColumns;
  chapters: Chapter[];
}

/**
 * Every team's stored minutes of a round up to its latest, read back and shaped a team at a time with the event
 * loop free in between: a 30-team, 240-minute round is half a second of parsing, which other rooms' minutes must
 * not wait behind.
 */
export async function roundMinutes(
  store: Store,
  round: RoundRecord,
  teamIds: readonly number[],
): Promise<Map<number, TeamMinutesView>> {
  const { model } = await roundPlay(store, round);
  const out = new Map<number, TeamMinutesView>();
  for (const teamId of teamIds) {
    if (out.size > 0) await nextTurn();
    const rows = await store.snapshotsOfRound(round.id, { teamId, upToMinute: round.minute });
    const snaps: Snapshot[] = rows.map((r) => JSON.parse(r.data));
    out.set(teamId, { columns: toColumns(snaps), chapters: findChapters(model, round.scenario, snaps) });
  }
  return out;
}

/**
 * A round's replay. `minutesOf` gives the teams' minutes (replay/cache.ts keeps them for a round's latest minute);
 * by default they are read here.
 */
export async function buildReplay(
  store: Store,
  round: RoundRecord,
  room: RoomRecord,
  minutesOf: (teamIds: readonly number[]) => Promise<Map<number, TeamMinutesView>> = (ids) =>
    roundMinutes(store, round, ids),
): Promise<RoundReplay> {
  const { model, def, content } = await roundPlay(store, round);
  const own = ownScenario(content ?? null);
  const [changes, results, history, members, roleChanges, forks, seatTurns] = await Promise.all([
    store.changesOfRound(round.id),
    store.resultsOfRound(round.id),
    historyRound(store, round),
    store.roundMembers(round.id),
    store.roleChangesOfRound(round.id),
    store.forksOf(round.id),
    store.seatTurnsOfRound(round.id),
  ]);
  const minutes = await minutesOf(history.teams.map((t) => t.teamId));
  const resultOf = new Map(results.map((r) => [r.teamId, r]));
  const goalOrder = def.goals.map((g) => g.id);
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
      const res = resultOf.get(t.teamId);
      const read = minutes.get(t.teamId) ?? { columns: toColumns([]), chapters: [] };
      return {
        teamId: t.teamId,
        idx: t.idx,
        name: t.name,
        whatIf: t.whatIf,
        members: membersOf(t.teamId),
        columns: read.columns,
        changes: changes.filter((c) => c.teamId === t.teamId && c.minute <= round.minute),
        roleChanges: roleChanges.filter((c) => c.teamId === t.teamId),
        seatTurns: seatTurns.filter((s) => s.teamId === t.teamId),
        result: res
          ? {
              goals: [...res.goals].sort((a, b) => goalOrder.indexOf(a.id) - goalOrder.indexOf(b.id)),
              score: res.score,
            }
          : null,
        chapters: read.chapters,
        baseline,
      };
    }),
    forks: forkList.filter((f): f is ForkInfo => f !== null),
    origin: round.forkOf ? await forkInfo(store, round.forkOf.roundId, round.forkOf) : null,
    standing: standingOf(history),
    ...(own ? { own } : {}),
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
