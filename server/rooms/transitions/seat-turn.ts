// A seat passing to a pilot (the autopilot, the teacher) or back to its student, inside a transition: the seat turn
// stored, told to the team and the teacher, and the roster sent again.
import type { SeatPilot, SeatTurn } from '../../../shared/protocol/types.ts';
import { emit } from '../output.ts';
import type { PlayerState, RoomState } from '../state.ts';
import type { Draft } from './draft.ts';

/** The first minute a seat's new pilot can change anything at (0 before the round starts). */
export const nextMinute = (s: RoomState): number => Math.max(0, s.round.minute + 1);

/**
 * Passes `p`'s seat to `pilot` (null: back to its student): stored as a seat turn, told to the team and the teacher
 * (the team feed's "Autopilot took over…") and to everyone's roster. The autopilot starts with a fresh memory.
 */
export function turnSeat(d: Draft, p: PlayerState, pilot: SeatPilot | null, at: number): void {
  d.setPilot(p.id, pilot);
  const r = d.state.round;
  if (r.autopilot.has(p.id)) {
    const autopilot = new Map(r.autopilot);
    autopilot.delete(p.id);
    d.patchRound({ autopilot });
  }
  d.send({ kind: 'room' });
  if (p.teamId === null) return;
  const turn: SeatTurn = {
    roundId: r.id,
    teamId: p.teamId,
    playerId: p.id,
    name: p.name,
    roles: [...p.roles],
    minute: nextMinute(d.state),
    pilot,
    at,
  };
  d.patchRound({ seatTurns: d.state.round.seatTurns.append(turn) });
  d.write({ op: 'insertSeatTurns', turns: [turn] });
  d.send(emit({ kind: 'team', teamId: p.teamId }, 'seat', turn), emit({ kind: 'teacher' }, 'seat', turn));
}

/** A new round: the seats still piloted are so from its lobby on (its own record says so). */
export function carryPilots(d: Draft, at: number): void {
  for (const p of d.state.players.values())
    if (p.pilot && !p.removed) turnSeat(d, p, { ...p.pilot, since: at, minute: 0 }, at);
}
