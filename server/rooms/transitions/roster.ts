// The people side of a room: seating a new student, moving, renaming, removing. Every seat change
// deals the team's roles again; every change is written with the roster it changes.
import { ClassroomError, ErrorCode } from '../../../shared/protocol/errors.ts';
import { LIMITS } from '../../../shared/protocol/types.ts';
import type { IdSource } from '../../db/writes.ts';
import { emit, unchanged, type Transition } from '../commands.ts';
import { activePlayers, activeTeams, members, nextSeq, redeal, teamWithRoom } from '../roster.ts';
import type { PlayerState, RoomState } from '../state.ts';
import { teamHistory } from '../views.ts';
import { Draft } from './draft.ts';

const fail = (code: ErrorCode, message: string): never => {
  throw new ClassroomError(code, message);
};

function player(s: RoomState, playerId: number): PlayerState {
  const p = s.players.get(playerId);
  if (!p || p.removed) return fail(ErrorCode.PLAYER_NOT_FOUND, `no player ${playerId} in this room`);
  return p;
}

/** Seats a player at the end of a team and deals both teams' roles again. */
export function seat(d: Draft, p: PlayerState, teamId: number): void {
  const from = p.teamId;
  d.updatePlayers([{ id: p.id, set: { teamId, seq: nextSeq(d.state, teamId), roles: [] } }]);
  if (from !== null) d.updatePlayers(redeal(d.state, from, d.state.round.model));
  d.updatePlayers(redeal(d.state, teamId, d.state.round.model));
  d.send({ kind: 'place', playerId: p.id, teamId });
  const run = d.state.round.teams.get(teamId);
  if (run) d.send(emit({ kind: 'player', playerId: p.id }, 'history', teamHistory(d.state.round.id, run)));
}

export const join: Transition<'join'> = (s, cmd, ctx) => {
  if (activePlayers(s).length >= LIMITS.maxPlayers) fail(ErrorCode.ROOM_FULL, `the room is full (${LIMITS.maxPlayers} players)`);
  const team = teamWithRoom(s, s.config.teamCount, LIMITS.maxTeamSize);
  if (!team) return fail(ErrorCode.ROOM_FULL, `every team is full (${LIMITS.maxTeamSize} players each); the teacher can add teams`);
  const fresh: PlayerState = { id: ctx.ids.next('players'), name: cmd.name, teamId: team.id, seq: nextSeq(s, team.id), roles: [], removed: false };
  // The newcomer is stored with the roles the deal gives them; teammates whose roles change are updated.
  const deal = redeal({ teams: s.teams, players: new Map(s.players).set(fresh.id, fresh) }, team.id, s.round.model);
  const p: PlayerState = { ...fresh, roles: deal.find((u) => u.id === fresh.id)?.set.roles ?? [] };
  const d = new Draft(s);
  const { id, name, seq, roles } = p;
  d.addPlayer(p, { op: 'insertPlayer', id, roomId: s.id, teamId: team.id, name, tokenHash: cmd.tokenHash, seq, roles, joinedAt: ctx.now });
  d.updatePlayers(deal.filter((u) => u.id !== p.id));
  d.send({ kind: 'place', playerId: p.id, teamId: team.id }, { kind: 'room' });
  return d.done(p);
};

export const move: Transition<'move'> = (s, cmd) => {
  const p = player(s, cmd.playerId);
  const plays = s.round.state === 'lobby' || s.round.teams.has(cmd.teamId);
  const active = activeTeams(s, s.config.teamCount).some((t) => t.id === cmd.teamId);
  if (!active || !plays) fail(ErrorCode.TEAM_NOT_FOUND, `no team ${cmd.teamId} plays in this room`);
  if (p.teamId === cmd.teamId) return unchanged(s);
  if (members(s, cmd.teamId).length >= LIMITS.maxTeamSize) fail(ErrorCode.TEAM_FULL, `that team is full (${LIMITS.maxTeamSize})`);
  const d = new Draft(s);
  seat(d, p, cmd.teamId);
  d.send({ kind: 'room' });
  return d.done(undefined);
};

export const rename: Transition<'rename'> = (s, cmd) => {
  const team = s.teams.find((t) => t.id === cmd.teamId);
  if (!team || team.idx >= s.config.teamCount) return fail(ErrorCode.TEAM_NOT_FOUND, `no team ${cmd.teamId} in this room`);
  const d = new Draft(s);
  d.patch({ teams: s.teams.map((t) => (t.id === team.id ? { ...t, name: cmd.name } : t)) });
  d.write({ op: 'renameTeam', teamId: team.id, name: cmd.name });
  // A round under way shows (and records) the new name; a finished one keeps the name it was played under.
  const r = s.round;
  const run = r.teams.get(team.id);
  if (run && r.state !== 'finished') {
    d.patchRound({ teams: new Map(r.teams).set(team.id, { ...run, name: cmd.name }) });
    d.write({ op: 'renameRoundTeam', roundId: r.id, teamId: team.id, name: cmd.name });
  }
  d.send({ kind: 'room' });
  return d.done(undefined);
};

export const remove: Transition<'remove'> = (s, cmd) => {
  const p = player(s, cmd.playerId);
  const d = new Draft(s);
  d.updatePlayers([{ id: p.id, set: { removed: true, roles: [] } }]);
  if (p.teamId !== null) d.updatePlayers(redeal(d.state, p.teamId, s.round.model));
  d.send(
    emit({ kind: 'player', playerId: p.id }, 'notice', { code: ErrorCode.REMOVED, message: 'the teacher removed you from the room' }),
    { kind: 'drop', playerId: p.id },
    { kind: 'room' },
  );
  return d.done(undefined);
};

/** Grows or shrinks the playing teams (lobby only): new team rows, members of dropped teams seated anew, roles dealt again. */
export function setTeamCount(d: Draft, n: number, ids: IdSource): void {
  const s = d.state;
  if (s.teams.length < n) {
    const added = Array.from({ length: n - s.teams.length }, (_, i) => ({ id: ids.next('teams'), idx: s.teams.length + i, name: '' }));
    d.patch({ teams: [...s.teams, ...added] });
    d.write(...added.map((t) => ({ op: 'insertTeam' as const, id: t.id, roomId: s.id, idx: t.idx, name: t.name })));
  }
  for (const t of d.state.teams.filter((x) => x.idx >= n)) {
    for (const p of members(d.state, t.id)) {
      const dest = teamWithRoom(d.state, n, LIMITS.maxTeamSize);
      if (!dest) return fail(ErrorCode.ROOM_FULL, `not enough seats in ${n} teams for everyone`);
      seat(d, p, dest.id);
    }
  }
  for (const t of activeTeams(d.state, n)) d.updatePlayers(redeal(d.state, t.id, d.state.round.model));
}
