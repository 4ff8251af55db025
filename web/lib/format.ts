// Numbers in the reader's language: indicator values, goal targets, control values.
import { formatClock, formatDisplay, numberFormat } from '$shared/format.ts';
import type { ControlDef, ControlValue, DisplayDef, IndicatorDef, Snapshot } from '$shared/sim/types.ts';
import { m } from '$lib/paraglide/messages.js';
import { getLocale } from '$lib/paraglide/runtime.js';
import { formatControlNumber } from './sims/control-values.ts';
import type { SimText } from './sims/types.ts';

export function fmt(display: DisplayDef, value: number): string {
  return formatDisplay(display, value, getLocale());
}

/** Shown where a share has nothing under it (`snapshot.na`: the fraud rate with nothing approved). */
export const NOTHING_UNDER = '—';

/** An indicator of a minute as people read it: its value in its unit, or "—" when its share has nothing under it. */
export function fmtIndicator(def: IndicatorDef, s: Pick<Snapshot, 'indicators' | 'na'>): string {
  return s.na?.includes(def.key) ? NOTHING_UNDER : fmt(def.display, s.indicators[def.key] ?? 0);
}

/** A goal's target with no needless zeros: "95 %", "0.1 %", "9 M u". */
export function fmtTarget(display: DisplayDef, target: number): string {
  let digits = display.digits;
  const shown = target * display.scale;
  while (digits > 0 && Math.abs(Math.round(shown * 10 ** (digits - 1)) - shown * 10 ** (digits - 1)) < 1e-9) digits--;
  return formatDisplay({ ...display, digits }, target, getLocale());
}

/** A goal's condition: "≥ 95 %", "≤ 500 ms" (the symbols read the same in every language). */
export function fmtGoal(op: '>=' | '<=', display: DisplayDef, target: number): string {
  return `${op === '>=' ? '≥' : '≤'} ${fmtTarget(display, target)}`;
}

/** A control value as people read it: "60 %", "on", "Backoff", "pressed". */
export function fmtControl(def: ControlDef, value: ControlValue, text: SimText): string {
  switch (def.kind) {
    case 'number':
      return typeof value === 'number' ? formatControlNumber(def, value, getLocale()) : String(value);
    case 'bool':
      return value ? m.value_on() : m.value_off();
    case 'enum':
      return text.controls[def.key]?.options?.[String(value)]?.() ?? String(value);
    case 'action':
      return m.value_pressed();
  }
}

/** A plain number (a count, a minute, a score) in the reader's digits and grouping. */
export function fmtInt(n: number): string {
  return numberFormat(getLocale(), null).format(n);
}

/** A number with `digits` decimals (chart ticks), in the reader's digits and grouping. */
export function fmtNumber(n: number, digits: number): string {
  return numberFormat(getLocale(), digits).format(n);
}

/** The web service's time of day in the reader's style. */
export function fmtClock(minutesOfDay: number): string {
  return formatClock(minutesOfDay, getLocale());
}

/** A wall-clock time (epoch ms), as the hour and minute in the reader's time zone and style. */
export function fmtTimeOfDay(epochMs: number): string {
  const d = new Date(epochMs);
  return formatClock(d.getHours() * 60 + d.getMinutes(), getLocale());
}
