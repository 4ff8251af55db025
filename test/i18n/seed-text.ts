// The seed pages (the original simulator pages, kept in web/messages/seeds/) and the
// comparison that decides whether a message's wording was taken from one of them.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SEEDS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../web/messages/seeds');

/** Which seed page a locale's wording comes from (English has none: it is the base). */
export const SEED_OF: Record<string, string> = {
  id: 'payment-switch.id.txt',
  hu: 'payment-switch.hu.txt',
  it: 'payment-switch.it.txt',
  nl: 'web-service.nl.txt',
  ne: 'web-service.ne.txt',
};

export function readSeed(locale: string): string {
  const file = join(SEEDS_DIR, SEED_OF[locale]);
  if (!existsSync(file)) throw new Error(`seed page ${file} is missing: the i18n tests read web/messages/seeds/`);
  return readFileSync(file, 'utf8');
}

/**
 * Text as compared: Unicode NFC, every kind of space (no-break, narrow no-break, thin) and line
 * break as one space, every kind of quote as " or ', every dash as -, lower case. Citation marks
 * "[2]" of the seed pages become a space.
 */
export function normalize(s: string): string {
  return s
    .normalize('NFC')
    .replace(/\[\d+\]/g, ' ')
    .replace(/[«»“”„‟"″]/g, '"')
    .replace(/[‘’‚‛`]/g, "'")
    .replace(/[‐‑‒–—−]/g, '-')
    .replace(/[\s\u00a0\u202f\u2009\u200b]+/g, ' ')
    .toLowerCase()
    .trim();
}

/** Punctuation and spaces at the edges of a fragment do not count (a seed sentence may end elsewhere). */
function trimEdges(s: string): string {
  return s.replace(/^[\s.,;:!?।·\-–—]+|[\s.,;:!?।·\-–—]+$/gu, '');
}

/** The parts of a message between its {placeholders}, normalized, without empty ones. */
export function fragments(message: string): string[] {
  return message
    .split(/\{\w+\}/)
    .map((f) => trimEdges(normalize(f)))
    .filter((f) => f.length > 0);
}

/**
 * Smallest edit distance between `needle` and any substring of `hay` (Sellers' algorithm: the
 * match may start anywhere in the seed page).
 */
export function bestSubstringDistance(needle: string, hay: string): number {
  const n = needle.length;
  let prev = new Array<number>(n + 1);
  for (let i = 0; i <= n; i++) prev[i] = i;
  let best = prev[n];
  let cur = new Array<number>(n + 1);
  for (let j = 1; j <= hay.length; j++) {
    cur[0] = 0;
    const c = hay.charCodeAt(j - 1);
    for (let i = 1; i <= n; i++) {
      const sub = prev[i - 1] + (needle.charCodeAt(i - 1) === c ? 0 : 1);
      cur[i] = Math.min(sub, prev[i] + 1, cur[i - 1] + 1);
    }
    if (cur[n] < best) best = cur[n];
    [prev, cur] = [cur, prev];
  }
  return best;
}

const WORD = /[\p{L}\p{M}\p{N}]/u;

/**
 * `needle` occurs in `hay` as whole words: a fragment that begins (ends) with a letter must not
 * continue a word of the seed ("stanza" is not found inside "distanza").
 */
export function includesAsWords(hay: string, needle: string): boolean {
  const checkStart = WORD.test(needle[0]);
  const checkEnd = WORD.test(needle[needle.length - 1]);
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    const before = at > 0 ? hay[at - 1] : ' ';
    const after = at + needle.length < hay.length ? hay[at + needle.length] : ' ';
    if ((!checkStart || !WORD.test(before)) && (!checkEnd || !WORD.test(after))) return true;
  }
  return false;
}

/** "Taken from the seed page, verbatim or nearly": at most this share of characters differs. */
export const NEARLY = 0.1;

export interface SeedMatch {
  ok: boolean;
  /** Each fragment with the edits it needs to appear in the seed page. */
  detail: { fragment: string; edits: number; allowed: number }[];
}

/**
 * Whether a message's wording appears in the seed text: every fragment between placeholders
 * appears verbatim, or (fragments of 20 characters or more) with at most 10 % of its characters
 * changed — the seed's sentence with a word adapted, a parenthesis added, a unit moved.
 */
export function matchSeed(message: string, seedNormalized: string): SeedMatch {
  const frs = fragments(message);
  const detail = frs.map((fragment) => {
    const allowed = fragment.length >= 20 ? Math.floor(fragment.length * NEARLY) : 0;
    const edits = includesAsWords(seedNormalized, fragment)
      ? 0
      : allowed > 0
        ? bestSubstringDistance(fragment, seedNormalized)
        : Infinity;
    return { fragment, edits, allowed };
  });
  const letters = frs.some((f) => /\p{L}/u.test(f));
  return { ok: letters && detail.every((d) => d.edits <= d.allowed), detail };
}
