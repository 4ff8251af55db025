// Recovery at start-up: every room whose latest round was running or paused when the process stopped, read from
// the database (re-simulated, load.ts) and handed to whoever holds rooms (RoomManager), which leaves it paused.
import type { RoomRecord } from '../db/records.ts';
import type { Store } from '../db/store.ts';
import { loadRoom } from './load.ts';
import type { Logger } from '../lib/log.ts';
import type { Room } from './room.ts';

export type Loaded = Awaited<ReturnType<typeof loadRoom>>;

export interface Holder {
  /** Whether a room with this code is in memory already (it needs no reading). */
  holds(code: string): boolean;
  /** The room made from what was read (once, however many ask). */
  load(row: RoomRecord, read: Loaded): Promise<Room>;
}

/**
 * All are read first, then their pauses asked for in one turn, so that they share one transaction. A room that
 * cannot be recovered now (a damaged page, a row that no longer makes sense) is logged and left for its next
 * look-up; the others go on.
 */
export async function recoverRooms(store: Store, log: Logger, holder: Holder): Promise<Room[]> {
  const rounds = await store.roundsInState(['running', 'paused']);
  const rows: (RoomRecord | undefined)[] = [];
  const reads = await Promise.allSettled(
    rounds.map(async (r, i) => {
      if ((await store.latestRound(r.roomId))?.id !== r.id) return null;
      const row = await store.roomById(r.roomId);
      rows[i] = row;
      return row && !holder.holds(row.code) ? loadRoom(store, row) : null;
    }),
  );
  const loaded = await Promise.allSettled(
    reads.map((r, i) => {
      if (r.status === 'rejected') return Promise.reject(r.reason);
      const row = rows[i];
      return row && r.value ? holder.load(row, r.value) : null;
    }),
  );
  return loaded.flatMap((r, i) => {
    if (r.status === 'fulfilled') {
      if (!r.value) return [];
      const round = r.value.round;
      log.info({ room: r.value.code, round: round.id, minute: round.minute }, 'round recovered, paused');
      return [r.value];
    }
    log.error({ room: rows[i]?.code, round: rounds[i].id, err: r.reason }, 'could not recover the room');
    return [];
  });
}
