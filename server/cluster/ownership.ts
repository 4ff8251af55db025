// Which process holds a room (cluster mode): the room's lease in Redis, kept alive by a LeaseKeeper, and the fence
// in PostgreSQL. A process takes a room by acquiring its lease with a token above the room's stored fence, then
// storing that token as the fence (claimRoom) *before* it reads the room: from then on a commit of the previous
// owner is refused, so what is read is final. Each commit of the room carries the token (RoomGuard.seal); the
// database refuses it once a newer owner has stored a higher one.
import type { RoomRecord } from '../db/records.ts';
import type { Store } from '../db/store.ts';
import type { Clock } from '../lib/clock.ts';
import {
  type Claim,
  type GuardEvents,
  type HeldRoom,
  NotOwnerError,
  type Ownership,
  type RoomGuard,
  unsure,
} from '../rooms/ownership.ts';
import { unreachableRedis } from './adapter.ts';
import type { Lease, LeaseKeeper, RoomLeases } from './lease.ts';

/**
 * A room whose previous owner committed less than this long ago is taken over as a failover: its running round
 * goes on. Longer (every process was down), it resumes paused, as after a restart of one process. A running round
 * commits every tempo (≤ 20 s); a dead owner's lease ends within its time to live (10 s) and is taken within a scan.
 */
export const FAILOVER_WINDOW_MS = 60_000;

export interface LeaseOwnershipOptions {
  leases: RoomLeases;
  store: Store;
  /** The cluster's clock (leases, fence times): real time, even when rooms run on a manual clock in tests. */
  clock: Clock;
  /** Who is connected to a room just taken, counted from every process's sockets. */
  recount(room: HeldRoom): Promise<void>;
  failoverWindowMs?: number;
}

export class LeaseOwnership implements Ownership {
  /** The leases this process keeps, one per room it holds. */
  private readonly keepers = new Set<LeaseKeeper>();

  constructor(private readonly o: LeaseOwnershipOptions) {}

  async claimNew(code: string, events: GuardEvents): Promise<RoomGuard> {
    const lease = await this.o.leases.acquire(code).catch(unreachableRedis);
    if (!lease) throw new NotOwnerError(code, 'another process holds a lease on this new code');
    return this.guard(lease, events);
  }

  async claim(row: Parameters<Ownership['claim']>[0], events: GuardEvents): Promise<Claim> {
    const { leases, store, clock } = this.o;
    const lease = await leases.acquire(row.code, { atLeast: row.fence }).catch(unreachableRedis);
    if (!lease) throw new NotOwnerError(row.code, 'another process holds its lease');
    let fresh: RoomRecord | undefined;
    try {
      fresh = await store.claimRoom(row.id, lease.token);
    } catch (e) {
      await leases.release(lease).catch(() => false);
      throw e;
    }
    if (!fresh) {
      await leases.release(lease).catch(() => false);
      throw new NotOwnerError(row.code, 'a newer owner has stored its fence');
    }
    const recent =
      fresh.fencedAt !== null && clock.now() - fresh.fencedAt <= (this.o.failoverWindowMs ?? FAILOVER_WINDOW_MS);
    return { guard: this.guard(lease, events, row.id), row: fresh, recent };
  }

  adopted(room: HeldRoom): Promise<void> {
    return this.o.recount(room);
  }

  /** Redis is out of reach: no lease held here is sure any more (each room holds its clock and inputs). */
  lapseAll(): void {
    for (const k of this.keepers) k.lapse();
  }

  /** Redis answers again: every lease held here renewed, or taken again where nobody holds it. */
  async confirmAll(): Promise<void> {
    await Promise.all([...this.keepers].map((k) => k.confirm().catch(() => false)));
  }

  private guard(lease: Lease, events: GuardEvents, knownRoomId?: number): RoomGuard {
    const { leases, store, clock } = this.o;
    /** The room's id, known once it has committed (a room being created has none before). */
    let roomId = knownRoomId;
    // Said each time (dropping a room is idempotent): a loss during the room's loading is said again at its first commit.
    const lose = (reason: string) => events.lost(reason);
    const keeper = leases.keep(lease, {
      lost: (_l, reason) => {
        this.keepers.delete(keeper);
        lose(reason);
      },
      sure: (held) => events.sure(held),
      // Nobody holds the lease (it ran out during an outage of Redis, or Redis restarted without it): taken again
      // with a higher token, and that token stored as the fence in place of this process's old one — refused if
      // another process has stored its own meanwhile, and then the room is that process's.
      retake: async (old) => {
        if (roomId === undefined) return null;
        const fresh = await leases.acquire(old.room, { atLeast: old.token });
        if (!fresh) return null;
        let moved: boolean;
        try {
          moved = await store.retakeRoom(roomId, old.token, fresh.token);
        } catch (e) {
          await leases.release(fresh).catch(() => false);
          throw e;
        }
        if (!moved) await leases.release(fresh).catch(() => false);
        return moved ? fresh : null;
      },
    });
    this.keepers.add(keeper);
    const stop = () => {
      this.keepers.delete(keeper);
      return keeper.stop({ release: true });
    };
    return {
      seal(id, writes) {
        roomId = id;
        if (keeper.lost) throw new NotOwnerError(lease.room, keeper.lost);
        // A lease not surely ours commits nothing; one lost while its commit is on the way is stopped by the fence.
        if (!keeper.valid()) throw keeper.lapsed ? unsure() : new NotOwnerError(lease.room, 'its lease ran out');
        return writes.length
          ? [...writes, { op: 'fence', roomId: id, token: keeper.current.token, at: clock.now() }]
          : writes;
      },
      lost(reason) {
        void stop();
        lose(reason);
      },
      release: stop,
    };
  }
}
