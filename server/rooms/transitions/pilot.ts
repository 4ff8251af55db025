// Seats that never freeze. A seat (a student's roles in a team) may be played by someone other than its student:
// the autopilot — the role's policy (shared/policies) reading the role's own split view — or the teacher from
// the dashboard. A seat changes pilot by the teacher's hand, by its student's (to step out, or back), or by the
// room itself (a dropped seat after its grace; its student back). Each turn is stored and told to the team and
// the teacher; the autopilot's changes go through the one path of every change (control.ts) with their actor.
import { playSeat } from '../../../shared/classroom/autopilot.ts';
import { PolicyError } from '../../../shared/policies/index.ts';
import { ClassroomError, ErrorCode } from '../../../shared/protocol/errors.ts';
import type { Snapshot } from '../../../shared/sim/types.ts';
import { unchanged, type Transition, type TransitionCtx } from '../commands.ts';
import type { AutopilotMemory } from '../state.ts';
import { LIMITS } from '../../../shared/protocol/types.ts';
import { activePlayers, activeTeams, members, nextSeq } from '../roster.ts';
import type { PlayerState } from '../state.ts';
import { recordChange } from './control.ts';
import { applyRoleMoves } from './roles.ts';
import { setTeamCount } from './roster.ts';
import { nextMinute, turnSeat } from './seat-turn.ts';
import { Draft } from './draft.ts';

const fail = (code: ErrorCode, message: string): never => {
  throw new ClassroomError(code, message);
};

export const pilot: Transition<'pilot'> = (s, cmd, ctx) => {
  const p = s.players.get(cmd.playerId);
  if (!p || p.removed) return fail(ErrorCode.PLAYER_NOT_FOUND, `no player ${cmd.playerId} in this room`);
  const now = p.pilot;
  const want = cmd.pilot;
  if (cmd.by === 'room') {
    // The room's own turns: a dropped seat after its grace (only if nobody came back meanwhile), its student back.
    if (want) {
      const due =
        want.reason === 'dropped' &&
        now === null &&
        !ctx.connected(p.id) &&
        p.roles.length > 0 &&
        s.config.absence === 'autopilot' &&
        s.round.state === 'running' &&
        p.teamId !== null &&
        s.round.teams.has(p.teamId);
      if (!due) return unchanged(s);
    } else if (now?.reason !== 'dropped') return unchanged(s);
  } else if (cmd.by === 'student') {
    // A student steps out of their own seat (autopilot) or takes it back; never the teacher's play or a bot's seat.
    if (want && (want.kind !== 'autopilot' || want.reason !== 'self'))
      fail(ErrorCode.NOT_OWNER, 'a student can only hand their own seat to the autopilot');
    if (now?.kind === 'teacher') fail(ErrorCode.NOT_OWNER, 'the teacher is playing your seat just now');
    if (now?.reason === 'bot') fail(ErrorCode.NOT_OWNER, 'this seat is played by a bot');
    if (want && !p.roles.length) fail(ErrorCode.BAD_STATE, 'you have no role to hand to the autopilot');
  } else if (want && (p.teamId === null || !p.roles.length)) fail(ErrorCode.BAD_STATE, `${p.name} has no role to play`);
  if (s.round.state === 'finished' && want && want.reason !== 'bot')
    fail(ErrorCode.ROUND_FINISHED, 'the round is over: start the next one first');
  // A bot's seat handed back goes back to its bot.
  const next = want ?? (p.bot ? { kind: 'autopilot', skill: p.bot, reason: 'bot' } : null);
  if (now?.kind === next?.kind && now?.skill === next?.skill && now?.reason === next?.reason) return unchanged(s);
  const d = new Draft(s);
  turnSeat(d, p, next && { ...next, since: ctx.now, minute: nextMinute(s) }, ctx.now);
  return d.done(undefined);
};

