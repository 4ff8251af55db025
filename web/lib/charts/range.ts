// The trend charts' y range, kept pure so node tests can load it.

/**
 * The y range: Chart.js fits the data, but a nearly flat line (99.9 % all round) would get ticks
 * 1e-14 apart; keep at least a few display steps of span, and no negative axis for positive data.
 */
export function yRange(ys: readonly number[], digits: number): { min?: number; max?: number } {
  if (ys.length === 0) return {};
  const lo = Math.min(...ys);
  const hi = Math.max(...ys);
  const span = 4 * 10 ** -digits;
  if (hi - lo >= span) return {};
  let min = (lo + hi) / 2 - span / 2;
  if (lo >= 0 && min < 0) min = 0;
  return { min, max: min + span };
}
