// Whose room it is when several processes share one database (cluster mode): the manager asks an Ownership for
// each room it creates or loads, and the room's shell passes every commit through the room's guard. One process
// on SQLite has no Ownership and nothing here runs. The implementation is server/cluster/ownership.ts.
import type { RoomRecord } from '../db/records.ts';
import type { Write } from '../db/writes.ts';

/** This process does not own the room (any more): nothing was done; the caller may ask the owner instead. */
export class NotOwnerError extends Error {
  override readonly name = 'NotOwnerError';
  constructor(
    readonly code: string,
    readonly reason: string,
  ) {
    super(`room ${code}: not owned by this process (${reason})`);
  }
}

/** A room's hold on its storage while this process owns it. */
export interface RoomGuard {
  /**
   * The writes to commit for the room: `writes` with the fencing write that the database checks in the same
   * transaction. Throws NotOwnerError when the room's lease is not surely held now (nothing is then committed).
   */
  seal(roomId: number, writes: readonly Write[]): readonly Write[];
  /** A commit came back fenced, or could not be sealed: the room is not this process's. Gives it up here. */
  lost(reason: string): void;
  /** Gives the room up so that another process can take it at once (after the room's last commit). */
  release(): Promise<void>;
}

export interface Claim {
  guard: RoomGuard;
  /** The room's row as it stood when this process's fence was stored: nothing older can commit after it. */
  row: RoomRecord;
  /** The previous owner committed a moment ago: a failover, after which a running round goes on. */
  recent: boolean;
}

/** A room as its owner counts who is connected to it. */
export interface HeldRoom {
  readonly code: string;
  /** Who is connected, counted again (one entry per student socket, and the teacher's and observers' sockets). */
  recount(studentSockets: readonly number[], watchers: number): void;
}

export interface Ownership {
  /** Takes a room that is being created (its code is new). `onLost` is called if it is lost later. */
  claimNew(code: string, onLost: (reason: string) => void): Promise<RoomGuard>;
  /** Takes a stored room; throws NotOwnerError when another process holds it. */
  claim(row: RoomRecord, onLost: (reason: string) => void): Promise<Claim>;
  /** Called once a taken room is loaded: who is connected through any process, and a fresh view to them. */
  adopted(room: HeldRoom): Promise<void>;
}
