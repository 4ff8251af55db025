// Retry cohorts (spec §9). A flat ring buffer of expected attempts per (class, kind, retry number)
// and minute, so the state stays plain JSON and a step copies one small array.
import { BACKOFF_MEAN_MIN, MAX_RETRIES, RETRY_HORIZON } from './constants.ts';

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
export const H = RETRY_HORIZON;
export const RING_SIZE = ROWS * H;

export function rowOf(cls: number, kind: number, retry: number): number {
  return (cls * KINDS + kind) * MAX_RETRIES + (retry - 1);
}

/**
 * Backoff weights: BACKOFF_WEIGHTS[k − 1][j − 1] = share of retry k landing j minutes later.
 * d ~ Exp(mean) lands at t + max(1, ⌈d⌉): P(j = 1) = 1 − e^(−1/m), P(j) = e^(−(j−1)/m) − e^(−j/m);
 * the tail beyond the horizon goes to the last minute so no attempt is lost. Computed once.
 */
export const BACKOFF_WEIGHTS: readonly Float64Array[] = BACKOFF_MEAN_MIN.map((mean) => {
  const w = new Float64Array(H);
  for (let j = 1; j <= H; j++) {
    const from = j === 1 ? 1 : Math.exp(-(j - 1) / mean);
    const to = j === H ? 0 : Math.exp(-j / mean);
    w[j - 1] = from - to;
  }
  return w;
});

export function emptyRing(): number[] {
  return new Array<number>(RING_SIZE).fill(0);
}

/** Slot of minute `minute` in a row of the ring. */
export function slotOf(row: number, minute: number): number {
  return row * H + (minute % H);
}

/**
 * Adds `amount` attempts of `row` failed in minute `minute` to the ring (mutates `ring`, a copy owned
 * by the step). Immediate: all in minute + 1; backoff: spread with the retry's weights.
 */
export function schedule(
  ring: number[],
  row: number,
  retry: number,
  minute: number,
  amount: number,
  backoff: boolean,
): void {
  if (!(amount > 0)) return;
  const base = row * H;
  if (!backoff) {
    ring[base + ((minute + 1) % H)] += amount;
    return;
  }
  const w = BACKOFF_WEIGHTS[retry - 1];
  // The slot of `minute` was emptied before scheduling, so offset H reuses it.
  for (let j = 1; j <= H; j++) ring[base + ((minute + j) % H)] += amount * w[j - 1];
}
