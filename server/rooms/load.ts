// A room's state read back from the database, a team at a time with the event loop free in between
// (other rooms' minutes go out meanwhile). A running or paused round is rebuilt by re-simulating every
// team from its seed and recorded changes (it goes on from there), each minute compared with the stored
// snapshot. A finished round never steps again: its stored minutes are read as they are — a parse instead
// of a whole round's simulation, and anyone who knows a room's code can make the server load it.
// `verify-replays` still re-simulates finished rounds (`resimulate`).
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { SeatPilot } from '../../shared/protocol/types.ts';
import type { RoomRecord, RoundRecord } from '../db/records.ts';
import type { Store } from '../db/store.ts';
import { AppendOnly } from './append-only.ts';
import { storedConfig } from './config.ts';
import { rebuildTeam, roundRun, storedTeam, withStoredResult } from './round.ts';
import { roundContent } from './scenario-content.ts';
import { memberKey, type RoomState, type RoundRun, type TeamRun } from './state.ts';

/** Minutes whose re-simulation differs from what was stored, by team. */
export type Mismatches = { teamId: number; minutes: number[] }[];

/** What the round's record keeps besides its minutes: role changes, members, messages. */
async function roundRecord(store: Store, row: RoundRecord): Promise<RoundRun> {
  const [roleChanges, members, messages, seatTurns, content] = await Promise.all([
    store.roleChangesOfRound(row.id),
    store.roundMembers(row.id),
    store.messagesOfRound(row.id),
    store.seatTurnsOfRound(row.id),
    roundContent(store, row),
  ]);
  return {
    ...roundRun(row, content),
    roleChanges: AppendOnly.of(roleChanges),
    members: new Map(members.map((m) => [memberKey(m.teamId, m.playerId), m])),
    messages: AppendOnly.of(messages),
    seatTurns: AppendOnly.of(seatTurns),
  };
}

export interface LoadOptions {
  /** Re-simulate a finished round too, and compare (verify-replays). */
  resimulate?: boolean;
}

export async function loadRound(
  store: Store,
  row: RoundRecord,
  opts: LoadOptions = {},
): Promise<{ round: RoundRun; mismatches: Mismatches }> {
  const base = await roundRecord(store, row);
  if (row.state === 'lobby') return { round: base, mismatches: [] };
  const seed = row.seed;
  if (seed === null) throw new Error(`round ${row.id} is ${row.state} but has no seed`);
  const [changes, seats, results] = await Promise.all([
    store.changesOfRound(row.id),
    store.roundTeams(row.id),
    row.state === 'finished' ? store.resultsOfRound(row.id) : Promise.resolve([]),
  ]);
  // A finished round keeps the verdict it was given (rounds scored before the baseline existed too).
  const resultOf = new Map(results.map((r) => [r.teamId, r]));
  const fromStore = row.state === 'finished' && !opts.resimulate;
  const teams = new Map<number, TeamRun>();
  const mismatches: Mismatches = [];
  for (const rt of seats) {
    if (teams.size > 0) await nextTurn();
    const mine = changes.filter((c) => c.teamId === rt.teamId);
    const seat = { teamId: rt.teamId, idx: rt.idx, name: rt.name };
    const minutes = new Map(
      (await store.snapshotsOfRound(row.id, { teamId: rt.teamId })).map((s) => [s.minute, s.data]),
    );
    // A finished team with a minute missing from the store is re-simulated, so that it is whole.
    const read = fromStore ? storedTeam(base, seat, mine, minutes, row.minute) : null;
    if (read) {
      teams.set(rt.teamId, withStoredResult(read, resultOf.get(rt.teamId)));
      continue;
    }
    const { team, mismatches: bad } = rebuildTeam(base, seat, seed, mine, minutes, row.minute);
    if (bad.length) mismatches.push({ teamId: rt.teamId, minutes: bad });
    teams.set(rt.teamId, withStoredResult(team, resultOf.get(rt.teamId)));
  }
  const changeSeq = changes.reduce((n, c) => Math.max(n, c.seq), 0);
  return { round: { ...base, teams, changeSeq }, mismatches };
}

/** The room as the database has it, with its latest round. */
export async function loadRoom(store: Store, row: RoomRecord): Promise<{ state: RoomState; mismatches: Mismatches }> {
  const [teams, players, latest] = await Promise.all([
    store.teamsOfRoom(row.id),
    store.playersOfRoom(row.id),
    store.latestRound(row.id),
  ]);
  if (!latest) throw new Error(`room ${row.code} has no round`);
  const { round, mismatches } = await loadRound(store, latest);
  // Each seat's pilot is its last turn in the round (none: its student plays it).
  const pilots = new Map<number, SeatPilot | null>();
  const bots = new Map<number, SeatPilot['skill']>();
  for (const t of round.seatTurns) {
    if (t.playerId === null) continue;
    pilots.set(t.playerId, t.pilot);
    if (t.pilot?.reason === 'bot') bots.set(t.playerId, t.pilot.skill);
  }
  const state: RoomState = {
    id: row.id,
    code: row.code,
    teacherId: row.teacherId,
    config: storedConfig(row.config, round.content),
    teams: teams.map((t) => ({ id: t.id, idx: t.idx, name: t.name, whatIf: t.whatIf })),
    players: new Map(
      players.map((p) => [
        p.id,
        {
          id: p.id,
          name: p.name,
          teamId: p.teamId,
          seq: p.seq,
          roles: p.roles,
          removed: p.removed,
          pilot: p.removed ? null : (pilots.get(p.id) ?? null),
          bot: bots.get(p.id) ?? null,
        },
      ]),
    ),
    round,
    locked: row.locked,
    replayShared: row.replayShared,
  };
  return { state, mismatches };
}
