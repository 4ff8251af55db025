// Pure helpers behind a team's desk: merging minutes, pending vs applied changes, the feed, series
// for the charts and who owns what. Only type imports from shared/, so node tests can load it as is.
import type { ChangeRecord, PlayerView } from '$shared/protocol/types.ts';
import type { ControlValue, GoalDef, IndicatorDef, SimEvent, SimMeta, Snapshot } from '$shared/sim/types.ts';

/**
 * Adds one minute to the history. The same minute again replaces it (a repeat after a re-join);
 * a minute further ahead than the next one means minutes were missed: the caller re-joins to get the
 * whole history instead of guessing.
 */
export function mergeMinute(snapshots: readonly Snapshot[], next: Snapshot): { snapshots: Snapshot[]; gap: boolean } {
  const last = snapshots.at(-1);
  if (!last) return next.minute === 0 ? { snapshots: [next], gap: false } : { snapshots: [...snapshots], gap: true };
  if (next.minute === last.minute + 1) return { snapshots: [...snapshots, next], gap: false };
  if (next.minute <= last.minute) {
    const out = snapshots.slice(0, next.minute);
    out.push(next);
    return { snapshots: out, gap: false };
  }
  return { snapshots: [...snapshots], gap: true };
}

/** A change is pending until the minute it applies to has been computed. */
export function isPending(change: ChangeRecord, currentMinute: number): boolean {
  return change.minute > currentMinute;
}

/** Adds a change once (it arrives both as the ack of the author and as the team's `pending` event). */
export function addChange(changes: readonly ChangeRecord[], c: ChangeRecord): ChangeRecord[] {
  if (changes.some((x) => x.id === c.id)) return [...changes];
  return [...changes, c].sort((a, b) => a.id - b.id);
}

/** The latest pending change of each control: what the control will be next minute. */
export function pendingByKey(changes: readonly ChangeRecord[], currentMinute: number): Map<string, ChangeRecord> {
  const out = new Map<string, ChangeRecord>();
  for (const c of changes) if (isPending(c, currentMinute)) out.set(c.key, c);
  return out;
}

export interface DeskEvent {
  id: string;
  minute: number;
  event: SimEvent;
}

/** The simulation's own events, oldest first (control events are left out: the change records say it, with a name). */
export function deskEvents(snapshots: readonly Snapshot[]): DeskEvent[] {
  const out: DeskEvent[] = [];
  for (const s of snapshots) s.events.forEach((e, i) => e.kind !== 'control' && out.push({ id: `e${s.minute}.${i}`, minute: s.minute, event: e }));
  return out;
}

export type FeedItem =
  | { kind: 'change'; id: string; minute: number; change: ChangeRecord; pending: boolean }
  | { kind: 'event'; id: string; minute: number; event: SimEvent };

/**
 * The team's feed, newest first: every control change with its author (pending or applied) and the
 * simulation's own events (control events are left out: the change records already say it, with a name).
 */
export function feedItems(changes: readonly ChangeRecord[], snapshots: readonly Snapshot[], limit = 60): FeedItem[] {
  const current = snapshots.at(-1)?.minute ?? -1;
  const items: FeedItem[] = [];
  for (const c of changes) items.push({ kind: 'change', id: `c${c.id}`, minute: c.minute, change: c, pending: isPending(c, current) });
  for (const e of deskEvents(snapshots)) items.push({ kind: 'event', ...e });
  // Newest first. A change applying at minute m was made during minute m − 1: it is older than the
  // events of minute m, so it comes after them.
  items.sort((a, b) => b.minute - a.minute || (a.kind === b.kind ? b.id.localeCompare(a.id, 'en', { numeric: true }) : a.kind === 'change' ? 1 : -1));
  return items.slice(0, limit);
}

/** One indicator over the minutes so far, as chart points in display units (value × scale). */
export function seriesOf(snapshots: readonly Snapshot[], key: string, scale: number): { x: number; y: number }[] {
  return snapshots.map((s) => ({ x: s.minute, y: (s.indicators[key] ?? 0) * scale }));
}

/** Minutes at which applied control changes took effect (markers on the trend charts). */
export function changeMinutes(changes: readonly ChangeRecord[], currentMinute: number): number[] {
  return [...new Set(changes.filter((c) => !isPending(c, currentMinute)).map((c) => c.minute))];
}

/** Changes grouped by the minute they took effect (one marker each on the trend charts), naming every author once. */
export function changeMarks(changes: readonly ChangeRecord[]): { minute: number; authors: string[]; changes: ChangeRecord[] }[] {
  const byMinute = new Map<number, ChangeRecord[]>();
  for (const c of [...changes].sort((a, b) => a.id - b.id)) byMinute.set(c.minute, [...(byMinute.get(c.minute) ?? []), c]);
  return [...byMinute.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([minute, list]) => ({ minute, authors: [...new Set(list.map((c) => c.author.name))], changes: list }));
}

/**
 * The controls a round starts with, before its first minute: the model's defaults, then the
 * scenario's own (what the lobby desk shows; actions have no value).
 */
export function startingControls(model: Pick<SimMeta, 'controls' | 'scenarios'>, scenario: string): Record<string, ControlValue> {
  const out: Record<string, ControlValue> = {};
  for (const c of model.controls) if (c.kind !== 'action') out[c.key] = c.default;
  return { ...out, ...(model.scenarios.find((s) => s.id === scenario)?.controls ?? {}) };
}

/** The scenario's goals on one indicator (its goal lines). */
export function goalsOn(model: Pick<SimMeta, 'scenarios'>, scenario: string, indicator: string): GoalDef[] {
  return (model.scenarios.find((s) => s.id === scenario)?.goals ?? []).filter((g) => g.indicator === indicator);
}

/** The charted indicators: the headline ones, then those the scenario's goals are about. */
export function chartedIndicators(model: Pick<SimMeta, 'indicators' | 'scenarios'>, scenario: string): IndicatorDef[] {
  const goals = new Set((model.scenarios.find((s) => s.id === scenario)?.goals ?? []).map((g) => g.indicator));
  return [...model.indicators.filter((i) => i.headline), ...model.indicators.filter((i) => !i.headline && goals.has(i.key))];
}

/** Members of a team in the room's order. */
export function teamMembers(players: readonly PlayerView[], teamId: number | null): PlayerView[] {
  return teamId === null ? [] : players.filter((p) => p.teamId === teamId);
}

/** The names of the members who own a role (normally one). */
export function ownersOf(players: readonly PlayerView[], teamId: number | null, roleId: string): string[] {
  return teamMembers(players, teamId)
    .filter((p) => p.roles.includes(roleId))
    .map((p) => p.name);
}
