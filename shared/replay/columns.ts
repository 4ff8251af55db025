// A round's minutes as columns (one array per indicator or control) — a compact form for the replay
// payload — and back to snapshots for the desk.
import type { ControlValue, SimEvent, Snapshot, Status } from '../sim/types.ts';

export interface SnapshotColumns {
  minutes: number[];
  clock: number[] | null;
  indicators: Record<string, number[]>;
  status: Record<string, Status[]>;
  controls: Record<string, ControlValue[]>;
  detail: Record<string, number[]>;
  /** Per minute; most are empty. */
  events: SimEvent[][];
  /** Per minute, the shares with nothing under them (`Snapshot.na`); null when no minute has one. */
  na: string[][] | null;
}

function columnsOf<T>(rows: readonly Record<string, T>[]): Record<string, T[]> {
  const out: Record<string, T[]> = {};
  if (rows.length === 0) return out;
  for (const k of Object.keys(rows[0])) out[k] = rows.map((r) => r[k]);
  return out;
}

/** The clock of every minute, or null for a model without one (a model shows it at every minute or never). */
function clockColumn(snaps: readonly Snapshot[]): number[] | null {
  if (snaps[0]?.clock === undefined) return null;
  return snaps.map((s) => {
    if (s.clock === undefined)
      throw new Error(`minute ${s.minute} has no clock, though minute ${snaps[0].minute} has one`);
    return s.clock;
  });
}

export function toColumns(snaps: readonly Snapshot[]): SnapshotColumns {
  return {
    minutes: snaps.map((s) => s.minute),
    clock: clockColumn(snaps),
    indicators: columnsOf(snaps.map((s) => s.indicators)),
    status: columnsOf(snaps.map((s) => s.status)),
    controls: columnsOf(snaps.map((s) => s.controls)),
    detail: columnsOf(snaps.map((s) => s.detail)),
    events: snaps.map((s) => s.events),
    na: snaps.some((s) => s.na) ? snaps.map((s) => s.na ?? []) : null,
  };
}

function rowAt<T>(cols: Record<string, T[]>, i: number): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k in cols) out[k] = cols[k][i];
  return out;
}

/** The snapshot at position i (not minute) of the columns, as the desk draws it. */
export function snapshotAt(c: SnapshotColumns, i: number): Snapshot {
  const s: Snapshot = {
    minute: c.minutes[i],
    indicators: rowAt(c.indicators, i),
    status: rowAt(c.status, i),
    controls: rowAt(c.controls, i),
    detail: rowAt(c.detail, i),
    events: c.events[i],
  };
  if (c.clock) s.clock = c.clock[i];
  if (c.na && c.na[i].length > 0) s.na = c.na[i];
  return s;
}

export function fromColumns(c: SnapshotColumns): Snapshot[] {
  return c.minutes.map((_, i) => snapshotAt(c, i));
}
