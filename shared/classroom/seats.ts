// A seat's turns with pilots over a round: how many minutes the autopilot and the teacher played it instead of its
// student. Pure: the CSV, the scores and the replay count the same way.
import type { SeatTurn } from '../protocol/types.ts';

/**
 * Minutes of the round (up to `end`, its last minute) in which someone else than `playerId` played their seat: each
 * turn to a pilot counts from its minute to the next turn of the seat, or to the end.
 */
export function pilotMinutes(
  turns: readonly SeatTurn[],
  playerId: number,
  end: number,
): { autopilot: number; teacher: number } {
  const out = { autopilot: 0, teacher: 0 };
  const mine = turns.filter((t) => t.playerId === playerId);
  for (const [i, t] of mine.entries()) {
    if (!t.pilot) continue;
    const until = Math.min(end, mine[i + 1]?.minute ?? end);
    out[t.pilot.kind] += Math.max(0, until - Math.max(0, t.minute));
  }
  return out;
}