/** Rehearsal and practice: every playing team's free roles get a bot each, of the team's skill. */
export const bots: Transition<'bots'> = (s, cmd, ctx) => {
  if (s.config.purpose === 'class')
    fail(ErrorCode.BAD_STATE, 'bot teams are for rehearsals and practice, not for a class');
  if (s.round.state !== 'lobby') fail(ErrorCode.BAD_STATE, 'bots join before the round starts');
  const roles = s.round.model.roles.map((r) => r.id);
  const d = new Draft(s);
  // Practice at one role: the one person keeps it, and bots take the others.
  if (cmd.role !== undefined) {
    const role = cmd.role;
    if (!roles.includes(role)) fail(ErrorCode.BAD_REQUEST, `unknown role "${role}"`);
    const [me, ...others] = activePlayers(s).filter((p) => p.bot === null);
    if (!me || others.length || me.teamId === null) fail(ErrorCode.BAD_STATE, 'one role with bots is practice alone');
    const team = me.teamId as number;
    const give = me.roles.filter((r) => r !== role).map((r) => ({ role: r, from: me.id, to: null }));
    const take = me.roles.includes(role) ? [] : [{ role, from: null, to: me.id }];
    applyRoleMoves(d, team, [...give, ...take], 'deal', ctx);
  }
  if (cmd.teams.length !== s.config.teamCount) {
    const config = { ...s.config, teamCount: cmd.teams.length };
    d.patch({ config });
    d.write({ op: 'setRoomConfig', roomId: s.id, config });
    setTeamCount(d, cmd.teams.length, ctx);
  }
  let n = [...d.state.players.values()].filter((p) => p.bot !== null).length;
  for (const [i, team] of activeTeams(d.state, cmd.teams.length).entries()) {
    const skill = cmd.teams[i];
    const people = members(d.state, team.id);
    // Bots already there play with the team's (new) skill.
    for (const b of people.filter((p) => p.bot !== null && p.bot !== skill)) {
      d.setBot(b.id, skill);
      turnSeat(
        d,
        d.state.players.get(b.id) ?? b,
        { kind: 'autopilot', skill, reason: 'bot', since: ctx.now, minute: 0 },
        ctx.now,
      );
    }
    const held = new Set(people.flatMap((p) => p.roles));
    for (const role of roles.filter((r) => !held.has(r))) {
      if (activePlayers(d.state).length >= LIMITS.maxPlayers)
        fail(ErrorCode.ROOM_FULL, `the room is full (${LIMITS.maxPlayers} players)`);
      const id = ctx.ids.next('players');
      n++;
      const bot: PlayerState = {
        id,
        name: `Bot ${n}`,
        teamId: team.id,
        seq: nextSeq(d.state, team.id),
        roles: [role],
        removed: false,
        pilot: { kind: 'autopilot', skill, reason: 'bot', since: ctx.now, minute: 0 },
        bot: skill,
      };
      // No token opens a bot's seat: a student's token hash is hex, never this.
      d.addPlayer(bot, {
        op: 'insertPlayer',
        id,
        roomId: s.id,
        teamId: team.id,
        name: bot.name,
        tokenHash: `bot:${s.id}:${id}`,
        seq: bot.seq,
        roles: [role],
        joinedAt: ctx.now,
      });
      turnSeat(d, bot, bot.pilot, ctx.now);
    }
  }
  d.send({ kind: 'room' });
  return d.done(undefined);
};

/** "Ask the team": a teammate takes every role of a seat whose student has been gone past the grace. */
export const take: Transition<'take'> = (s, cmd, ctx) => {
  const p = s.players.get(cmd.playerId);
  const from = s.players.get(cmd.fromId);
  if (!p || p.removed || !from || from.removed) return fail(ErrorCode.PLAYER_NOT_FOUND, 'no such student in this room');
  if (p.teamId === null || from.teamId !== p.teamId || p.id === from.id)
    fail(ErrorCode.NOT_IN_TEAM, 'only a teammate can take these roles');
  if (s.config.absence !== 'ask') fail(ErrorCode.BAD_STATE, 'the teacher has not offered free seats to the team');
  if (s.round.state !== 'running' && s.round.state !== 'paused')
    fail(ErrorCode.BAD_STATE, 'the roles change hands only during the round');
  if (ctx.connected(from.id) || ctx.absentFor(from.id) < s.config.graceSeconds * 1000)
    fail(ErrorCode.BAD_STATE, `${from.name} is still at their seat`);
  if (from.pilot) fail(ErrorCode.BAD_STATE, `${from.name}'s seat is played by the ${from.pilot.kind}`);
  if (!from.roles.length) return unchanged(s);
  const d = new Draft(s);
  const teamId = p.teamId as number;
  applyRoleMoves(
    d,
    teamId,
    from.roles.map((role) => ({ role, from: from.id, to: p.id })),
    'take',
    ctx,
  );
  d.send({ kind: 'room' });
  return d.done(undefined);
};

/**
 * After a minute is played: every seat on autopilot reads each of its roles' split view of the minute (and of the
 * one before, `before`: team id → snapshot) and its changes are recorded like a student's, applying from the next
 * minute. A change the room refuses (the story took the control away meanwhile) is left out; a policy that breaks
 * its contract (PolicyError) changes nothing of that seat this minute.
 */
export function autopilotMinute(d: Draft, before: ReadonlyMap<number, Snapshot>, ctx: TransitionCtx): void {
  let memory: Map<number, AutopilotMemory> | null = null;
  const r = d.state.round;
  for (const p of d.state.players.values()) {
    const pilot = p.pilot;
    if (pilot?.kind !== 'autopilot' || p.removed || p.teamId === null || !p.roles.length) continue;
    const run = r.teams.get(p.teamId);
    if (!run) continue;
    // The seat's own randomness: the round's seed and the seat's.
    const play = { skill: pilot.skill, delay: 0, seed: ((r.seed ?? 0) ^ (p.id * 40503)) >>> 0 };
    let out: ReturnType<typeof playSeat>;
    try {
      out = playSeat(r.model, p.roles, play, r.autopilot.get(p.id) ?? {}, run.snapshot, before.get(p.teamId));
    } catch (e) {
      if (e instanceof PolicyError) continue;
      throw e;
    }
    memory ??= new Map(r.autopilot);
    memory.set(p.id, out.memory);
    const actor = { kind: 'autopilot', skill: pilot.skill, reason: pilot.reason } as const;
    for (const c of out.changes) {
      try {
        recordChange(d, d.state.players.get(p.id), c.key, c.value, actor, ctx);
      } catch (e) {
        if (!(e instanceof ClassroomError)) throw e;
      }
    }
  }
  if (memory) d.patchRound({ autopilot: memory });
}
