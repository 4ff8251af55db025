// The people side of a room: seating a new student, moving, renaming, removing. Roles stay with
// their owners (transitions/roles.ts says when they change hands); names are unique in a team.
import { ClassroomError, ErrorCode } from '../../../shared/protocol/errors.ts';
import { LIMITS } from '../../../shared/protocol/types.ts';
import type { IdSource } from '../../db/writes.ts';
import { emit } from '../output.ts';
import { unchanged, type Transition, type TransitionCtx } from '../commands.ts';
import { activePlayers, activeTeams, members, nextSeq, teamWithRoom, uniqueName } from '../roster.ts';
import { withTeam } from '../round.ts';
import type { PlayerState, RoomState } from '../state.ts';
import { Draft } from './draft.ts';
import { handOverRoles, takeRoles } from './roles.ts';

function fail(code: ErrorCode, message: string): never {
  throw new ClassroomError(code, message);
}

function player(s: RoomState, playerId: number): PlayerState {
  const p = s.players.get(playerId);
  if (!p || p.removed) return fail(ErrorCode.PLAYER_NOT_FOUND, `no player ${playerId} in this room`);
  return p;
}

/**
 * Seats a player at the end of another team: their roles go to teammates in the team they leave,
 * they take what the new team has for a newcomer, and their name takes a suffix if it is taken there.
 */
export function seat(d: Draft, p: PlayerState, teamId: number, ctx: TransitionCtx): void {
  // A team that no longer plays (fewer teams in the lobby) has no roles to hand over.
  if (activeTeams(d.state, d.state.config.teamCount).some((t) => t.id === p.teamId)) handOverRoles(d, p, 'move', ctx);
  const name = uniqueName(d.state, teamId, p.name, p.id);
  d.updatePlayers([
    { id: p.id, set: { teamId, seq: nextSeq(d.state, teamId), roles: [], ...(name !== p.name ? { name } : {}) } },
  ]);
  takeRoles(d, p.id, 'move', ctx);
  d.send({ kind: 'place', playerId: p.id, teamId });
  if (d.state.round.teams.has(teamId)) d.send({ kind: 'history', playerId: p.id });
}

export const join: Transition<'join'> = (s, cmd, ctx) => {
  if (s.locked) fail(ErrorCode.ROOM_LOCKED, 'the teacher has locked this room to new students');
  if (activePlayers(s).length >= LIMITS.maxPlayers)
    fail(ErrorCode.ROOM_FULL, `the room is full (${LIMITS.maxPlayers} players)`);
  const team = teamWithRoom(s, s.config.teamCount, LIMITS.maxTeamSize);
  if (!team)
    return fail(
      ErrorCode.ROOM_FULL,
      `every team is full (${LIMITS.maxTeamSize} players each); the teacher can add teams`,
    );
  const name = uniqueName(s, team.id, cmd.name);
  const fresh: PlayerState = {
    id: ctx.ids.next('players'),
    name,
    teamId: team.id,
    seq: nextSeq(s, team.id),
    roles: [],
    removed: false,
    pilot: null,
    bot: null,
  };
  const d = new Draft(s);
  const { id, seq } = fresh;
  d.addPlayer(fresh, {
    op: 'insertPlayer',
    id,
    roomId: s.id,
    teamId: team.id,
    name,
    tokenHash: cmd.tokenHash,
    seq,
    roles: [],
    joinedAt: ctx.now,
  });
  takeRoles(d, id, 'join', ctx);
  d.send({ kind: 'place', playerId: id, teamId: team.id }, { kind: 'room' });
  return d.done(player(d.state, id));
};

export const move: Transition<'move'> = (s, cmd, ctx) => {
  const p = player(s, cmd.playerId);
  const plays = s.round.state === 'lobby' || s.round.teams.has(cmd.teamId);
  const active = activeTeams(s, s.config.teamCount).some((t) => t.id === cmd.teamId);
  if (!active || !plays) fail(ErrorCode.TEAM_NOT_FOUND, `no team ${cmd.teamId} plays in this room`);
  if (p.teamId === cmd.teamId) return unchanged(s);
  if (members(s, cmd.teamId).length >= LIMITS.maxTeamSize)
    fail(ErrorCode.TEAM_FULL, `that team is full (${LIMITS.maxTeamSize})`);
  const d = new Draft(s);
  seat(d, p, cmd.teamId, ctx);
  d.send({ kind: 'room' });
  return d.done(undefined);
};

export const rename: Transition<'rename'> = (s, cmd) => {
  const team = s.teams.find((t) => t.id === cmd.teamId);
  if (!team || team.idx >= s.config.teamCount)
    return fail(ErrorCode.TEAM_NOT_FOUND, `no team ${cmd.teamId} in this room`);
  const d = new Draft(s);
  d.patch({ teams: s.teams.map((t) => (t.id === team.id ? { ...t, name: cmd.name } : t)) });
  d.write({ op: 'renameTeam', teamId: team.id, name: cmd.name });
  // A round under way shows (and records) the new name; a finished one keeps the name it was played under.
  const r = s.round;
  const run = r.teams.get(team.id);
  if (run && r.state !== 'finished') {
    d.patchRound({ teams: new Map(r.teams).set(team.id, withTeam(run, { name: cmd.name })) });
    d.write({ op: 'renameRoundTeam', roundId: r.id, teamId: team.id, name: cmd.name });
  }
  d.send({ kind: 'room' });
  return d.done(undefined);
};

export const remove: Transition<'remove'> = (s, cmd, ctx) => {
  const p = player(s, cmd.playerId);
  const d = new Draft(s);
  handOverRoles(d, p, 'remove', ctx);
  d.updatePlayers([{ id: p.id, set: { removed: true, roles: [] } }]);
  d.send(
    emit({ kind: 'player', playerId: p.id }, 'notice', {
      code: ErrorCode.REMOVED,
      message: 'the teacher removed you from the room',
    }),
    { kind: 'drop', playerId: p.id },
    { kind: 'room' },
  );
  return d.done(undefined);
};

/** Grows or shrinks the playing teams (lobby only): new team rows, members of dropped teams seated anew. */
export function setTeamCount(d: Draft, n: number, ctx: TransitionCtx): void {
  const s = d.state;
  const ids: IdSource = ctx.ids;
  if (s.teams.length < n) {
    const added = Array.from({ length: n - s.teams.length }, (_, i) => ({
      id: ids.next('teams'),
      idx: s.teams.length + i,
      name: '',
      whatIf: null,
    }));
    d.patch({ teams: [...s.teams, ...added] });
    d.write(...added.map((t) => ({ op: 'insertTeam' as const, id: t.id, roomId: s.id, idx: t.idx, name: t.name })));
  }
  for (const t of d.state.teams.filter((x) => x.idx >= n)) {
    for (const p of members(d.state, t.id)) {
      const dest = teamWithRoom(d.state, n, LIMITS.maxTeamSize);
      if (!dest) fail(ErrorCode.ROOM_FULL, `not enough seats in ${n} teams for everyone`);
      seat(d, p, dest.id, ctx);
    }
  }
}
