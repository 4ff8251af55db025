// Rooms nobody has used for a while leave memory; they reload from the database when someone comes back.
import type { Room } from './room.ts';

/** Drops the rooms idle for `idleMs` from `rooms`, each disposed; returns how many. */
export function sweepIdle(rooms: Map<string, Room>, idleMs: number): number {
  let n = 0;
  for (const [code, room] of rooms) {
    if (!room.idleFor(idleMs)) continue;
    room.dispose();
    rooms.delete(code);
    // Cluster mode: the lease goes too, so that whichever process is asked next can take the room.
    void room.guard?.release();
    n++;
  }
  return n;
}
