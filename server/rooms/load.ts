// A room's state read back from the database. A started round is rebuilt by re-simulating every team
// from its seed and recorded changes, and each minute is compared with the stored snapshot.
import type { RoomRecord, RoundRecord, Store } from '../db/store.ts';
import { rebuildTeam, roundRun } from './round.ts';
import type { RoomState, RoundRun, TeamRun } from './state.ts';

/** Minutes whose re-simulation differs from what was stored, by team. */
export type Mismatches = { teamId: number; minutes: number[] }[];

export async function loadRound(store: Store, row: RoundRecord): Promise<{ round: RoundRun; mismatches: Mismatches }> {
  const base = roundRun(row);
  if (row.state === 'lobby') return { round: base, mismatches: [] };
  const seed = row.seed;
  if (seed === null) throw new Error(`round ${row.id} is ${row.state} but has no seed`);
  const [changes, snapshots, seats] = await Promise.all([store.changesOfRound(row.id), store.snapshotsOfRound(row.id), store.roundTeams(row.id)]);
  const stored = new Map<number, Map<number, string>>();
  for (const s of snapshots) {
    let m = stored.get(s.teamId);
    if (!m) stored.set(s.teamId, (m = new Map()));
    m.set(s.minute, s.data);
  }
  const teams = new Map<number, TeamRun>();
  const mismatches: Mismatches = [];
  for (const rt of seats) {
    const mine = changes.filter((c) => c.teamId === rt.teamId);
    const seat = { teamId: rt.teamId, idx: rt.idx, name: rt.name };
    const { team, mismatches: bad } = rebuildTeam(base, seat, seed, mine, stored.get(rt.teamId) ?? new Map(), row.minute);
    if (bad.length) mismatches.push({ teamId: rt.teamId, minutes: bad });
    teams.set(rt.teamId, team);
  }
  return { round: { ...base, teams }, mismatches };
}

/** The room as the database has it, with its latest round. */
export async function loadRoom(store: Store, row: RoomRecord): Promise<{ state: RoomState; mismatches: Mismatches }> {
  const [teams, players, latest] = await Promise.all([store.teamsOfRoom(row.id), store.playersOfRoom(row.id), store.latestRound(row.id)]);
  if (!latest) throw new Error(`room ${row.code} has no round`);
  const { round, mismatches } = await loadRound(store, latest);
  const state: RoomState = {
    id: row.id,
    code: row.code,
    teacherId: row.teacherId,
    config: row.config,
    teams: teams.map((t) => ({ id: t.id, idx: t.idx, name: t.name })),
    players: new Map(players.map((p) => [p.id, { id: p.id, name: p.name, teamId: p.teamId, seq: p.seq, roles: p.roles, removed: p.removed }])),
    round,
  };
  return { state, mismatches };
}
