// Pure helpers behind a team's desk: merging minutes, pending vs applied changes, the feed, series
// for the charts and who owns what. Only type imports from shared/, so node tests can load it as is.
import type { ChangeRecord, PlayerView, RoleChange, SeatTurn } from '$shared/protocol/types.ts';
import type { ControlValue, GoalDef, IndicatorDef, SimEvent, SimMeta, Snapshot, Status } from '$shared/sim/types.ts';

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
  return [...changes, c].sort((a, b) => a.seq - b.seq);
}

/**
 * Each control's pending changes, by the minute they apply at: `next` is what the control becomes first
 * (the last received for that minute, as the engine applies it) — next minute on a live desk; in a
 * what-if opened with a play pending, the first of that play — and `after` the one after it, if any.
 */
export function pendingPlan(
  changes: readonly ChangeRecord[],
  currentMinute: number,
): Map<string, { next: ChangeRecord; after: ChangeRecord | null }> {
  const byKey = new Map<string, Map<number, ChangeRecord>>();
  for (const c of changes) {
    if (!isPending(c, currentMinute)) continue;
    const minutes = byKey.get(c.key) ?? new Map<number, ChangeRecord>();
    byKey.set(c.key, minutes);
    const had = minutes.get(c.minute);
    if (!had || had.seq < c.seq) minutes.set(c.minute, c);
  }
  const out = new Map<string, { next: ChangeRecord; after: ChangeRecord | null }>();
  for (const [key, minutes] of byKey) {
    const [next, after] = [...minutes.values()].sort((a, b) => a.minute - b.minute);
    out.set(key, { next, after: after ?? null });
  }
  return out;
}

/** What each control becomes next: its first pending change (see `pendingPlan`). */
export function pendingByKey(changes: readonly ChangeRecord[], currentMinute: number): Map<string, ChangeRecord> {
  return new Map([...pendingPlan(changes, currentMinute)].map(([k, p]) => [k, p.next]));
}

export interface DeskEvent {
  id: string;
  minute: number;
  event: SimEvent;
}

/** The simulation's own events, oldest first (control events are left out: the change records say it, with a name). */
export function deskEvents(snapshots: readonly Snapshot[]): DeskEvent[] {
  const out: DeskEvent[] = [];
  for (const s of snapshots) {
    for (const [i, e] of s.events.entries())
      if (e.kind !== 'control') out.push({ id: `e${s.minute}.${i}`, minute: s.minute, event: e });
  }
  return out;
}

/** A stable id for a role change (it has none of its own): when, which role, to whom. */
export const roleChangeId = (c: RoleChange): string => `r${c.at}.${c.role}.${c.to?.playerId ?? 0}`;

/**
 * The role changes a team hears about: every hand-over (a newcomer, the teacher, a removal or a move),
 * and a late joiner taking a free role. Not the record of who held what at the start, nor the lobby's
 * dealing for another simulator, nor free roles taken in the lobby (minute 0: the team tab shows who
 * owns what), nor, for `me`, the free roles they took on joining (their desk says which are theirs).
 */
export function announcedRoleChanges(changes: readonly RoleChange[], me: number | null = null): RoleChange[] {
  const taken = (c: RoleChange) =>
    c.reason === 'join' && c.from === null && (c.minute === 0 || (me !== null && c.to?.playerId === me));
  return changes.filter((c) => c.reason !== 'start' && c.reason !== 'deal' && !taken(c));
}

/** What the desk's banner announces, oldest first: the model's events and the team's role changes once the round runs. */
export type DeskNote =
  | ({ kind: 'event' } & DeskEvent)
  | { kind: 'role'; id: string; minute: number; change: RoleChange };

