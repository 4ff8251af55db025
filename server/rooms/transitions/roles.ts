// Roles changing hands inside a transition: the moves of roles.ts applied to the players, stored
// (a row per move, and each member's roles of the round), announced to the team and the teacher at
// once with who got what from whom — and the teacher's own command to give a role to a student.
import { ClassroomError, ErrorCode } from '../../../shared/protocol/errors.ts';
import type { RoleChange, RoleChangeReason, Who } from '../../../shared/protocol/types.ts';
import type { RoundMemberRecord } from '../../db/records.ts';
import { emit } from '../output.ts';
import { unchanged, type Transition, type TransitionCtx } from '../commands.ts';
import { dealAll, handOver, takeIn, type RoleMove } from '../roles.ts';
import { activeTeams, members } from '../roster.ts';
import { memberKey, type PlayerState, type RoomState } from '../state.ts';
import { Draft } from './draft.ts';

const roleIds = (s: RoomState): string[] => s.round.model.roles.map((r) => r.id);

/** Running or paused: what happens to roles is part of the round's record. */
const inRound = (s: RoomState): boolean => s.round.state === 'running' || s.round.state === 'paused';

function who(s: RoomState, playerId: number | null): Who | null {
  const p = playerId === null ? undefined : s.players.get(playerId);
  return p ? { playerId: p.id, name: p.name } : null;
}

/**
 * The round's member records of these players in this team: added when new (from the start of a
 * round on), with every role they hold now added to the ones they held.
 */
export function recordMembers(d: Draft, teamId: number, playerIds: readonly number[]): void {
  const r = d.state.round;
  if (!inRound(d.state) || !r.teams.has(teamId)) return;
  const next = new Map(r.members);
  const changed: RoundMemberRecord[] = [];
  for (const id of playerIds) {
    const p = d.state.players.get(id);
    if (!p) continue;
    const k = memberKey(teamId, id);
    const had = next.get(k);
    const seq = had?.seq ?? [...next.values()].filter((m) => m.teamId === teamId).length + 1;
    const held = new Set([...(had?.roles ?? []), ...p.roles]);
    const roles = roleIds(d.state).filter((role) => held.has(role));
    if (had && had.roles.join() === roles.join()) continue;
    const rec = { teamId, playerId: id, seq, name: had?.name ?? p.name, roles };
    next.set(k, rec);
    changed.push(rec);
  }
  if (!changed.length) return;
  d.patchRound({ members: next });
  d.write({ op: 'upsertRoundMembers', roundId: r.id, members: changed });
}

/**
 * Applies role moves within one team: the players' roles (in the model's order), one stored row per
 * move (not once the round is finished: the next round's start records the roles it begins with),
 * and a `roles` event to the team and the teacher. `reset`: everyone's roles are cleared first (a
 * new simulator's deal).
 */
export function applyRoleMoves(
  d: Draft,
  teamId: number,
  moves: readonly RoleMove[],
  reason: RoleChangeReason,
  ctx: TransitionCtx,
  reset = false,
): void {
  if (!moves.length && !reset) return;
  const ids = roleIds(d.state);
  const next = new Map<number, Set<string>>();
  const rolesOf = (id: number) => {
    let set = next.get(id);
    if (!set) {
      set = new Set(reset ? [] : (d.state.players.get(id)?.roles ?? []));
      next.set(id, set);
    }
    return set;
  };
  if (reset) for (const p of members(d.state, teamId)) rolesOf(p.id);
  const r = d.state.round;
  const changes: RoleChange[] = moves.map((m) => {
    if (m.from !== null) rolesOf(m.from).delete(m.role);
    if (m.to !== null) rolesOf(m.to).add(m.role);
    return {
      roundId: r.id,
      teamId,
      minute: r.minute + 1,
      role: m.role,
      from: who(d.state, m.from),
      to: who(d.state, m.to),
      reason,
      at: ctx.now,
    };
  });
  d.updatePlayers([...next].map(([id, set]) => ({ id, set: { roles: ids.filter((role) => set.has(role)) } })));
  if (r.state !== 'finished' && changes.length) {
    d.patchRound({ roleChanges: changes.reduce((list, c) => list.append(c), d.state.round.roleChanges) });
    d.write({ op: 'insertRoleChanges', changes });
  }
  recordMembers(
    d,
    teamId,
    moves.flatMap((m) => (m.to === null ? [] : [m.to])),
  );
  if (changes.length) {
    const payload = { roundId: r.id, teamId, changes };
    d.send(emit({ kind: 'team', teamId }, 'roles', payload), emit({ kind: 'teacher' }, 'roles', payload));
  }
}

