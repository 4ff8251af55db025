// Which process holds a room (cluster mode): the room's lease in Redis, kept alive by a LeaseKeeper, and the fence
// in PostgreSQL. A process takes a room by acquiring its lease with a token above the room's stored fence, then
// storing that token as the fence (claimRoom) *before* it reads the room: from then on a commit of the previous
// owner is refused, so what is read is final. Each commit of the room carries the token (RoomGuard.seal); the
// database refuses it once a newer owner has stored a higher one.
import type { RoomRecord } from '../db/records.ts';
import type { Store } from '../db/store.ts';
import type { Clock } from '../lib/clock.ts';
import { NotOwnerError, type Claim, type HeldRoom, type Ownership, type RoomGuard } from '../rooms/ownership.ts';
import type { Lease, RoomLeases } from './lease.ts';

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
  constructor(private readonly o: LeaseOwnershipOptions) {}

  async claimNew(code: string, onLost: (reason: string) => void): Promise<RoomGuard> {
    const lease = await this.o.leases.acquire(code);
    if (!lease) throw new NotOwnerError(code, 'another process holds a lease on this new code');
    return this.guard(lease, onLost);
  }

  async claim(row: Parameters<Ownership['claim']>[0], onLost: (reason: string) => void): Promise<Claim> {
    const { leases, store, clock } = this.o;
    const lease = await leases.acquire(row.code, { atLeast: row.fence });
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
    return { guard: this.guard(lease, onLost), row: fresh, recent };
  }

  adopted(room: HeldRoom): Promise<void> {
    return this.o.recount(room);
  }

  private guard(lease: Lease, onLost: (reason: string) => void): RoomGuard {
    const { leases, clock } = this.o;
    // Said each time (dropping a room is idempotent): a loss during the room's loading is said again at its first commit.
    const lose = (reason: string) => onLost(reason);
    const keeper = leases.keep(lease, (_l, reason) => lose(reason));
    return {
      seal(roomId, writes) {
        // A lease not surely ours commits nothing; one lost while its commit is on the way is stopped by the fence.
        if (!keeper.valid()) throw new NotOwnerError(lease.room, keeper.lost ?? 'its lease ran out');
        return writes.length ? [...writes, { op: 'fence', roomId, token: lease.token, at: clock.now() }] : writes;
      },
      lost(reason) {
        void keeper.stop({ release: true });
        lose(reason);
      },
      release: () => keeper.stop({ release: true }),
    };
  }
}
