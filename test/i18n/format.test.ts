// Numbers in the reader's language. shared/format.ts formatDisplay (indicators, goal targets) and
// web/lib/sims/control-values.ts formatControlNumber (controls) format with Intl.NumberFormat for
// the locale; the unit symbol follows after a space, as on the seed pages.
//
// Digits are Latin in every language (shared/format.ts intlLocale): the Nepali seed page prints its
// figures that way ("99.9 %", "4.00 $/h"), and Debian's Chromium has no Nepali locale data, so a
// browser would show Latin digits where Node's CLDR would write Devanagari ones. Separators and
// grouping stay the language's own. The expectations are Intl's output for `${locale}-u-nu-latn`.
import { describe, expect, test } from 'vitest';
import { formatClock, formatDisplay, intlLocale } from '../../shared/format.ts';
import { models } from '../../shared/sim/registry.ts';
import type { NumberControlDef } from '../../shared/sim/types.ts';
import { formatControlNumber } from '../../web/lib/sims/control-values.ts';

const LOCALES = ['en', 'id', 'hu', 'it', 'nl', 'ne'] as const;
const pct1 = { scale: 100, digits: 1, unit: '%' };
const permille = { scale: 1000, digits: 1, unit: '‰' };
const bp = { scale: 1, digits: 1, unit: 'bp' };
const ms = { scale: 1, digits: 0, unit: 'ms' };
const usdPerHour = { scale: 1, digits: 2, unit: '$/h' };
const millionsU = { scale: 1e-6, digits: 2, unit: 'M u' };
const reqPerSec = { scale: 1, digits: 0, unit: 'req/s' };

/** Spaces as the eye sees them (Intl uses U+202F / U+00A0 for grouping in some locales). */
const plain = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');

describe('formatDisplay: numbers, percentages, per mille, basis points, money, durations', () => {
  test('99.9 % in English, 99,9 % in Italian (the issue’s example)', () => {
    expect(formatDisplay(pct1, 0.999, 'en')).toBe('99.9 %');
    expect(formatDisplay(pct1, 0.999, 'it')).toBe('99,9 %');
  });

  test('the seed pages’ opening figures in each seed language, as the pages print them', () => {
    // payment switch: it / id / hu pages; web service: nl page (decimal comma everywhere).
    for (const l of ['it', 'id', 'hu'] as const) {
      expect(formatDisplay(pct1, 0.999, l)).toBe('99,9 %');
      expect(formatDisplay(permille, 0.0013, l)).toBe('1,3 ‰');
      expect(formatDisplay(bp, 10.4, l)).toBe('10,4 bp');
      expect(formatDisplay(ms, 330, l)).toBe('330 ms');
      expect(formatDisplay(millionsU, 0, l)).toBe('0,00 M u');
    }
    expect(formatDisplay(usdPerHour, 4, 'nl')).toBe('4,00 $/h');
    expect(formatDisplay(reqPerSec, 1125, 'nl')).toBe('1.125 req/s');
  });

  test('grouping follows each language (CLDR: Italian and Hungarian do not group four digits)', () => {
    expect(formatDisplay(reqPerSec, 1125, 'en')).toBe('1,125 req/s');
    expect(formatDisplay(reqPerSec, 1125, 'id')).toBe('1.125 req/s');
    expect(formatDisplay(reqPerSec, 1125, 'it')).toBe('1125 req/s');
    expect(formatDisplay(reqPerSec, 1125, 'hu')).toBe('1125 req/s');
    expect(plain(formatDisplay(reqPerSec, 12345, 'hu'))).toBe('12 345 req/s');
    expect(formatDisplay(reqPerSec, 12345, 'it')).toBe('12.345 req/s');
  });

  test('Nepali: the seed page’s Latin digits, with the decimal point', () => {
    expect(formatDisplay(pct1, 0.999, 'ne')).toBe('99.9 %');
    expect(formatDisplay(permille, 0.0013, 'ne')).toBe('1.3 ‰');
    expect(formatDisplay(usdPerHour, 4, 'ne')).toBe('4.00 $/h');
    expect(formatDisplay(reqPerSec, 1125, 'ne')).toBe('1,125 req/s');
    expect(formatDisplay(ms, 330, 'ne')).toBe('330 ms');
    // Node's own default for 'ne' would be Devanagari: the app names the numbering system.
    expect(new Intl.NumberFormat('ne').format(99)).not.toBe(formatDisplay({ scale: 1, digits: 0, unit: '' }, 99, 'ne'));
  });

  test('every locale gives its own Intl output for every indicator of both simulators', () => {
    for (const model of Object.values(models)) {
      for (const ind of model.indicators) {
        for (const l of LOCALES) {
          const x = 0.123456 / ind.display.scale;
          const n = new Intl.NumberFormat(intlLocale(l), {
            minimumFractionDigits: ind.display.digits,
            maximumFractionDigits: ind.display.digits,
          }).format(0.123456);
          expect(formatDisplay(ind.display, x, l), `${ind.key} in ${l}`).toBe(
            ind.display.unit ? `${n} ${ind.display.unit}` : n,
          );
        }
      }
    }
  });

  test('unit symbols are the seed pages’ own, the same in every language', () => {
    // The seed pages print these units unchanged in Italian, Indonesian, Hungarian, Dutch and Nepali.
    const seedUnits = new Set([
      '',
      '%',
      '‰',
      'ms',
      'bp',
      'tx/s',
      'u/h',
      'u',
      'M u',
      'k tx',
      'tx',
      '×',
      'req/s',
      '$/h',
      '$',
      's',
    ]);
    const used = Object.values(models).flatMap((mo) => mo.indicators.map((i) => i.display.unit));
    expect(used.filter((u) => !seedUnits.has(u))).toEqual([]);
  });
});

