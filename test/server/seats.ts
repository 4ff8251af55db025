// Seats taken the way clients take them: through the gate of server/realtime/gate.ts (no socket to place).
import { LocalGate } from '../../server/realtime/gate.ts';
import { hashSecret, newSecret } from '../../server/rooms/creation.ts';
import type { RoomManager } from '../../server/rooms/manager.ts';
import type { Room } from '../../server/rooms/room.ts';
import type { PlayerState } from '../../server/rooms/state.ts';

/** The gate transports ask rooms through, over a manager. */
export const gateOf = (manager: RoomManager) => new LocalGate(manager, () => {});

/**
 * A new student named `name` joins the room with this code, as a page does. Unless `connected`, their page then
 * closes (they stay in the room, as someone who joined and left does; a room nobody is connected to can leave memory).
 */
export async function joinStudent(
  manager: RoomManager,
  code: string,
  name: string,
  opts: { connected?: boolean } = {},
): Promise<{ room: Room; player: PlayerState; token: string }> {
  const token = newSecret();
  const gate = gateOf(manager);
  const seat = await gate.ask(code, { type: 'join', name, tokenHash: hashSecret(token) });
  if (!opts.connected) await gate.ask(seat.code, { type: 'leave', role: 'student', playerId: seat.playerId });
  const room = manager.peek(seat.code);
  const player = room?.player(seat.playerId);
  if (!room || !player) throw new Error(`the seat of ${name} in ${code} is not in memory`);
  return { room, player, token };
}
