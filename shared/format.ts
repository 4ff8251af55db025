// Locale-aware formatting of numbers, indicators and the time of day, with one cached Intl formatter
// per locale and style (Intl constructors are slow; a desk formats hundreds of numbers a minute).
import type { DisplayDef } from './sim/types.ts';

/**
 * The Intl locale for a language of the app. Digits are Latin in every language, Nepali included: the
 * Nepali seed page writes its figures that way, and browsers without Nepali locale data (Debian's
 * Chromium) would otherwise show Latin digits where Node shows Devanagari ones.
 */
export function intlLocale(locale: string): string {
  return locale.includes('-u-') ? locale : `${locale}-u-nu-latn`;
}

const numberFormats = new Map<string, Intl.NumberFormat>();

/** A cached Intl.NumberFormat with `digits` decimals; null keeps Intl's default (up to 3). */
export function numberFormat(locale: string, digits: number | null): Intl.NumberFormat {
  const id = `${locale}|${digits}`;
  let f = numberFormats.get(id);
  if (!f) {
    f = new Intl.NumberFormat(
      intlLocale(locale),
      digits === null ? {} : { minimumFractionDigits: digits, maximumFractionDigits: digits },
    );
    numberFormats.set(id, f);
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

const clockFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * Time of day from minutes after midnight. Without a locale "08:05" (the CLI, CSV, logs); with one,
 * in the reader's style: "08:05 AM" in English, "08.05" in Indonesian, a 24-hour clock elsewhere.
 */
export function formatClock(minutesOfDay: number, locale?: string): string {
  const m = ((Math.floor(minutesOfDay) % 1440) + 1440) % 1440;
  if (!locale) return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
  let f = clockFormats.get(locale);
  if (!f) {
    // The hour cycle is named so that a browser lacking a locale's data still writes its clock.
    const hourCycle = locale.startsWith('en') ? undefined : 'h23';
    f = new Intl.DateTimeFormat(intlLocale(locale), { hour: '2-digit', minute: '2-digit', timeZone: 'UTC', hourCycle });
    clockFormats.set(locale, f);
  }
  return f.format(m * 60_000);
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** A date and time (when a round was played) in the reader's style, in the reader's time zone. */
export function formatDateTime(epochMs: number, locale: string): string {
  let f = dateFormats.get(locale);
  if (!f) {
    f = new Intl.DateTimeFormat(intlLocale(locale), { dateStyle: 'medium', timeStyle: 'short' });
    dateFormats.set(locale, f);
  }
  return f.format(epochMs);
}

/**
 * How a spreadsheet in a language opens a CSV by double-click: where the language writes a decimal
 * comma (it, hu, nl, id), spreadsheets take the semicolon as the list separator — Excel's and
 * LibreOffice's default for those regional settings — so the file is written with `;` and `0,5`;
 * elsewhere (en, ne) with `,` and `0.5`. The decimal mark is the one Intl writes for the language.
 */
export interface CsvFormat {
  separator: ',' | ';';
  decimal: '.' | ',';
}

export function csvFormat(locale: string): CsvFormat {
  const decimal = numberFormat(locale, 1)
    .formatToParts(0.5)
    .find((p) => p.type === 'decimal')?.value;
  return decimal === ',' ? { separator: ';', decimal: ',' } : { separator: ',', decimal: '.' };
}