/** A member leaving their team (removed, or moved): each of their roles goes to a teammate. */
export function handOverRoles(d: Draft, leaver: PlayerState, reason: 'remove' | 'move', ctx: TransitionCtx): void {
  if (leaver.teamId === null || !leaver.roles.length) return;
  applyRoleMoves(d, leaver.teamId, handOver(d.state, leaver, ctx.connected), reason, ctx);
}

/** A member new to their team: the roles nobody owns and, outside a round, a fair share of the others. */
export function takeRoles(d: Draft, playerId: number, reason: 'join' | 'move', ctx: TransitionCtx): void {
  const p = d.state.players.get(playerId);
  if (!p || p.teamId === null) return;
  recordMembers(d, p.teamId, [p.id]);
  applyRoleMoves(d, p.teamId, takeIn(d.state, p, roleIds(d.state), !inRound(d.state)), reason, ctx);
}

/** A new simulator's roles dealt to every playing team (lobby only). */
export function dealEveryTeam(d: Draft, ctx: TransitionCtx): void {
  for (const t of activeTeams(d.state, d.state.config.teamCount))
    applyRoleMoves(d, t.id, dealAll(d.state, t.id, roleIds(d.state)), 'deal', ctx, true);
}

/** At the start of a round: every member of a playing team, and who holds each role (`start` rows). */
export function recordStart(d: Draft, ctx: TransitionCtx): void {
  const r = d.state.round;
  const changes: RoleChange[] = [];
  for (const teamId of r.teams.keys()) {
    const list = members(d.state, teamId);
    recordMembers(
      d,
      teamId,
      list.map((p) => p.id),
    );
    for (const role of roleIds(d.state)) {
      const owner = list.find((p) => p.roles.includes(role));
      if (owner)
        changes.push({
          roundId: r.id,
          teamId,
          minute: 0,
          role,
          from: null,
          to: who(d.state, owner.id),
          reason: 'start',
          at: ctx.now,
        });
    }
  }
  if (!changes.length) return;
  d.patchRound({ roleChanges: changes.reduce((list, c) => list.append(c), d.state.round.roleChanges) });
  d.write({ op: 'insertRoleChanges', changes });
}

/** The teacher gives a role to a student of a playing team; whoever in the team held it loses it. */
export const assign: Transition<'assign'> = (s, cmd, ctx) => {
  const p = s.players.get(cmd.playerId);
  if (!p || p.removed) throw new ClassroomError(ErrorCode.PLAYER_NOT_FOUND, `no player ${cmd.playerId} in this room`);
  const ids = roleIds(s);
  if (!ids.includes(cmd.role))
    throw new ClassroomError(
      ErrorCode.BAD_REQUEST,
      `unknown role "${cmd.role}": ${s.round.simulator} has ${ids.join(', ')}`,
    );
  const playing = inRound(s)
    ? p.teamId !== null && s.round.teams.has(p.teamId)
    : activeTeams(s, s.config.teamCount).some((t) => t.id === p.teamId);
  if (!playing || p.teamId === null)
    throw new ClassroomError(ErrorCode.NOT_IN_TEAM, `${p.name} is not in a team that plays`);
  if (p.roles.includes(cmd.role)) return unchanged(s);
  const owner = members(s, p.teamId).find((m) => m.roles.includes(cmd.role));
  const d = new Draft(s);
  applyRoleMoves(d, p.teamId, [{ role: cmd.role, from: owner?.id ?? null, to: p.id }], 'assign', ctx);
  d.send({ kind: 'room' });
  return d.done(undefined);
};
