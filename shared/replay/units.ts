// Units: the base unit of an indicator, read from how it is displayed (for bounds), and how a number
// control is displayed (for the CSV export).
import type { DisplayDef, IndicatorDef, NumberControlDef } from '../sim/types.ts';

const BASE: Record<string, string> = { '%': 'share', '‰': 'share', 'M u': 'u', 'k tx': 'tx', '': 'count' };

export function baseUnit(display: DisplayDef): string {
  return BASE[display.unit] ?? display.unit;
}

/** Smallest and largest value an indicator can take: shares lie in [0, 1], everything else is ≥ 0. */
export function bounds(def: IndicatorDef): [number, number] {
  return baseUnit(def.display) === 'share' ? [0, 1] : [0, Infinity];
}

/** How a number control is shown, as a DisplayDef: shares as %, sigma as σ, with the step's decimals. */
const CONTROL_UNITS: Record<string, { scale: number; unit: string }> = {
  count: { scale: 1, unit: '' },
  share: { scale: 100, unit: '%' },
  s: { scale: 1, unit: 's' },
  sigma: { scale: 1, unit: 'σ' },
  u: { scale: 1, unit: 'u' },
};

export function controlDisplay(def: NumberControlDef): DisplayDef {
  const u = CONTROL_UNITS[def.unit] ?? { scale: 1, unit: def.unit };
  const step = def.step * u.scale;
  let digits = 0;
  while (digits < 6 && Math.abs(Math.round(step * 10 ** digits) - step * 10 ** digits) > 1e-9) digits++;
  return { scale: u.scale, digits, unit: u.unit };
}
