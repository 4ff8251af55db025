// Number controls travel in base units (shares as fractions) and are shown in display units
// (shares as %). Pure: node tests load it directly.
import type { NumberControlDef } from '$shared/sim/types.ts';
import { numberFormat } from '$shared/format.ts';

/** How a base unit is shown: multiply by `scale`, then the symbol. */
const UNITS: Record<string, { scale: number; symbol: string }> = {
  count: { scale: 1, symbol: '' },
  share: { scale: 100, symbol: '%' },
  s: { scale: 1, symbol: 's' },
  sigma: { scale: 1, symbol: 'σ' },
  u: { scale: 1, symbol: 'u' },
};

export function unitOf(def: NumberControlDef): { scale: number; symbol: string } {
  return UNITS[def.unit] ?? { scale: 1, symbol: def.unit };
}

/** Decimals needed to write a step (0.1 → 1, 0.01 → 2, 1 → 0). */
export function decimalsOf(step: number): number {
  let d = 0;
  while (d < 6 && Math.abs(Math.round(step * 10 ** d) - step * 10 ** d) > 1e-9) d++;
  return d;
}

/** The input's bounds and step in display units. */
export function displayBounds(def: NumberControlDef): {
  min: number;
  max: number;
  step: number;
  decimals: number;
  symbol: string;
} {
  const u = unitOf(def);
  const step = round(def.step * u.scale, 9);
  return {
    min: round(def.min * u.scale, 9),
    max: round(def.max * u.scale, 9),
    step,
    decimals: decimalsOf(step),
    symbol: u.symbol,
  };
}

function round(x: number, d: number): number {
  return Math.round(x * 10 ** d) / 10 ** d;
}

export function toDisplay(def: NumberControlDef, value: number): number {
  const b = displayBounds(def);
  return round(value * unitOf(def).scale, b.decimals);
}

/**
 * A typed display value → the base value the server accepts: clamped to the range and snapped to
 * the step (so 0.6 + float noise never fails the server's step check). null when not a number.
 */
export function fromDisplay(def: NumberControlDef, shown: number): number | null {
  if (!Number.isFinite(shown)) return null;
  const base = shown / unitOf(def).scale;
  const k = Math.round((Math.min(def.max, Math.max(def.min, base)) - def.min) / def.step);
  const snapped = Math.min(def.max, def.min + k * def.step);
  return round(snapped, decimalsOf(def.step));
}

/**
 * A value the student typed, checked rather than corrected: within the range and on a step it is
 * the base value to send; otherwise null, and the input says what is allowed (9 in a 0.5–5 field
 * is not quietly turned into 5).
 */
export function checkDisplay(def: NumberControlDef, shown: number): number | null {
  if (!Number.isFinite(shown)) return null;
  const b = displayBounds(def);
  const eps = b.step * 1e-6;
  if (shown < b.min - eps || shown > b.max + eps) return null;
  const k = (shown - b.min) / b.step;
  if (Math.abs(k - Math.round(k)) > 1e-6) return null;
  return fromDisplay(def, shown);
}

/** "60 %", "3.0 σ", "12": a number control's value in the reader's number format. */
export function formatControlNumber(def: NumberControlDef, value: number, locale: string): string {
  const b = displayBounds(def);
  const n = numberFormat(locale, b.decimals).format(toDisplay(def, value));
  return b.symbol ? `${n} ${b.symbol}` : n;
}