describe('controls in the reader’s number format', () => {
  const control = (sim: keyof typeof models, key: string) =>
    models[sim].controls.find((c) => c.key === key) as NumberControlDef;

  test('shares as percentages, σ and seconds with the locale’s decimal separator', () => {
    const target = control('web-service', 'targetUtilization');
    const threshold = control('payment-switch', 'fraudThreshold');
    const timeout = control('payment-switch', 'issuerTimeoutS');
    expect(formatControlNumber(target, 0.6, 'it')).toBe('60 %');
    expect(formatControlNumber(threshold, 3, 'en')).toBe('3.0 σ');
    expect(formatControlNumber(threshold, 3, 'it')).toBe('3,0 σ');
    expect(formatControlNumber(threshold, 3, 'nl')).toBe('3,0 σ');
    expect(formatControlNumber(threshold, 3, 'ne')).toBe('3.0 σ');
    expect(formatControlNumber(timeout, 8, 'hu')).toBe('8,0 s');
  });
});

describe('the web service clock in the local style', () => {
  // The time of day as the reader's language writes it (English 08:05 AM, Indonesian 08.05, a
  // 24-hour clock elsewhere), with Latin digits: Intl.DateTimeFormat(`${locale}-u-nu-latn`, { hour:
  // '2-digit', minute: '2-digit', hourCycle: 'h23' except in English }).
  const intl = (l: string, h: number, m: number) =>
    new Intl.DateTimeFormat(intlLocale(l), {
      hour: '2-digit',
      minute: '2-digit',
      timeZone: 'UTC',
      hourCycle: l === 'en' ? undefined : 'h23',
    }).format(Date.UTC(2000, 0, 1, h, m));

  test('formatClock takes the locale and follows Intl', () => {
    const clock = formatClock as (minutesOfDay: number, locale?: string) => string;
    for (const l of LOCALES) {
      expect(clock(8 * 60 + 5, l), l).toBe(intl(l, 8, 5));
      expect(clock(14 * 60 + 30, l), l).toBe(intl(l, 14, 30));
    }
    expect(clock(8 * 60 + 5, 'ne')).toBe('08:05');
    expect(clock(14 * 60 + 30, 'ne')).toBe('14:30');
    expect(clock(8 * 60 + 5, 'en')).toBe('08:05 AM');
    expect(clock(8 * 60 + 5, 'id')).toBe('08.05');
    expect(clock(8 * 60 + 5, 'it')).toBe('08:05');
  });
});
