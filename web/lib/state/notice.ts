// The notice a page shows: the server's last one that still holds. What paused the class says when it is over
// (RESUMED), and a minute that comes through answers a failed one.
import { NoticeCode } from '$shared/protocol/errors.ts';

/** Notices that a minute coming through answers. */
const PAUSES: ReadonlySet<string> = new Set([
  'TICK_FAILED',
  NoticeCode.STORAGE_UNAVAILABLE,
  NoticeCode.CLUSTER_UNAVAILABLE,
]);

/** The notice after the server's `code`: RESUMED clears the pause it ends, any other replaces the one shown. */
export function afterNotice(code: string): string | null {
  return code === NoticeCode.RESUMED ? null : code;
}

/** The notice after a minute came through. */
export function afterMinute(notice: string | null): string | null {
  return notice !== null && PAUSES.has(notice) ? null : notice;
}
