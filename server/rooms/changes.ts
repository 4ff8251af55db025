// Whether a student may make a change: in a round that runs, in a team that plays it, on a control of
// a role they own, with a value in range and on its step. Anything else is a typed error and changes nothing.
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { ControlError, validateChange } from '../../shared/sim/controls.ts';
import type { ControlValue } from '../../shared/sim/types.ts';
import type { PlayerState, RoundRun } from './state.ts';

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
