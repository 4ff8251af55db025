// A student connected or disconnected: the room's roster with that one dot changed. Pure.
import type { Presence, RoomView } from '$shared/protocol/types.ts';

export function withPresence(room: RoomView, p: Presence): RoomView {
  if (!room.players.some((x) => x.id === p.playerId && x.connected !== p.connected)) return room;
  return { ...room, players: room.players.map((x) => (x.id === p.playerId ? { ...x, connected: p.connected } : x)) };
}