export function deskNotes(
  snapshots: readonly Snapshot[],
  roleChanges: readonly RoleChange[] = [],
  me: number | null = null,
): DeskNote[] {
  const notes: DeskNote[] = deskEvents(snapshots).map((e) => ({ kind: 'event', ...e }));
  // Roles moving in the lobby (minute 0: people joining, the teacher dealing) are the feed's, not the
  // banner's: the banner is the round's, and the desk's header already says whose role is whose.
  for (const c of announcedRoleChanges(roleChanges, me))
    if (c.minute > 0) notes.push({ kind: 'role', id: roleChangeId(c), minute: c.minute, change: c });
  // Stable: events keep their order within a minute, role changes come after them in the order they happened.
  return notes
    .map((n, i) => ({ n, i }))
    .sort((a, b) => a.n.minute - b.n.minute || a.i - b.i)
    .map((x) => x.n);
}

export type FeedItem =
  | { kind: 'change'; id: string; minute: number; change: ChangeRecord; pending: boolean }
  | { kind: 'event'; id: string; minute: number; event: SimEvent }
  | { kind: 'role'; id: string; minute: number; change: RoleChange }
  | { kind: 'seat'; id: string; minute: number; turn: SeatTurn };

const FEED_ORDER: Record<FeedItem['kind'], number> = { event: 0, role: 1, seat: 1, change: 2 };

/** A stable id for a seat turn (it has none of its own): when, and whose seat. */
export const seatTurnId = (t: SeatTurn): string => `s${t.at}.${t.playerId ?? 0}.${t.pilot?.kind ?? 'back'}`;

/**
 * The team's feed, newest first: every control change with its author (pending or applied), the
 * simulation's own events (control events are left out: the change records already say it, with a
 * name) and every role that changed hands.
 */
