// A change of a seat's control: checked, stored when accepted (so it survives a crash before its minute comes), shown
// to the team and the teacher as pending until the next minute applies it. Refused — a typed error, nothing changed —
// unless the round runs, the seat's team plays it, the control is one of a role the seat owns and the value is in
// range and on its step. The student, the teacher playing the seat and the autopilot all come through here; each
// change carries who made it (its actor), which re-simulation never reads.
import { ClassroomError, ErrorCode } from '../../../shared/protocol/errors.ts';
import type { Actor, ChangeRecord } from '../../../shared/protocol/types.ts';
import { ControlError, validateChange } from '../../../shared/sim/controls.ts';
import type { ControlValue } from '../../../shared/sim/types.ts';
import { refuseUnavailable } from '../../../shared/classroom/story.ts';
import type { Transition, TransitionCtx } from '../commands.ts';
import { emit } from '../output.ts';
import type { PlayerState, RoundRun } from '../state.ts';
import { Draft } from './draft.ts';
import { turnSeat } from './seat-turn.ts';

const fail = (code: ErrorCode, message: string): never => {
  throw new ClassroomError(code, message);
};

/**
 * The team the change is for and the value to store and apply — a number snapped exactly onto its step
 * (`0.1 + 0.2` is stored as `0.3`), so the stored change, the live minute and a re-simulation agree;
 * throws the reason it is refused.
 */
export function checkChange(
  r: RoundRun,
  p: PlayerState | undefined,
  key: string,
  value: ControlValue,
): { teamId: number; value: ControlValue } {
  if (!p || p.removed) return fail(ErrorCode.NOT_JOINED, 'you are not in this room');
  if (r.state === 'lobby') fail(ErrorCode.BAD_STATE, 'the round has not started yet');
  if (r.state === 'finished') fail(ErrorCode.ROUND_FINISHED, 'the round is over');
  if (p.teamId === null || !r.teams.has(p.teamId))
    return fail(ErrorCode.NOT_IN_TEAM, 'you are not in a team playing this round');
  const def = r.model.controls.find((c) => c.key === key);
  if (!def) return fail(ErrorCode.UNKNOWN_CONTROL, `unknown control "${key}"`);
  if (!p.roles.includes(def.role))
    fail(ErrorCode.NOT_OWNER, `${key} belongs to the ${def.role} role, which you do not own`);
  try {
    return { teamId: p.teamId, value: validateChange(r.model, { key, value }).value };
  } catch (e) {
    if (!(e instanceof ControlError)) throw e;
    const code = e.code === 'OUT_OF_RANGE' || e.code === 'OFF_STEP' ? ErrorCode.OUT_OF_RANGE : ErrorCode.BAD_VALUE;
    throw new ClassroomError(code, e.message, { key: e.key, allowed: e.allowed });
  }
}

/**
 * Records a checked change of one of `p`'s controls, made by `actor`: stored when accepted, shown to the team and
 * the teacher as pending until the next minute applies it. The one path for a student's change, the teacher's in
 * a seat and the autopilot's; throws the reason a change is refused (nothing changed).
 */
export function recordChange(
  d: Draft,
  p: PlayerState | undefined,
  key: string,
  value: ControlValue,
  actor: Actor,
  ctx: Pick<TransitionCtx, 'now' | 'ids'>,
): ChangeRecord {
  const r = d.state.round;
  const checked = checkChange(r, p, key, value);
  const run = r.teams.get(checked.teamId);
  if (!p || !run) throw new Error(`room ${d.state.code}: team ${checked.teamId} vanished while checking a change`);
  refuseUnavailable(run.snapshot, key);
  const change: ChangeRecord = {
    id: ctx.ids.next('changes'),
    seq: r.changeSeq + 1,
    roundId: r.id,
    teamId: checked.teamId,
    minute: r.minute + 1,
    key,
    value: checked.value,
    author: { playerId: p.id, name: p.name },
    actor,
    at: ctx.now,
  };
  d.patchRound({
    teams: new Map(r.teams).set(checked.teamId, { ...run, changes: run.changes.append(change) }),
    changeSeq: change.seq,
  });
  d.write({ op: 'insertChanges', changes: [change] });
  d.send(
    emit({ kind: 'team', teamId: checked.teamId }, 'pending', change),
    emit({ kind: 'teacher' }, 'pending', change),
  );
  return change;
}

export const control: Transition<'control'> = (s, cmd, ctx) => {
  const p = s.players.get(cmd.playerId);
  const d = new Draft(s);
  const pilot = p?.pilot ?? null;
  if (cmd.by === 'teacher') {
    if (pilot?.kind !== 'teacher')
      fail(ErrorCode.BAD_STATE, 'this seat is its student’s: take it from the dashboard to play it');
    return d.done(recordChange(d, p, cmd.key, cmd.value, { kind: 'teacher' }, ctx));
  }
  if (pilot?.kind === 'teacher') fail(ErrorCode.NOT_OWNER, 'the teacher is playing your seat just now');
  if (pilot?.reason === 'bot') fail(ErrorCode.NOT_OWNER, 'this seat is played by a bot');
  // A student back at a seat on autopilot takes it back with their first change (a refused one takes nothing).
  if (pilot && p) {
    checkChange(s.round, p, cmd.key, cmd.value);
    turnSeat(d, p, null, ctx.now);
  }
  return d.done(recordChange(d, d.state.players.get(cmd.playerId), cmd.key, cmd.value, { kind: 'student' }, ctx));
};
