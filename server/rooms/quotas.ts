// What keeps one teacher — or one address, which can make teachers by making rooms — from filling the database
// with rounds: rounds started per teacher and per address, and the team-minutes a teacher's rooms may keep. (Rounds
// per room are a limit of the clock's transition: LIMITS.roundsPerRoom.)
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { type BucketConfig, KeyedLimiter } from '../lib/limiter.ts';
import type { RoomDeps } from './room.ts';

/** Who asks for a new room or round: the address it came from (limited; an IPv6 address by its /64), when known. */
export interface Requester {
  address?: string;
}

export interface RoundLimits {
  /** Rounds started per teacher, and per address (every teacher of one address together). */
  starts: { teacher: BucketConfig; address: BucketConfig };
  /**
   * Team-minutes a teacher's rooms may keep (one team's recorded minute, about 1.4 KB): a round not finished
   * counts its whole length, which it may still reach. TEACHER_QUOTA_MINUTES.
   */
  teacherMinutes: number;
}

export const DEFAULT_ROUND_LIMITS: RoundLimits = {
  starts: {
    // 20 in a burst (a lesson of several rounds, a few false starts), then one every 3 minutes.
    teacher: { capacity: 20, refillPerSecond: 1 / 180 },
    // A school's teachers behind one NAT address: 30 in a burst, then one a minute.
    address: { capacity: 30, refillPerSecond: 1 / 60 },
  },
  // About 700 MB: a school year of a teacher's classes (five a week, three rounds of eight teams × 60 minutes) is a
  // third of it.
  teacherMinutes: 500_000,
};

const fmtInt = (n: number) => Math.round(n).toLocaleString('en');

export class RoundQuotas {
  private readonly teachers: KeyedLimiter;
  private readonly addresses: KeyedLimiter;

  constructor(
    private readonly deps: Pick<RoomDeps, 'store' | 'clock' | 'metrics'>,
    private readonly limits: RoundLimits,
  ) {
    this.teachers = new KeyedLimiter(limits.starts.teacher, deps.clock);
    this.addresses = new KeyedLimiter(limits.starts.address, deps.clock);
  }

  /**
   * A round of `teams` × `minutes` is about to start: refused (nothing taken) when the teacher's rooms would keep more
   * than their quota, then taken from the address's allowance and the teacher's.
   */
  async allowStart(teacherId: number, from: Requester, teams: number, minutes: number): Promise<void> {
    const refuse = (limit: string, message: string) => {
      this.deps.metrics?.rateLimited(limit);
      return new ClassroomError(ErrorCode.RATE_LIMITED, message);
    };
    if (from.address !== undefined && !this.addresses.has(from.address))
      throw refuse('rounds:address', 'too many rounds started from this address: wait a minute before the next one');
    if (!this.teachers.has(String(teacherId)))
      throw refuse('rounds:teacher', 'you have started many rounds in a short time: wait a few minutes');
    await this.withinStorage(teacherId, teams * (minutes + 1));
    if (from.address !== undefined) this.addresses.take(from.address);
    this.teachers.take(String(teacherId));
  }

  /** Refused when the teacher's rooms keep, or would keep with `more` team-minutes, more than their quota. */
  async withinStorage(teacherId: number, more: number): Promise<void> {
    const kept = await this.deps.store.teacherMinutes(teacherId);
    const quota = this.limits.teacherMinutes;
    if (kept + more <= quota) return;
    this.deps.metrics?.rateLimited('rounds:storage');
    throw new ClassroomError(
      ErrorCode.STORAGE_QUOTA,
      `your rooms keep ${fmtInt(kept)} team-minutes and this round needs ${fmtInt(more)}: one teacher may keep ${fmtInt(quota)} (TEACHER_QUOTA_MINUTES)`,
    );
  }
}
