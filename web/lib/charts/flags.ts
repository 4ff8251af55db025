// Where the author labels of the change markers go above a trend chart: at the marker's x (the
// chart's own pixel mapping), on the first row where they do not overlap a label already placed.
// Pure, so node tests load it.

export interface Flag {
  minute: number;
  /** Shown: the authors' names. */
  text: string;
  /** Hover text: what each of them changed. */
  title: string;
}
export interface PlacedFlag extends Flag {
  x: number;
  row: number;
  /** 'end' when the label would run past the right edge: it then ends at the marker. */
  anchor: 'start' | 'end';
}
/** The chart area in canvas pixels and the x axis's range, as Chart.js laid them out. */
export interface ChartLayout {
  left: number;
  right: number;
  min: number;
  max: number;
}

/** Label width estimate: labels are short names in a small font; a little overlap is harmless. */
const CHAR_PX = 6.5;
const PAD_PX = 8;

export function placeFlags(
  flags: readonly Flag[],
  layout: ChartLayout,
  maxRows = 3,
): { flags: PlacedFlag[]; rows: number } {
  const span = layout.max - layout.min;
  if (!(span > 0)) return { flags: [], rows: 0 };
  const ends: number[] = [];
  const placed: PlacedFlag[] = [];
  for (const f of [...flags].sort((a, b) => a.minute - b.minute)) {
    if (f.minute < layout.min || f.minute > layout.max) continue;
    const x = layout.left + ((f.minute - layout.min) / span) * (layout.right - layout.left);
    const width = f.text.length * CHAR_PX + PAD_PX;
    const anchor = x + width > layout.right + PAD_PX ? 'end' : 'start';
    const from = anchor === 'start' ? x : x - width;
    let row = ends.findIndex((end) => end <= from);
    if (row < 0) row = ends.length < maxRows ? ends.length : ends.indexOf(Math.min(...ends));
    ends[row] = Math.max(ends[row] ?? -Infinity, from + width);
    placed.push({ ...f, x, row, anchor });
  }
  return { flags: placed, rows: ends.length };
}
