// The replay's bookkeeping, kept pure (type imports only) so node tests load it: the desk at a
// minute, who changed what, the chapters of all teams, the lines of the compare chart, and how
// rounds and their what-if forks link up in the teacher's history.
import type {
  ChangeRecord,
  HistoryRoom,
  HistoryRound,
  PlayerView,
  ReplayTeam,
  RoundReplay,
  RoundState,
  SeatTurn,
} from '$shared/protocol/types.ts';
import type { Chapter } from '$shared/replay/chapters.ts';
import type { SnapshotColumns } from '$shared/replay/columns.ts';
import type { Snapshot } from '$shared/sim/types.ts';

/** The last minute any team of the round reached (0 when nothing was stored yet). */
export function lastMinuteOf(replay: RoundReplay): number {
  let last = 0;
  for (const t of replay.teams) last = Math.max(last, t.columns.minutes.at(-1) ?? 0);
  return last;
}

export function clampMinute(minute: number, last: number): number {
  return Math.max(0, Math.min(last, Math.round(Number.isFinite(minute) ? minute : 0)));
}

/**
 * The round's state as the desk showed it at that minute: finished only at the last minute of a
 * finished round; before that it was running (so goals read "met so far", as they did live).
 */
export function stateAt(round: { state: RoundState }, minute: number, last: number): RoundState {
  if (minute < last) return 'running';
  return round.state === 'lobby' ? 'running' : round.state;
}

/** Minutes 0..minute of a team. */
export function snapshotsUpTo(snapshots: readonly Snapshot[], minute: number): Snapshot[] {
  return snapshots.filter((s) => s.minute <= minute);
}

/**
 * Changes applied by that minute. A fork from minute m copies exactly these, so the desk shown at
 * m is the desk the what-if round starts from (a change made during m applied at m + 1: not yet).
 */
export function changesUpTo(changes: readonly ChangeRecord[], minute: number): ChangeRecord[] {
  return changes.filter((c) => c.minute <= minute).sort((a, b) => a.seq - b.seq);
}

/**
 * The replay's roster as the desk's players at `minute`: each team's members with their roles, and whoever played a
 * seat then instead of its student (the autopilot, the teacher: its last seat turn up to that minute). Nobody is
 * connected in a replay.
 */
export function rosterOf(
  teams: readonly Pick<ReplayTeam, 'teamId' | 'members' | 'seatTurns'>[],
  minute = Number.POSITIVE_INFINITY,
): PlayerView[] {
  return teams.flatMap((t) =>
    t.members.map((mb) => ({
      id: mb.playerId,
      name: mb.name,
      teamId: t.teamId,
      roles: mb.roles,
      connected: false,
      idle: false,
      free: false,
      pilot: t.seatTurns.findLast((s) => s.playerId === mb.playerId && s.minute <= minute)?.pilot ?? null,
    })),
  );
}

export interface ChapterItem {
  id: string;
  minute: number;
  chapter: Chapter;
  /** Teams that lived this moment, in team order. */
  teamIds: number[];
}

/** Every team's chapters, one item per moment: a scenario event all teams share is listed once. */
export function groupChapters(teams: readonly Pick<ReplayTeam, 'teamId' | 'idx' | 'chapters'>[]): ChapterItem[] {
  const items = new Map<string, ChapterItem>();
  for (const t of [...teams].sort((a, b) => a.idx - b.idx)) {
    for (const c of t.chapters) {
      const id = `${c.minute}|${c.kind}|${c.goal ?? ''}|${c.count ?? ''}`;
      const item = items.get(id);
      if (item) item.teamIds.push(t.teamId);
      else items.set(id, { id, minute: c.minute, chapter: c, teamIds: [t.teamId] });
    }
  }
  return [...items.values()].sort((a, b) => a.minute - b.minute);
}

/** Jumping to a chapter keeps the team shown when it lived the moment, else shows the first that did. */
export function teamForChapter(item: ChapterItem, current: number): number {
  return item.teamIds.includes(current) ? current : item.teamIds[0];
}

export type LineKind = 'team' | 'this-fork' | 'original' | 'fork';
export interface CompareLine {
  id: string;
  kind: LineKind;
  team: { idx: number; name: string };
  columns: SnapshotColumns;
  /** Room and minute of a what-if line. */
  code?: string;
  minute?: number;
}

