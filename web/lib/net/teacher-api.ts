// The teacher's HTTP calls: history, replay, the hindsight coach, what-if fork, the export (CSV, ZIP), the research
// package, the gradebook and its roster mapping.
// Each carries the teacher key as a bearer header, which is why a CSV is fetched and saved from a Blob
// rather than linked. A student's token opens their own replays and coach the same way (student-api.ts).
import type {
  CoachReport,
  CsvPart,
  HistoryPage,
  RoomView,
  RosterEntry,
  RosterView,
  RoundReplay,
} from '$shared/protocol/types.ts';
import type { ScheduledChange } from '$shared/sim/types.ts';
export type { CsvPart };
import { filenameFrom } from '$lib/replay/logic.ts';
import { call, type Result } from './api.ts';
import { keyFromFragment, loadTeacherKey, saveTeacherKey } from './storage.ts';

/** A CSV part, or 'all': the three in one ZIP. */
export type ExportFile = CsvPart | 'all';
const exportPath = (file: ExportFile) => (file === 'all' ? 'all.zip' : `${file}.csv`);

export interface Forked {
  code: string;
  roundId: number;
  room: RoomView;
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

/**
 * The teacher key of this browser. A copied teacher link carries it in the fragment (#key=…): it is
 * stored and taken out of the address bar, so it does not end up in a screenshot or a bookmark.
 */
export function takeTeacherKey(): string | null {
  const fromLink = keyFromFragment(location.hash);
  if (fromLink) {
    saveTeacherKey(fromLink);
    history.replaceState(history.state, '', location.pathname + location.search);
  }
  return fromLink ?? loadTeacherKey();
}

/** A page of the teacher's history, newest first; `before`: the previous page's `next`, for older rooms. */
export const fetchHistory = (key: string, before?: string): Promise<Result<HistoryPage>> =>
  call(`/api/teacher/rooms${before ? `?before=${encodeURIComponent(before)}` : ''}`, { headers: auth(key) });

/** Deletes a rehearsal or a practice room and everything recorded in it (with its what-ifs): the codes deleted. */
export const deleteRoom = (key: string, code: string): Promise<Result<{ deleted: string[] }>> =>
  call(`/api/teacher/rooms/${encodeURIComponent(code)}`, { method: 'DELETE', headers: auth(key) });

/** A round's replay, with the teacher key or a student's token (then only the student's teams, unless shared). */
export const fetchReplay = (key: string, roundId: number): Promise<Result<RoundReplay>> =>
  call(`/api/rounds/${roundId}/replay`, { headers: auth(key) });

/** The hindsight coach of a finished round: every team with the teacher key, a student's own team(s) with their token. */
export const fetchCoach = (key: string, roundId: number): Promise<Result<CoachReport>> =>
  call(`/api/rounds/${roundId}/coach`, { headers: auth(key) });

/** A what-if from a team at a minute; with `changes`, those (each after `minute`) are recorded as pending, by the coach. */
export function forkRound(
  key: string,
  roundId: number,
  teamId: number,
  minute: number,
  changes?: readonly ScheduledChange[],
): Promise<Result<Forked>> {
  return call(`/api/rounds/${roundId}/fork`, {
    method: 'POST',
    headers: { ...auth(key), 'content-type': 'application/json' },
    body: JSON.stringify(
      changes
        ? { teamId, minute, changes: changes.map(({ minute: at, key: k, value }) => ({ minute: at, key: k, value })) }
        : { teamId, minute },
    ),
  });
}

/**
 * Fetches a file of a round's export (a CSV part, or all three zipped), its columns named in `lang`, and
 * hands it to the browser as a download; resolves with the file name.
 */
export const downloadExport = (key: string, roundId: number, file: ExportFile, lang: string): Promise<Result<string>> =>
  download(
    key,
    `/api/rounds/${roundId}/export/${exportPath(file)}?lang=${encodeURIComponent(lang)}`,
    `opsroom-round${roundId}-${exportPath(file)}`,
  );

/** The research package of a round (`roundId`) or of a whole room (`code`), pseudonymous unless `names`. */
export const downloadResearch = (key: string, of: { roundId: number } | { code: string }, names: boolean) =>
  download(
    key,
    `${'roundId' in of ? `/api/rounds/${of.roundId}` : `/api/teacher/rooms/${encodeURIComponent(of.code)}`}/research.zip${names ? '?names=true' : ''}`,
    'opsroom-research.zip',
  );

export interface GradebookChoice {
  rule: 'participation' | 'score' | 'rank' | 'mix';
  layout: 'canvas' | 'moodle' | 'plain';
  points: number;
  weights: { participation: number; score: number; rank: number };
}

/** A room's gradebook as CSV in the chosen layout, graded by the chosen rule. */
export function downloadGradebook(key: string, code: string, c: GradebookChoice): Promise<Result<string>> {
  const q = new URLSearchParams({
    rule: c.rule,
    layout: c.layout,
    points: String(c.points),
    wp: String(c.weights.participation),
    ws: String(c.weights.score),
    wr: String(c.weights.rank),
  });
  return download(key, `/api/teacher/rooms/${encodeURIComponent(code)}/gradebook.csv?${q}`, 'opsroom-gradebook.csv');
}

/** The room's students with the school ids mapped to them. */
export const fetchRoster = (key: string, code: string): Promise<Result<RosterView>> =>
  call(`/api/teacher/rooms/${encodeURIComponent(code)}/roster`, { headers: auth(key) });

/** Stores the room's whole roster mapping. */
export const saveRoster = (
  key: string,
  code: string,
  entries: readonly RosterEntry[],
): Promise<Result<{ roomCode: string; mapped: number }>> =>
  call(`/api/teacher/rooms/${encodeURIComponent(code)}/roster`, {
    method: 'PUT',
    headers: { ...auth(key), 'content-type': 'application/json' },
    body: JSON.stringify({ entries }),
  });

/** Fetches a file with the teacher key and hands it to the browser as a download; resolves with its name. */
async function download(key: string, url: string, fallback: string): Promise<Result<string>> {
  let res: Response;
  try {
    res = await fetch(url, { headers: auth(key) });
  } catch {
    return { ok: false, code: 'NETWORK' };
  }
  if (!res.ok) {
    const body = await res.json().catch(() => null);
    return { ok: false, code: body?.error?.code ?? 'INTERNAL' };
  }
  const blob = await res.blob();
  const name = filenameFrom(res.headers.get('content-disposition'), fallback);
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // Revoking at once can cancel the download in some browsers; the Blob is small.
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
  return { ok: true, value: name };
}
