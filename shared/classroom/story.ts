// What the scenario's story takes away: a change to a control it has made unavailable is refused, with the
// reason, the same way in the engine, the CLI and the server (which calls this from its control transition).
import { ClassroomError, ErrorCode } from '../protocol/errors.ts';
import { ControlError, ControlErrorCode, checkAvailable } from '../sim/controls.ts';
import type { Snapshot } from '../sim/types.ts';

/** Throws ClassroomError UNAVAILABLE (the reason's key as `allowed`) when `key` is unavailable after `snapshot`. */
export function refuseUnavailable(snapshot: Pick<Snapshot, 'unavailable' | 'minute'>, key: string): void {
  try {
    checkAvailable(snapshot, key);
  } catch (e) {
    if (e instanceof ControlError && e.code === ControlErrorCode.UNAVAILABLE)
      throw new ClassroomError(ErrorCode.CONTROL_UNAVAILABLE, e.message, { key, allowed: e.allowed });
    throw e;
  }
}
