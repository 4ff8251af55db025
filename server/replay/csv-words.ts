// The words of the CSV export in the reader's language, read from the web app's messages
// (web/messages/<locale>.json: the same names the desk shows), so a spreadsheet speaks as the app does.
import { readFileSync } from 'node:fs';
import { csvFormat, type CsvFormat } from '../../shared/format.ts';
import type { SimulatorId } from '../../shared/sim/types.ts';
import { projectPath } from '../lib/paths.ts';

const MESSAGES = `${projectPath('web', 'messages')}/`;
const SETTINGS = projectPath('project.inlang', 'settings.json');

const settings = JSON.parse(readFileSync(SETTINGS, 'utf8')) as { baseLocale: string; locales: string[] };
export const CSV_LOCALES: readonly string[] = settings.locales;
export const CSV_BASE_LOCALE = settings.baseLocale;

/** The message key prefix of each simulator (ps_ind_goodApproval, ws_ctl_rollback, …). */
const PREFIX: Record<SimulatorId, string> = { 'payment-switch': 'ps', 'web-service': 'ws' };

export interface CsvWords {
  locale: string;
  format: CsvFormat;
  /** A message by key with its {placeholders} filled; the key itself when the message is missing. */
  text(key: string, values?: Record<string, string | number>): string;
  indicator(sim: SimulatorId, key: string): string;
  control(sim: SimulatorId, key: string): string;
  role(sim: SimulatorId, id: string): string;
  option(sim: SimulatorId, control: string, option: string): string;
  goal(sim: SimulatorId, scenario: string, goalId: string, target: string): string;
}

export type { CsvFormat };

const cache = new Map<string, CsvWords>();

/** The reader's locale among the app's: the first of `wanted` that is one, else the base locale. */
export function pickLocale(...wanted: (string | undefined)[]): string {
  for (const w of wanted) {
    for (const tag of (w ?? '').split(',')) {
      const lang = tag.split(';')[0].trim().toLowerCase().split('-')[0];
      if (CSV_LOCALES.includes(lang)) return lang;
    }
  }
  return CSV_BASE_LOCALE;
}

export function csvWords(locale: string): CsvWords {
  const hit = cache.get(locale);
  if (hit) return hit;
  if (!CSV_LOCALES.includes(locale)) throw new Error(`no messages for locale ${locale}`);
  const own = JSON.parse(readFileSync(`${MESSAGES}${locale}.json`, 'utf8')) as Record<string, string>;
  const base =
    locale === CSV_BASE_LOCALE
      ? own
      : (JSON.parse(readFileSync(`${MESSAGES}${CSV_BASE_LOCALE}.json`, 'utf8')) as Record<string, string>);
  const text = (key: string, values: Record<string, string | number> = {}) =>
    (own[key] ?? base[key] ?? key).replace(/\{(\w+)\}/g, (m, name: string) =>
      name in values ? String(values[name]) : m,
    );
  const words: CsvWords = {
    locale,
    format: csvFormat(locale),
    text,
    indicator: (sim, key) => text(`${PREFIX[sim]}_ind_${key}`),
    control: (sim, key) => text(`${PREFIX[sim]}_ctl_${key}`),
    role: (sim, id) => text(`${PREFIX[sim]}_role_${id}`),
    option: (sim, control, option) => text(`${PREFIX[sim]}_opt_${control}_${option}`),
    goal: (sim, scenario, goalId, target) =>
      text(`${PREFIX[sim]}_goal_${scenario.replace(/-/g, '_')}_${goalId}`, { target }),
  };
  cache.set(locale, words);
  return words;
}
