// A student's seat came, went, turned idle or was offered to the team: the room's roster with that one seat's
// presence changed. Pure.
import type { Presence, RoomView } from '$shared/protocol/types.ts';

export function withPresence(room: RoomView, p: Presence): RoomView {
  const same = (x: RoomView['players'][number]) =>
    x.connected === p.connected && x.idle === p.idle && x.free === p.free;
  if (!room.players.some((x) => x.id === p.playerId && !same(x))) return room;
  const { connected, idle, free } = p;
  return { ...room, players: room.players.map((x) => (x.id === p.playerId ? { ...x, connected, idle, free } : x)) };
}
