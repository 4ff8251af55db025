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

/** A student whose seat others played in a round, and for how many minutes. */
export interface SeatMinutes {
  teamId: number;
  playerId: number;
  name: string;
  autopilot: number;
  teacher: number;
}

/**
 * Every student of the round whose seat the autopilot or the teacher played for at least a minute, by team then first
 * turn; a bot's seat (a rehearsal's) is no student's and is left out. Names as at the seat's last turn.
 */
export function seatMinutes(turns: readonly SeatTurn[], end: number): SeatMinutes[] {
  const seats = new Map<string, { teamId: number; playerId: number; name: string; bot: boolean }>();
  for (const t of turns) {
    if (t.playerId === null) continue;
    const id = `${t.teamId}:${t.playerId}`;
    const bot = (seats.get(id)?.bot ?? false) || t.pilot?.reason === 'bot';
    seats.set(id, { teamId: t.teamId, playerId: t.playerId, name: t.name, bot });
  }
  return [...seats.values()]
    .filter((s) => !s.bot)
    .map(({ teamId, playerId, name }) => ({
      teamId,
      playerId,
      name,
      ...pilotMinutes(
        turns.filter((t) => t.teamId === teamId),
        playerId,
        end,
      ),
    }))
    .filter((s) => s.autopilot + s.teacher > 0)
    .sort((a, b) => a.teamId - b.teamId);
}
