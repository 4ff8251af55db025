// One language per page load. In the browser build (one-language.ts, a Vite plugin) every message
// function of Paraglide becomes a lookup in these tables, which the root layout fills with the
// reader's language before the first render: a page downloads its words once, not in six languages,
// and the student's desk only the desk's pack (packs.ts), not the teacher's and model pages' words.
// Node tests and the server use Paraglide's own functions and never come here.
import type { Locale } from '$lib/paraglide/runtime.js';

type Inputs = Record<string, unknown>;
type Table = Record<string, string>;

let table: Table | null = null;
let more: Table | null = null;

/** Six alternatives, one fetched: the bundler makes each language its own chunk (two: desk and more). */
const packs: Record<Locale, () => Promise<{ default: Table }>> = {
  en: () => import('virtual:opsroom-language/en'),
  id: () => import('virtual:opsroom-language/id'),
  hu: () => import('virtual:opsroom-language/hu'),
  it: () => import('virtual:opsroom-language/it'),
  nl: () => import('virtual:opsroom-language/nl'),
  ne: () => import('virtual:opsroom-language/ne'),
};
const morePacks: Record<Locale, () => Promise<{ default: Table }>> = {
  en: () => import('virtual:opsroom-language/en/more'),
  id: () => import('virtual:opsroom-language/id/more'),
  hu: () => import('virtual:opsroom-language/hu/more'),
  it: () => import('virtual:opsroom-language/it/more'),
  nl: () => import('virtual:opsroom-language/nl/more'),
  ne: () => import('virtual:opsroom-language/ne/more'),
};

/** Loads the desk's words, and with `all` the other pages' too (once per page load: the language changes by a reload). */
export async function loadLanguage(locale: Locale, all: boolean): Promise<void> {
  const [base, rest] = await Promise.all([
    table ? null : (packs[locale] ?? packs.en)(),
    all && !more ? (morePacks[locale] ?? morePacks.en)() : null,
  ]);
  if (base) table = base.default;
  if (rest) more = rest.default;
}

/** "Minute {minute} of {total}" with its inputs: the message format has no other syntax here. */
export function render(pattern: string, inputs: Inputs): string {
  return pattern.replace(/\{(\w+)\}/g, (_, name: string) => String(inputs[name]));
}

/** What a message function becomes in the browser build. */
export function message(key: string): (inputs?: Inputs) => string {
  return (inputs = {}) => {
    if (!table) throw new Error(`message ${key} used before the language was loaded`);
    return render(table[key] ?? more?.[key] ?? key, inputs);
  };
}
