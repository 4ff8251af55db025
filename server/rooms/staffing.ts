// The people side of a room: seating students in teams, dealing roles, moving and removing people.
// Every change is written to the database with the roster it changes.
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { LIMITS, type TeamHistory } from '../../shared/protocol/types.ts';
import type { SimModel } from '../../shared/sim/types.ts';
import type { Store } from '../db/store.ts';
import type { Clock } from './clock.ts';
import type { RoomOutput } from './output.ts';
import type { PlayerState, Roster } from './roster.ts';

const fail = (code: ErrorCode, message: string): never => {
  throw new ClassroomError(code, message);
};

export interface StaffingContext {
  store: Store;
  out: RoomOutput;
  clock: Clock;
  roomId: number;
  code: string;
  roster: Roster;
  model(): SimModel<any>;
  teamCount(): number;
  /** The team's round so far, for a student who arrives in it mid-round. */
  historyOf(teamId: number): TeamHistory | null;
  /** Whether the team plays the current round (any team, in the lobby). */
  playsRound(teamId: number): boolean;
}

export class Staffing {
  constructor(private readonly ctx: StaffingContext) {}

  /** Reads players and teams from the database (on load, or after a failed transaction). */
  reload(): void {
    const { store, roster, roomId } = this.ctx;
    roster.teams = store.teamsOfRoom(roomId).map((t) => ({ id: t.id, idx: t.idx, name: t.name }));
    roster.players.clear();
    for (const p of store.playersOfRoom(roomId)) {
      roster.players.set(p.id, { id: p.id, name: p.name, teamId: p.teamId, seq: p.seq, roles: JSON.parse(p.roles), removed: p.removed });
    }
  }

  private persistRoles(changed: PlayerState[]): void {
    for (const p of changed) this.ctx.store.updatePlayer(p.id, { roles: p.roles });
  }
  redealAll(): void {
    for (const t of this.ctx.roster.activeTeams(this.ctx.teamCount())) this.persistRoles(this.ctx.roster.redeal(t.id, this.ctx.model()));
  }

  /** A new student, seated in the smallest playing team. */
  addStudent(name: string, tokenHash: string): PlayerState {
    const { store, roster, clock } = this.ctx;
    if (roster.activePlayers().length >= LIMITS.maxPlayers) fail(ErrorCode.ROOM_FULL, `the room is full (${LIMITS.maxPlayers} players)`);
    const team = roster.teamWithRoom(this.ctx.teamCount(), LIMITS.maxTeamSize);
    if (!team) return fail(ErrorCode.ROOM_FULL, `every team is full (${LIMITS.maxTeamSize} players each); the teacher can add teams`);
    const player = store.transaction(() => {
      const row = store.createPlayer({ roomId: this.ctx.roomId, teamId: team.id, name, tokenHash, seq: roster.nextSeq(team.id), roles: [], joinedAt: clock.now() });
      const p: PlayerState = { id: row.id, name, teamId: team.id, seq: row.seq, roles: [], removed: false };
      roster.players.set(p.id, p);
      this.persistRoles(roster.redeal(team.id, this.ctx.model()));
      return p;
    });
    this.ctx.out.placePlayer(this.ctx.code, player.id, player.teamId);
    return player;
  }

  /** Grows or shrinks the playing teams (lobby only); members of dropped teams are seated anew. */
  setTeamCount(n: number): void {
    const { store, roster } = this.ctx;
    while (roster.teams.length < n) {
      const row = store.createTeam(this.ctx.roomId, roster.teams.length, '');
      roster.teams.push({ id: row.id, idx: row.idx, name: row.name });
    }
    for (const t of roster.teams.filter((t) => t.idx >= n)) {
      for (const p of roster.members(t.id)) {
        const dest = roster.teamWithRoom(n, LIMITS.maxTeamSize);
        if (!dest) return fail(ErrorCode.ROOM_FULL, `not enough seats in ${n} teams for everyone`);
        this.place(p, dest.id);
      }
    }
    this.redealAll();
  }

  /** Seats a player at the end of a team; both teams' roles are dealt again. */
  private place(p: PlayerState, teamId: number): void {
    const { store, roster, out, code } = this.ctx;
    const from = p.teamId;
    p.teamId = teamId;
    p.seq = roster.nextSeq(teamId);
    p.roles = [];
    store.updatePlayer(p.id, { teamId, seq: p.seq, roles: [] });
    if (from !== null) this.persistRoles(roster.redeal(from, this.ctx.model()));
    this.persistRoles(roster.redeal(teamId, this.ctx.model()));
    out.placePlayer(code, p.id, teamId);
    const history = this.ctx.historyOf(teamId);
    if (history) out.emit(code, { kind: 'player', playerId: p.id }, 'history', history);
  }

  private player(playerId: number): PlayerState {
    const p = this.ctx.roster.players.get(playerId);
    if (!p || p.removed) return fail(ErrorCode.PLAYER_NOT_FOUND, `no player ${playerId} in this room`);
    return p;
  }

  move(playerId: number, teamId: number): void {
    const { roster, store } = this.ctx;
    const p = this.player(playerId);
    if (!roster.activeTeams(this.ctx.teamCount()).some((t) => t.id === teamId) || !this.ctx.playsRound(teamId)) {
      fail(ErrorCode.TEAM_NOT_FOUND, `no team ${teamId} plays in this room`);
    }
    if (p.teamId === teamId) return;
    if (roster.members(teamId).length >= LIMITS.maxTeamSize) fail(ErrorCode.TEAM_FULL, `that team is full (${LIMITS.maxTeamSize})`);
    store.transaction(() => this.place(p, teamId));
  }

  rename(teamId: number, name: string): void {
    const team = this.ctx.roster.team(teamId);
    if (!team || team.idx >= this.ctx.teamCount()) return fail(ErrorCode.TEAM_NOT_FOUND, `no team ${teamId} in this room`);
    this.ctx.store.renameTeam(teamId, name);
    team.name = name;
  }

  remove(playerId: number): void {
    const { store, roster, out, code } = this.ctx;
    const p = this.player(playerId);
    store.transaction(() => {
      p.removed = true;
      p.roles = [];
      store.updatePlayer(p.id, { removed: true, roles: [] });
      if (p.teamId !== null) this.persistRoles(roster.redeal(p.teamId, this.ctx.model()));
    });
    out.emit(code, { kind: 'player', playerId }, 'notice', { code: ErrorCode.REMOVED, message: 'the teacher removed you from the room' });
    out.dropPlayer(code, playerId);
  }
}