export function feedItems(
  changes: readonly ChangeRecord[],
  snapshots: readonly Snapshot[],
  limit = 60,
  roleChanges: readonly RoleChange[] = [],
  me: number | null = null,
  seatTurns: readonly SeatTurn[] = [],
): FeedItem[] {
  const current = snapshots.at(-1)?.minute ?? -1;
  const items: FeedItem[] = [];
  for (const c of changes)
    items.push({ kind: 'change', id: `c${c.id}`, minute: c.minute, change: c, pending: isPending(c, current) });
  for (const e of deskEvents(snapshots)) items.push({ kind: 'event', ...e });
  for (const c of announcedRoleChanges(roleChanges, me))
    items.push({ kind: 'role', id: roleChangeId(c), minute: c.minute, change: c });
  for (const t of seatTurns) items.push({ kind: 'seat', id: seatTurnId(t), minute: t.minute, turn: t });
  // Newest first. A change applying at minute m was made during minute m − 1: it is older than the
  // events of minute m, so it comes after them; a role handed over for minute m, between the two.
  items.sort(
    (a, b) =>
      b.minute - a.minute ||
      FEED_ORDER[a.kind] - FEED_ORDER[b.kind] ||
      b.id.localeCompare(a.id, 'en', { numeric: true }),
  );
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
export function changeMarks(
  changes: readonly ChangeRecord[],
): { minute: number; authors: string[]; changes: ChangeRecord[] }[] {
  const byMinute = new Map<number, ChangeRecord[]>();
  for (const c of [...changes].sort((a, b) => a.seq - b.seq))
    byMinute.set(c.minute, [...(byMinute.get(c.minute) ?? []), c]);
  return [...byMinute.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([minute, list]) => ({ minute, authors: [...new Set(list.map((c) => c.author.name))], changes: list }));
}

/**
 * The controls a round starts with, before its first minute: the model's defaults, then the
 * scenario's own (what the lobby desk shows; actions have no value).
 */
export function startingControls(
  model: Pick<SimMeta, 'controls' | 'scenarios'>,
  scenario: ScenarioRef,
): Record<string, ControlValue> {
  const out: Record<string, ControlValue> = {};
  for (const c of model.controls) if (c.kind !== 'action') out[c.key] = c.default;
  return { ...out, ...(defOf(model, scenario)?.controls ?? {}) };
}

/**
 * A scenario as these functions read it: a built-in's id, or what a screen shows (`shownScenario`, which is a
 * teacher's own scenario when the round plays one).
 */
export type ScenarioRef = string | { goals: readonly GoalDef[]; controls?: Readonly<Record<string, ControlValue>> };
function defOf(model: Pick<SimMeta, 'scenarios'>, scenario: ScenarioRef) {
  return typeof scenario === 'string' ? model.scenarios.find((s) => s.id === scenario) : scenario;
}

/** The scenario's goals on one indicator (its goal lines). */
export function goalsOn(model: Pick<SimMeta, 'scenarios'>, scenario: ScenarioRef, indicator: string): GoalDef[] {
  return (defOf(model, scenario)?.goals ?? []).filter((g) => g.indicator === indicator);
}

/** The charted indicators: the headline ones, then those the scenario's goals are about. */
export function chartedIndicators(
  model: Pick<SimMeta, 'indicators' | 'scenarios'>,
  scenario: ScenarioRef,
): IndicatorDef[] {
  const goals = new Set((defOf(model, scenario)?.goals ?? []).map((g) => g.indicator));
  return [
    ...model.indicators.filter((i) => i.headline),
    ...model.indicators.filter((i) => !i.headline && goals.has(i.key)),
  ];
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

/**
 * The headline's statuses as the desk shows them: each figure's own (by its thresholds; none for a
 * share with nothing under it) and whether the minute reads critical throughout because most attempts
 * failed — the one reason `Snapshot.status` is harsher than a figure's own.
 */
export function headlineStatuses(
  model: Pick<SimMeta, 'indicators' | 'ownStatus'>,
  s: Pick<Snapshot, 'indicators' | 'status' | 'na'>,
): { own: Record<string, Status | null>; collapse: boolean } {
  const own: Record<string, Status | null> = {};
  let collapse = false;
  for (const def of model.indicators) {
    if (!def.headline || !(def.key in s.indicators)) continue;
    const mine = s.na?.includes(def.key) ? null : model.ownStatus(def.key, s.indicators[def.key]);
    own[def.key] = mine;
    if (s.status[def.key] === 'critical' && mine !== 'critical') collapse = true;
  }
  return { own, collapse };
}

/** What the autopilot did while it played a seat: its changes with each control's value before, oldest first. */
export interface AutopilotSummary {
  /** The turn that handed the seat back. */
  id: string;
  roles: string[];
  /** Minutes the autopilot played (from its first minute to the one the student took the seat back at). */
  minutes: number;
  changes: { key: string; from: ControlValue | undefined; to: ControlValue; minute: number }[];
}

/**
 * The last time `playerId`'s seat came back from the autopilot, if it did: for how long it played and what it changed
 * ("Autopilot ran Stand-in for 6 minutes: limit 100 → 60 u at minute 18"). `snapshots`: the team's minutes, for the
 * values before each change.
 */
export function autopilotSummary(
  turns: readonly SeatTurn[],
  changes: readonly ChangeRecord[],
  snapshots: readonly Snapshot[],
  playerId: number | null,
): AutopilotSummary | null {
  if (playerId === null) return null;
  const mine = turns.filter((t) => t.playerId === playerId);
  const back = mine.at(-1);
  const before = mine.at(-2);
  if (!back || back.pilot !== null || before?.pilot?.kind !== 'autopilot') return null;
  const made = changes.filter(
    (c) =>
      c.actor.kind === 'autopilot' &&
      c.author.playerId === playerId &&
      c.minute >= before.minute &&
      c.minute <= back.minute,
  );
  return {
    id: seatTurnId(back),
    roles: before.roles,
    minutes: Math.max(0, back.minute - before.minute),
    changes: made.map((c) => ({
      key: c.key,
      from: snapshots.find((s) => s.minute === c.minute - 1)?.controls[c.key],
      to: c.value,
      minute: c.minute,
    })),
  };
}
