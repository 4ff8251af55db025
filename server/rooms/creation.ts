// What guards the making of rooms: the secrets (teacher keys, student tokens) and room codes, and the limits on
// new rooms — per address and per teacher, and the live-room quota a teacher's creations are counted against.
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { CODE_ALPHABET, CODE_LENGTH } from '../../shared/classroom/code.ts';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { KeyedLimiter, type BucketConfig } from '../lib/limiter.ts';
import { DEFAULT_ROUND_LIMITS, type Requester, type RoundLimits } from './quotas.ts';
import type { RoomDeps } from './room.ts';

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function newCode(): string {
  let c = '';
  for (let i = 0; i < CODE_LENGTH; i++) c += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return c;
}

export interface RoomLimits {
  /** Rooms made (new ones and what-if forks alike) per address, and per teacher. */
  creations: BucketConfig;
  /** Rooms a teacher may have whose latest round is not finished, among those made in the last `liveWindowMs`. */
  liveRooms: number;
  liveWindowMs: number;
  /** How long after its last round ended a room is still shown to anonymous viewers and new students. */
  viewerWindowMs: number;
  /** Rounds started per teacher and per address, and the team-minutes a teacher's rooms may keep (quotas.ts). */
  rounds: RoundLimits;
}
export const DEFAULT_ROOM_LIMITS: RoomLimits = {
  // 30 in a burst, then one every 20 s (30 per 10 minutes).
  creations: { capacity: 30, refillPerSecond: 30 / 600 },
  liveRooms: 40,
  liveWindowMs: 24 * 3600_000,
  viewerWindowMs: 3600_000,
  rounds: DEFAULT_ROUND_LIMITS,
};

/** The creation limits of one process's rooms (RoomManager's new rooms and what-if forks). */
export class CreationGate {
  private readonly creations: KeyedLimiter;
  /** One room creation at a time per teacher, so the live-room quota is counted right. */
  private creating = new Map<number, Promise<unknown>>();

  constructor(
    private readonly deps: Pick<RoomDeps, 'store' | 'clock' | 'metrics'>,
    private readonly limits: RoomLimits,
  ) {
    this.creations = new KeyedLimiter(limits.creations, deps.clock);
  }

  /** Takes one room creation from the address's allowance, then from the teacher's; refused by the first that has none left. */
  allow(from: Requester, teacherId?: number): void {
    this.check(from, teacherId);
    if (from.address !== undefined) this.creations.take(`a:${from.address}`);
    if (teacherId !== undefined) this.creations.take(`t:${teacherId}`);
  }

  /**
   * Refuses, taking nothing, when the address or the teacher has no room creation left: asked before a request's
   * body is read, so that a refused what-if of 500 changes costs no parsing and no checking.
   */
  check(from: Requester, teacherId?: number): void {
    const refuse = (limit: string, who: string) => {
      this.deps.metrics?.rateLimited(limit);
      return new ClassroomError(ErrorCode.RATE_LIMITED, `too many new rooms from ${who}: wait a little`);
    };
    if (from.address !== undefined && !this.creations.has(`a:${from.address}`))
      throw refuse('rooms:address', 'this address');
    if (teacherId !== undefined && !this.creations.has(`t:${teacherId}`)) throw refuse('rooms:teacher', 'this teacher');
  }

  /** Runs `fn` after the teacher's previous creation, refused when they have too many rooms not finished. */
  withinQuota<T>(teacherId: number, fn: () => Promise<T>): Promise<T> {
    const prev = this.creating.get(teacherId) ?? Promise.resolve();
    const run = prev.then(async () => {
      const { store, clock } = this.deps;
      const live = await store.liveRoomCount(teacherId, clock.now() - this.limits.liveWindowMs);
      if (live >= this.limits.liveRooms) {
        throw new ClassroomError(
          ErrorCode.ROOM_QUOTA,
          `you have ${live} rooms whose round is not finished (at most ${this.limits.liveRooms}): end one, or use one of them`,
        );
      }
      return fn();
    });
    const tail = run.catch(() => undefined);
    this.creating.set(teacherId, tail);
    void tail.then(() => {
      if (this.creating.get(teacherId) === tail) this.creating.delete(teacherId);
    });
    return run;
  }
}
