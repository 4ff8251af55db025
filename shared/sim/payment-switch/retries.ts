// Retry cohorts (spec §9). Two numbers per (class, kind, retry number): the attempts landing next
// minute (immediate) and a backoff pool. A backoff delay is exponential, so what is still waiting
// lands the same share each minute whatever its age: the pool needs no ages and no horizon.
import { BACKOFF_MEAN_MIN, MAX_RETRIES } from './constants.ts';

/** Traffic classes: genuine/fraud × issuer group A/B. Group is bit 0, fraud is bit 1. */
export const CLASSES = 4;
export const isFraud = (c: number): boolean => c >= 2;
export const isGroupB = (c: number): boolean => (c & 1) === 1;
/**
 * Kinds of a retried attempt. FRESH: never reached an issuer (new, or shed / dropped in the queue).
 * ISSUER_FAILED: reached its issuer, timed out and was declined "issuer unavailable" — it passed
 * screening and its amount was over the stand-in limit, which a retry does not change.
 */
export const FRESH = 0;
export const ISSUER_FAILED = 1;
export const KINDS = 2;
/** One row per (class, kind, retry number 1..3). */
export const ROWS = CLASSES * KINDS * MAX_RETRIES;
/** The state's array: `ROWS` cells landing next minute, then `ROWS` backoff pools. */
export const CELLS = 2 * ROWS;

/**
 * Share of a backoff pool still waiting after a minute, by retry number: q = e^(−1/m). Retry k waits
 * d ~ Exp(m) and lands at t + max(1, ⌈d⌉), so j minutes later with P = q^(j−1)(1 − q): each minute
 * the pool lands 1 − q of itself, the memoryless property of the exponential.
 */
export const BACKOFF_STAY: readonly number[] = BACKOFF_MEAN_MIN.map((mean) => Math.exp(-1 / mean));

export function rowOf(cls: number, kind: number, retry: number): number {
  return (cls * KINDS + kind) * MAX_RETRIES + (retry - 1);
}

export function emptyRetries(): number[] {
  return new Array<number>(CELLS).fill(0);
}

/**
 * Takes out of `cells` (the step's own copy) the attempts of `row` that land this minute: all those
 * scheduled for next minute, and 1 − q of the backoff pool.
 */
export function takeDue(cells: number[], row: number): number {
  const pool = cells[ROWS + row];
  let due = cells[row];
  cells[row] = 0;
  if (pool !== 0) {
    const stay = pool * BACKOFF_STAY[row % MAX_RETRIES];
    due += pool - stay;
    cells[ROWS + row] = stay;
  }
  return due;
}

/**
 * Adds `amount` attempts of `row` that failed this minute (mutates `cells`, the step's own copy).
 * Immediate: all land next minute; backoff: they join the row's pool.
 */
export function schedule(cells: number[], row: number, amount: number, backoff: boolean): void {
  if (!(amount > 0)) return;
  cells[backoff ? ROWS + row : row] += amount;
}

/** Every attempt still waiting to retry. */
export function waiting(cells: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < CELLS; i++) sum += cells[i];
  return sum;
}
