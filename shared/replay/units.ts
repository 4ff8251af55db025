// The base unit of an indicator, read from how it is displayed (for CSV column names and bounds).
import type { DisplayDef, IndicatorDef } from '../sim/types.ts';

const BASE: Record<string, string> = { '%': 'share', '‰': 'share', 'M u': 'u', 'k tx': 'tx', '': 'count' };

export function baseUnit(display: DisplayDef): string {
  return BASE[display.unit] ?? display.unit;
}

/** Smallest and largest value an indicator can take: shares lie in [0, 1], everything else is ≥ 0. */
export function bounds(def: IndicatorDef): [number, number] {
  return baseUnit(def.display) === 'share' ? [0, 1] : [0, Infinity];
}
