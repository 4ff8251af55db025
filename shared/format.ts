// Locale-aware number formatting for indicators and controls (one cached Intl.NumberFormat per locale and precision).
import type { DisplayDef } from './sim/types.ts';

const cache = new Map<string, Intl.NumberFormat>();

export function numberFormat(locale: string, digits: number): Intl.NumberFormat {
  const id = `${locale}|${digits}`;
  let f = cache.get(id);
  if (!f) {
    f = new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits });
    cache.set(id, f);
  }
  return f;
}

/** "99.9 %" in en, "99,9 %" in it: value × scale with the display's digits, then the unit. */
export function formatDisplay(display: DisplayDef, value: number, locale = 'en'): string {
  let x = value * display.scale;
  // Keep "-0.0" off the screen.
  if (Object.is(Math.round(x * 10 ** display.digits), -0)) x = 0;
  const n = numberFormat(locale, display.digits).format(x);
  return display.unit ? `${n} ${display.unit}` : n;
}

/** Time of day from minutes after midnight, "08:05". */
export function formatClock(minutesOfDay: number): string {
  const m = ((Math.floor(minutesOfDay) % 1440) + 1440) % 1440;
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}
