// Words that are not about one simulator: errors by code, round states, statuses, team names,
// the languages.
import type { ErrorCode, NoticeCode } from '$shared/protocol/errors.ts';
import type { RoundState } from '$shared/protocol/types.ts';
import type { Status } from '$shared/sim/types.ts';
import { m } from '$lib/paraglide/messages.js';
import { fmtInt } from '$lib/format.ts';

// Typed by the protocol's codes: a new server code without words here fails the type check.
const errors: Record<ErrorCode | 'TIMEOUT' | 'NETWORK', () => string> = {
  BAD_REQUEST: m.err_BAD_REQUEST,
  NOT_FOUND: m.err_NOT_FOUND,
  TOO_LARGE: m.err_TOO_LARGE,
  RATE_LIMITED: m.err_RATE_LIMITED,
  ROOM_NOT_FOUND: m.err_ROOM_NOT_FOUND,
  ROOM_FULL: m.err_ROOM_FULL,
  ROOM_LOCKED: m.err_ROOM_LOCKED,
  ROOM_CLOSED: m.err_ROOM_CLOSED,
  ROOM_QUOTA: m.err_ROOM_QUOTA,
  ROUND_LIMIT: m.err_ROUND_LIMIT,
  STORAGE_QUOTA: m.err_STORAGE_QUOTA,
  TEAM_FULL: m.err_TEAM_FULL,
  BAD_TOKEN: m.err_BAD_TOKEN,
  BAD_KEY: m.err_BAD_KEY,
  NOT_JOINED: m.err_NOT_JOINED,
  NOT_TEACHER: m.err_NOT_TEACHER,
  NOT_ALLOWED: m.err_NOT_ALLOWED,
  NOT_OWNER: m.err_NOT_OWNER,
  NOT_IN_TEAM: m.err_NOT_IN_TEAM,
  UNKNOWN_CONTROL: m.err_UNKNOWN_CONTROL,
  BAD_VALUE: m.err_BAD_VALUE,
  OUT_OF_RANGE: m.err_OUT_OF_RANGE,
  CONTROL_UNAVAILABLE: m.err_CONTROL_UNAVAILABLE,
  BAD_STATE: m.err_BAD_STATE,
  ROUND_FINISHED: m.err_ROUND_FINISHED,
  TEAM_NOT_FOUND: m.err_TEAM_NOT_FOUND,
  PLAYER_NOT_FOUND: m.err_PLAYER_NOT_FOUND,
  ROUND_NOT_FOUND: m.err_ROUND_NOT_FOUND,
  REMOVED: m.err_REMOVED,
  TICK_FAILED: m.err_TICK_FAILED,
  STORAGE_FAILED: m.err_STORAGE_FAILED,
  UNAVAILABLE: m.err_UNAVAILABLE,
  INTERNAL: m.err_INTERNAL,
  TIMEOUT: m.err_TIMEOUT,
  NETWORK: m.err_NETWORK,
};

export function errorText(code: string): string {
  return (errors[code as keyof typeof errors] ?? m.err_INTERNAL)();
}

// Notices that are not errors of a request (typed: a new notice code without words fails the check).
const notices: Record<NoticeCode, () => string> = {
  SERVER_STOPPING: m.notice_SERVER_STOPPING,
  STORAGE_UNAVAILABLE: m.notice_STORAGE_UNAVAILABLE,
  CLUSTER_UNAVAILABLE: m.notice_CLUSTER_UNAVAILABLE,
  RESUMED: m.notice_RESUMED,
};
/** A `notice` from the server in words: its own, or its error code's. */
export function noticeText(code: string): string {
  return code in notices ? notices[code as NoticeCode]() : errorText(code);
}

const states: Record<RoundState, () => string> = {
  lobby: m.state_lobby,
  running: m.state_running,
  paused: m.state_paused,
  finished: m.state_finished,
};
export const stateText = (s: RoundState): string => states[s]();

const statuses: Record<Status, () => string> = {
  normal: m.status_normal,
  warning: m.status_warning,
  critical: m.status_critical,
};
export const statusText = (s: Status): string => statuses[s]();
/** A symbol beside the word, so a status never relies on colour. */
export const STATUS_SYMBOL: Record<Status, string> = { normal: '✓', warning: '▲', critical: '✖' };

/**
 * A team's name: the teacher's, or "Team n" in the reader's language; a what-if room's team is named
 * after the one it was forked from ("Team 2 — what-if from minute 10").
 */
export function teamName(
  team: { idx: number; name: string; whatIf?: { idx: number; name: string; minute: number } | null } | undefined,
  fallbackIdx = 0,
): string {
  if (team?.name) return team.name;
  if (team?.whatIf) return m.team_whatif({ team: teamName(team.whatIf), minute: fmtInt(team.whatIf.minute) });
  return m.team_default({ n: String((team?.idx ?? fallbackIdx) + 1) });
}

/** The six languages, each in its own name. */
export const LANGUAGES: { locale: 'en' | 'id' | 'hu' | 'it' | 'nl' | 'ne'; name: () => string }[] = [
  { locale: 'en', name: m.lang_en },
  { locale: 'id', name: m.lang_id },
  { locale: 'hu', name: m.lang_hu },
  { locale: 'it', name: m.lang_it },
  { locale: 'nl', name: m.lang_nl },
  { locale: 'ne', name: m.lang_ne },
];