/**
 * The compare chart's lines: every team of this round, then the original team (when this round is
 * a what-if) and every what-if forked from this round (each loaded from its own replay).
 */
export function compareLines(replay: RoundReplay, related: readonly RoundReplay[]): CompareLine[] {
  // A what-if's line says "what-if" already: it names the team it comes from ("What-if from minute 10: Team 2").
  const named = (t: ReplayTeam) => (!t.name && t.whatIf ? t.whatIf : t);
  const lines: CompareLine[] = replay.teams.map((t) => ({
    id: `r${replay.round.id}t${t.teamId}`,
    kind: replay.origin ? 'this-fork' : 'team',
    team: replay.origin ? named(t) : t,
    columns: t.columns,
  }));
  const from = replay.origin;
  const origin = from && related.find((r) => r.round.id === from.roundId);
  const originTeam = from && origin?.teams.find((t) => t.teamId === from.teamId);
  if (origin && originTeam)
    lines.push({
      id: `r${origin.round.id}t${originTeam.teamId}`,
      kind: 'original',
      team: originTeam,
      columns: originTeam.columns,
    });
  for (const f of replay.forks) {
    const r = related.find((x) => x.round.id === f.roundId);
    const t = r?.teams[0];
    if (r && t)
      lines.push({
        id: `r${r.round.id}t${t.teamId}`,
        kind: 'fork',
        team: named(t),
        columns: t.columns,
        code: f.roomCode,
        minute: f.minute,
      });
  }
  return lines;
}

/** One indicator of a line as chart points in display units. */
export function linePoints(columns: SnapshotColumns, key: string, scale: number): { x: number; y: number }[] {
  const ys = columns.indicators[key] ?? [];
  return columns.minutes.map((x, i) => ({ x, y: (ys[i] ?? 0) * scale }));
}

/** An indicator's value at a minute, or null when the line did not play that minute. */
export function valueAt(columns: SnapshotColumns, key: string, minute: number): number | null {
  const i = columns.minutes.indexOf(minute);
  return i < 0 ? null : (columns.indicators[key]?.[i] ?? null);
}

export interface RoundRef {
  round: HistoryRound;
  code: string;
}

/** Every round of the history by id, and the what-if rounds forked from each. */
export function historyIndex(rooms: readonly HistoryRoom[]): {
  byId: Map<number, RoundRef>;
  forks: Map<number, RoundRef[]>;
} {
  const byId = new Map<number, RoundRef>();
  const forks = new Map<number, RoundRef[]>();
  for (const room of rooms) for (const round of room.rounds) byId.set(round.id, { round, code: room.code });
  for (const ref of byId.values()) {
    const from = ref.round.forkOf?.roundId;
    if (from === undefined) continue;
    forks.set(from, [...(forks.get(from) ?? []), ref]);
  }
  return { byId, forks };
}

/** The file name a download was sent with (Content-Disposition), or the fallback. */
export function filenameFrom(disposition: string | null, fallback: string): string {
  const m = /filename="([^"]+)"/.exec(disposition ?? '') ?? /filename=([^;\s]+)/.exec(disposition ?? '');
  const name = m?.[1]?.replace(/[\\/]/g, '_');
  return name || fallback;
}

/** The spans of a team's round in which a pilot played a seat (the scrubber's marks), in minutes `from`…`to`. */
export function pilotSpans(
  turns: readonly SeatTurn[],
  end: number,
): { playerId: number; name: string; kind: 'autopilot' | 'teacher'; from: number; to: number }[] {
  const out: { playerId: number; name: string; kind: 'autopilot' | 'teacher'; from: number; to: number }[] = [];
  const bySeat = new Map<number, SeatTurn[]>();
  for (const t of turns) if (t.playerId !== null) bySeat.set(t.playerId, [...(bySeat.get(t.playerId) ?? []), t]);
  for (const [playerId, list] of bySeat)
    for (const [i, t] of list.entries()) {
      if (!t.pilot) continue;
      const to = Math.min(end, list[i + 1]?.minute ?? end);
      if (to > t.minute) out.push({ playerId, name: t.name, kind: t.pilot.kind, from: t.minute, to });
    }
  return out.sort((a, b) => a.from - b.from);
}
