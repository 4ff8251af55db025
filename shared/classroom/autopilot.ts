// One seat played by the role policies (shared/policies): each of the seat's roles reads its own split view of the
// minute (and of the one before) and hands back changes to its own controls. The server's autopilot and the bots
// over the wire (`npm run bots`) both play a seat through here, so a seat plays alike wherever it is played.
import { openSeat, seatMinute, type Seat, type SeatState, type Skill } from '../policies/index.ts';
import type { ControlChange, SimMeta, Snapshot } from '../sim/types.ts';
import { splitSnapshot, visibleKeys } from './split.ts';

/** Who plays the seat: the policy's skill, its delay (0–3 minutes) and its own seed. */
export interface SeatPlay {
  skill: Skill;
  delay: number;
  seed: number;
}

/** Each role's policy state, by role: plain JSON, kept between minutes. */
export type SeatMemory = Readonly<Record<string, SeatState>>;

/**
 * The seat's changes after reading minute `view.minute` (`prev`: the minute before), for its `roles`, with its
 * memory after it. `view` may be the whole team's minute or the seat's split view: each role reads only its own.
 * Throws PolicyError when a role has no policy or a policy breaks its contract.
 */
export function playSeat(
  model: SimMeta,
  roles: readonly string[],
  play: SeatPlay,
  memory: SeatMemory,
  view: Snapshot,
  prev: Snapshot | undefined,
): { changes: ControlChange[]; memory: SeatMemory } {
  const next: Record<string, SeatState> = {};
  const changes: ControlChange[] = [];
  for (const role of roles) {
    const i = model.roles.findIndex((r) => r.id === role);
    const seat: Seat = { model: model.id, role, skill: play.skill, delay: play.delay, seed: play.seed + i };
    const keys = visibleKeys(model, [role]);
    const out = seatMinute(
      model,
      seat,
      memory[role] ?? openSeat(seat),
      splitSnapshot(view, keys),
      prev && splitSnapshot(prev, keys),
    );
    next[role] = out.state;
    changes.push(...out.changes);
  }
  return { changes, memory: next };
}
