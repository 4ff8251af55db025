// Whose room it is when several processes share one database (cluster mode): the manager asks an Ownership for
// each room it creates or loads, and the room's shell passes every commit through the room's guard. One process
// on SQLite has no Ownership and nothing here runs. The implementation is server/cluster/ownership.ts.
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
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

/** A room's inputs while its owner cannot be sure it still owns it (Redis out of reach): refused, nothing changed. */
export const unsure = () =>
  new ClassroomError(
    ErrorCode.UNAVAILABLE,
    'the servers of this class cannot reach each other right now: nothing changed; the round goes on by itself once they can',
  );

/** What a room's owner hears about its hold on the room. */
export interface GuardEvents {
  /** Another process holds the room now: it leaves this one (nothing more is sent). */
  lost(reason: string): void;
  /**
   * Whether this process can be sure the room is still its own changed: false while it cannot tell (Redis out of
   * reach) — the room holds its clock and its inputs meanwhile —, true once it can again.
   */
  sure(held: boolean): void;
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
  /** Takes a room that is being created (its code is new). */
  claimNew(code: string, events: GuardEvents): Promise<RoomGuard>;
  /** Takes a stored room; throws NotOwnerError when another process holds it. */
  claim(row: RoomRecord, events: GuardEvents): Promise<Claim>;
  /** Called once a taken room is loaded: who is connected through any process, and a fresh view to them. */
  adopted(room: HeldRoom): Promise<void>;
}
