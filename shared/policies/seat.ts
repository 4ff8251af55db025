// A seat: one role's policy with its delay and skill. Each minute it reads its desk and hands back the
// changes due now; what it decides waits out the seat's delay in its own queue.
import { uniform } from '../sim/rng.ts';
import { PRESS, type ControlChange, type SimMeta, type Snapshot } from '../sim/types.ts';
import { brainOf, PolicyError } from './brains.ts';
import { MAX_DELAY, type Seat, type SeatState } from './types.ts';

/** Share of its decisions a careless seat forgets. */
export const CARELESS_SLIP = 0.2;

export { PolicyError };

/** A seat's state before minute 0. */
export function openSeat(seat: Seat): SeatState {
  if (!Number.isInteger(seat.delay) || seat.delay < 0 || seat.delay > MAX_DELAY)
    throw new PolicyError(`a seat's delay is 0–${MAX_DELAY} minutes, got ${seat.delay}`);
  brainOf(seat.model, seat.role);
  return { queue: [], rng: seat.seed >>> 0, memo: {} };
}

/**
 * The seat reads minute `view.minute` of its desk (`prev`: the minute before) and returns the changes to make
 * now — they apply from the next minute — with its new state. `view` is what the role's desk shows (split view);
 * the seat sets only its own role's controls.
 */
export function seatMinute(
  model: SimMeta,
  seat: Seat,
  state: SeatState,
  view: Snapshot,
  prev: Snapshot | undefined,
): { changes: ControlChange[]; state: SeatState } {
  const rng = { s: state.rng };
  // The seat knows what it has already decided: its desk's settings as they will be once its queue is through
  // (a slow student does not type the same order twice).
  const pending = state.queue.flatMap((q) => q.changes).filter((c) => c.value !== PRESS);
  const seen =
    pending.length > 0
      ? { ...view, controls: { ...view.controls, ...Object.fromEntries(pending.map((c) => [c.key, c.value])) } }
      : view;
  const decided = brainOf(seat.model, seat.role)(
    { view: seen, prev, skill: seat.skill, random: () => uniform(rng) },
    state.memo,
  );
  const own = new Set(model.roles.find((r) => r.id === seat.role)?.controls ?? []);
  for (const c of decided.changes)
    if (!own.has(c.key)) throw new PolicyError(`the ${seat.role} policy set ${c.key}, which is not its control`);
  // A careless seat forgets one decision in five.
  const made =
    seat.skill === 'careless' && decided.changes.length > 0 && uniform(rng) < CARELESS_SLIP ? [] : decided.changes;
  const due = view.minute + 1 + seat.delay;
  const queue = made.length > 0 ? [...state.queue, { due, changes: made }] : state.queue;
  const now = view.minute + 1;
  const changes = queue.filter((q) => q.due <= now).flatMap((q) => q.changes);
  return {
    changes,
    state: { queue: queue.filter((q) => q.due > now), rng: rng.s, memo: decided.memo },
  };
}
