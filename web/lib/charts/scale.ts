// The y axis of every trend chart, kept pure so node tests load it. A readable range: it holds the
// data so far and the goal line, never zooms into noise (a flat 330 ms line is not drawn on a
// 320–340 ms axis), stays within 0–100 % for shares, and ends on round ticks. Computed from the data
// so far, it only widens as the round goes on: the axis does not jump minute by minute.

export interface Axis {
  min: number;
  max: number;
  ticks: number[];
}

export interface RangeOptions {
  /** Decimals the indicator is shown with: ticks never get finer than that. */
  digits: number;
  /** A share shown in %: the axis stays within 0–100. */
  share?: boolean;
  /** The smallest span, as a share of the largest magnitude shown (default a quarter). */
  minSpan?: number;
  /** At most this many ticks. */
  maxTicks?: number;
}

/** 1, 2, 2.5 or 5 × 10^k: the tick step for a span and a number of ticks. */
export function niceStep(span: number, maxTicks: number, digits: number): number {
  const raw = span / Math.max(1, maxTicks - 1);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((f) => f * mag).find((s) => s >= raw - 1e-12) ?? 10 * mag;
  // A step finer than the shown decimals would repeat tick labels.
  return Math.max(step, 10 ** -digits);
}

function tidy(x: number): number {
  return Math.round(x * 1e9) / 1e9;
}

/** The axis for values (display units) and goal targets (display units). */
export function trendAxis(values: readonly number[], goals: readonly number[], opts: RangeOptions): Axis {
  const all = [...values, ...goals].filter((v) => Number.isFinite(v));
  const maxTicks = opts.maxTicks ?? 5;
  const floor = opts.share ? 0 : -Infinity;
  const ceil = opts.share ? 100 : Infinity;
  let lo = all.length ? Math.min(...all) : 0;
  let hi = all.length ? Math.max(...all) : 1;
  const magnitude = Math.max(Math.abs(lo), Math.abs(hi));
  const minSpan = Math.max((opts.minSpan ?? 0.25) * magnitude, 4 * 10 ** -opts.digits);
  if (hi - lo < minSpan) {
    const mid = (lo + hi) / 2;
    lo = mid - minSpan / 2;
    hi = mid + minSpan / 2;
  }
  // Some air above and below, so a line or a goal on the edge stays visible.
  const pad = (hi - lo) * 0.05;
  lo -= pad;
  hi += pad;
  // Never below zero for data that never is; shares within 0–100.
  const nonNegative = all.every((v) => v >= 0);
  if (nonNegative && lo < 0) [lo, hi] = [0, hi - lo];
  if (lo < floor) [lo, hi] = [floor, Math.min(ceil, hi + (floor - lo))];
  if (hi > ceil) [lo, hi] = [Math.max(floor, lo - (hi - ceil)), ceil];
  const step = niceStep(hi - lo, maxTicks, opts.digits);
  const min = tidy(Math.floor(lo / step + 1e-9) * step);
  const max = tidy(Math.ceil(hi / step - 1e-9) * step);
  const ticks: number[] = [];
  for (let t = min; t <= max + step / 2; t += step) ticks.push(tidy(t));
  return { min, max: max > min ? max : min + step, ticks: ticks.length > 1 ? ticks : [min, tidy(min + step)] };
}

/** Minute ticks for a round of `minutes`: at most `maxTicks`, on round numbers (5, 10, 15…). */
export function minuteTicks(minutes: number, maxTicks = 7): number[] {
  const step = niceStep(Math.max(1, minutes), maxTicks, 0);
  const out: number[] = [];
  for (let t = 0; t <= minutes + 1e-9; t += step) out.push(tidy(t));
  return out;
}
