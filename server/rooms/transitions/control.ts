// A student's change: checked, stored when accepted (so it survives a crash before its minute comes), shown to the
// team and the teacher as pending until the next minute applies it. Refused — a typed error, nothing changed —
// unless the round runs, the student's team plays it, the control is one of a role they own and the value is in
// range and on its step.
import { ClassroomError, ErrorCode } from '../../../shared/protocol/errors.ts';
import type { ChangeRecord } from '../../../shared/protocol/types.ts';
import { ControlError, validateChange } from '../../../shared/sim/controls.ts';
import type { ControlValue } from '../../../shared/sim/types.ts';
import { refuseUnavailable } from '../../../shared/classroom/story.ts';
import type { Transition } from '../commands.ts';
import { emit } from '../output.ts';
import type { PlayerState, RoundRun } from '../state.ts';

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

export const control: Transition<'control'> = (s, cmd, ctx) => {
  const r = s.round;
  const p = s.players.get(cmd.playerId);
  const { teamId, value } = checkChange(r, p, cmd.key, cmd.value);
  const run = r.teams.get(teamId);
  if (!p || !run) throw new Error(`room ${s.code}: team ${teamId} vanished while checking a change`);
  refuseUnavailable(run.snapshot, cmd.key);
  const change: ChangeRecord = {
    id: ctx.ids.next('changes'),
    seq: r.changeSeq + 1,
    roundId: r.id,
    teamId,
    minute: r.minute + 1,
    key: cmd.key,
    value,
    author: { playerId: p.id, name: p.name },
    at: ctx.now,
  };
  const teams = new Map(r.teams).set(teamId, { ...run, changes: run.changes.append(change) });
  return {
    next: { ...s, round: { ...r, teams, changeSeq: change.seq } },
    writes: [{ op: 'insertChanges', changes: [change] }],
    messages: [emit({ kind: 'team', teamId }, 'pending', change), emit({ kind: 'teacher' }, 'pending', change)],
    reply: change,
  };
};
