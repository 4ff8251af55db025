// Every message exists in all six languages, and the marking of where each translation comes from
// cannot lie.
//
// (1) web/messages/{id,hu,it,nl,ne}.json hold exactly the keys of en.json (none missing, none
//     extra), every message non-empty, with the same {placeholders}, no stray brace; the six
//     locales are the project's (project.inlang/settings.json).
// (2) A translation equal to the English text is a forgotten message unless it is language-free
//     (names, formulas, the sources' titles), marked as taken from the seed page, or one of the
//     words the language shares with English listed below.
// (3) web/messages/provenance.json lists, for each of the five locales, every key exactly once:
//     "seed" (the wording of that locale's seed page, verbatim or nearly) or "translated" (ours,
//     to be reviewed by a native speaker). Every "seed" entry is checked against the seed page
//     (web/messages/seeds/): each part of the message between its placeholders appears in the page,
//     after normalizing spaces, quotes, dashes and case — verbatim as whole words, or, for parts of
//     20 characters or more, with at most 10 % of the characters changed (test/i18n/seed-text.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { SEED_OF, matchSeed, normalize, readSeed } from './seed-text.ts';

const DIR = 'web/messages';
const SETTINGS = JSON.parse(readFileSync('project.inlang/settings.json', 'utf8')) as {
  baseLocale: string;
  locales: string[];
};
/** The six languages; a seventh is added to project.inlang/settings.json and to this list. */
const LOCALES = ['en', 'id', 'hu', 'it', 'nl', 'ne'];
const TRANSLATED = SETTINGS.locales.filter((l) => l !== SETTINGS.baseLocale);
type Messages = Record<string, string>;

const load = (locale: string): Messages => JSON.parse(readFileSync(`${DIR}/${locale}.json`, 'utf8'));
const en = load('en');
const keys = Object.keys(en).filter((k) => k !== '$schema');
const messages: Record<string, Messages> = Object.fromEntries(TRANSLATED.map((l) => [l, load(l)]));
const provenance: Record<string, { seed: string[]; translated: string[]; reviewed?: string[] }> = JSON.parse(
  readFileSync(`${DIR}/provenance.json`, 'utf8'),
);

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

/**
 * Language-free in every locale: the languages' own names, the brand, formulas, book titles, the names of the
 * gradebooks a school uses (Canvas, Moodle).
 */
const LANGUAGE_FREE =
  /^(app_name|lang_\w+|join_room_info|split_role_owner|coach_goal_quoted|\w+_f|ps_src_harchol|data_layout_(canvas|moodle))$/;

/**
 * Words a language writes as English does (the seed pages use them too, or they are the
 * international term): not forgotten messages.
 */
const SAME_AS_ENGLISH: Record<string, string[]> = {
  // Italian IT usage: "home", "scenario", "round", "formula", "replay"; "no" is Italian too; the seed's own loanwords
  // (stand-in, switch, retry storm, seed) and the web service's (cache, load balancer, database, build,
  // autoscaling, burn rate).
  it: [
    // The editor's words: Italian: "Scenario", "Id", "shock" (the usage), "OK".
    'editor_title_mine',
    'editor_id',
    'editor_shock_n',
    'editor_level_ok',
    // "Email" is the Italian and Indonesian word.
    'data_roster_email',
    // The AUTO badge on a seat the autopilot plays: the word is Italian and Dutch as it is.
    'seat_auto',
    'nav_home',
    'setup_scenario',
    'desk_brief_title',
    'clock_state',
    'teacher_round',
    'history_round',
    'model_formula',
    'replay_tag',
    'clock_replay',
    'ps_role_standin',
    'ps_pic_switch',
    'ps_pic_storm',
    'ws_role_cache',
    'ws_ctl_autoscaling',
    'ws_ind_burnRate1h',
    'ws_pic_lb',
    'ws_pic_cache',
    'ws_pic_db',
    'ws_pic_build',
    'csv_no',
    'model_seed',
  ],
  // Indonesian: simulator, tempo, target; the seed's loanwords (stand-in, switch, seed) and the web
  // service's (cache, load balancer, build, autoscaling).
  id: [
    // The editor's words: Indonesian: "Id", "Nepali", "Target", "OK" are the Indonesian words.
    'editor_id',
    'editor_lang_ne',
    'editor_goal_target',
    'editor_level_ok',
    'data_roster_email',
    'setup_simulator',
    'setup_tempo',
    'scores_target',
    'ps_role_standin',
    'ps_pic_switch',
    'ws_role_cache',
    'ws_ctl_autoscaling',
    'ws_pic_lb',
    'ws_pic_cache',
    'ws_pic_build',
    'model_seed',
  ],
  // Hungarian: "build" (of software) is used as is.
  hu: ['ws_pic_build'],
  // Dutch: team, score, simulator, scenario, tempo, indicator, servers; the loanwords of the seed
  // (load shedding, backoff, stand-in, switch, release, autoscaling, seed).
  nl: [
    // The editor's words: Dutch: "Scenario", "Id", "Indicator", "Crawlers", "Builds", "OK".
    'editor_title_mine',
    'editor_id',
    'editor_goal_indicator',
    'editor_kind_crawl',
    'editor_field_count',
    'editor_level_ok',
    // The AUTO badge on a seat the autopilot plays: the word is Italian and Dutch as it is.
    'seat_auto',
    'team_default',
    'score_value',
    'setup_simulator',
    'setup_scenario',
    'setup_tempo',
    'desk_picture_title',
    'desk_brief_title',
    'desk_indicator_col',
    'lb_team',
    'lb_score',
    'replay_team_label',
    'replay_compare_indicator',
    'replay_export_scores',
    'ps_role_standin',
    'ps_ctl_servers',
    'ps_ctl_shedding',
    'ps_opt_retryPolicy_backoff',
    'ps_pic_switch',
    'ws_role_release',
    'ws_ctl_autoscaling',
    'model_seed',
  ],
  ne: [],
};

describe('every message in all six languages', () => {
  test('the six locales are the project’s, each with its file', () => {
    const settings = SETTINGS as typeof SETTINGS & Record<string, any>;
    expect(settings.baseLocale).toBe('en');
    expect([...settings.locales].sort()).toEqual([...LOCALES].sort());
    expect(settings['plugin.inlang.messageFormat'].pathPattern).toMatch(/web\/messages\/\{locale\}\.json$/);
  });

  test('en.json has messages', () => {
    expect(keys.length).toBeGreaterThan(100);
    expect(en.$schema).toBe('https://inlang.com/schema/inlang-message-format');
  });

  for (const l of TRANSLATED) {
    test(`${l}: exactly the keys of en.json, non-empty, same placeholders, no stray brace`, () => {
      const t = messages[l];
      expect(t.$schema, 'the $schema line').toBe(en.$schema);
      expect(
        keys.filter((k) => !(k in t)),
        `missing in ${l}.json`,
      ).toEqual([]);
      expect(
        Object.keys(t).filter((k) => k !== '$schema' && !(k in en)),
        `not in en.json`,
      ).toEqual([]);
      const bad: string[] = [];
      for (const k of keys) {
        const v = t[k];
        if (typeof v !== 'string' || v.trim() === '') bad.push(`${k}: empty`);
        else if (placeholders(v).join() !== placeholders(en[k]).join())
          bad.push(`${k}: {${placeholders(v)}} ≠ {${placeholders(en[k])}}`);
        else if (/[{}]/.test(v.replace(/\{\w+\}/g, ''))) bad.push(`${k}: a brace that is not a placeholder`);
        else if (v !== v.trim()) bad.push(`${k}: leading or trailing space`);
      }
      expect(bad).toEqual([]);
    });

    test(`${l}: no message left in English by mistake`, () => {
      const seed = new Set(provenance[l]?.seed ?? []);
      const allowed = new Set(SAME_AS_ENGLISH[l] ?? []);
      const same = keys.filter(
        (k) => messages[l][k] === en[k] && !LANGUAGE_FREE.test(k) && !seed.has(k) && !allowed.has(k),
      );
      expect(same).toEqual([]);
    });
  }

  test('Nepali messages are written in Devanagari', () => {
    // Every Nepali message with words has Devanagari letters, except the language-free ones and
    // those that are only a brand, a formula or an abbreviation.
    const latinOnly = keys.filter(
      (k) => !LANGUAGE_FREE.test(k) && /\p{L}/u.test(messages.ne[k]) && !/\p{Script=Devanagari}/u.test(messages.ne[k]),
    );
    expect(latinOnly).toEqual([]);
  });
});

describe('provenance: which translations come from a seed page', () => {
  test('provenance.json covers the five locales, every key exactly once, nothing else', () => {
    expect(Object.keys(provenance).sort()).toEqual([...TRANSLATED].sort());
    for (const l of TRANSLATED) {
      const p = provenance[l];
      const listed = [...p.seed, ...p.translated];
      const dup = listed.filter((k, i) => listed.indexOf(k) !== i);
      expect(dup, `${l}: listed twice`).toEqual([]);
      expect(
        keys.filter((k) => !listed.includes(k)),
        `${l}: keys of en.json missing from provenance (add them to "translated")`,
      ).toEqual([]);
      expect(
        listed.filter((k) => !keys.includes(k)),
        `${l}: keys not in en.json`,
      ).toEqual([]);
      if (SEED_OF[l]) expect(p.seed.length, `${l}: the seed page supplies some wording`).toBeGreaterThan(40);
      else expect(p.seed, `${l}: no seed page, so nothing can come from one`).toEqual([]);
      const notTranslated = (p.reviewed ?? []).filter((k) => !p.translated.includes(k));
      expect(notTranslated, `${l}: "reviewed" lists translated keys a native speaker has checked`).toEqual([]);
    }
  });

  for (const l of TRANSLATED.filter((x) => SEED_OF[x])) {
    test(`${l}: every "seed" message really is the wording of ${SEED_OF[l]}`, () => {
      const seed = normalize(readSeed(l));
      const lies: string[] = [];
      for (const k of provenance[l].seed) {
        const r = matchSeed(messages[l][k] ?? '', seed);
        if (!r.ok) {
          const worst = r.detail
            .filter((d) => d.edits > d.allowed)
            .map((d) => `"${d.fragment}" (${d.edits} edits, ${d.allowed} allowed)`);
          lies.push(`${k}: ${worst.join('; ') || 'no words'}`);
        }
      }
      expect(lies).toEqual([]);
    });
  }

  test('the seed pages’ indicator labels are used as they are (spot checks)', () => {
    expect(messages.it.ps_ind_goodApproval).toBe('Tasso di approvazione dei clienti onesti');
    expect(messages.id.ps_ind_goodApproval).toBe('Tingkat persetujuan pelanggan baik');
    expect(messages.hu.ps_ind_goodApproval).toBe('Jó ügyfelek jóváhagyási aránya');
    expect(messages.nl.ws_ind_cacheHitRatio).toBe('Cache-hitratio');
    expect(messages.ne.ws_ind_cacheHitRatio).toBe('क्यास हिट दर');
  });
});

describe('the seed comparison itself', () => {
  const seed = normalize(
    'Tasso di approvazione dei clienti onesti\n99,9%\nnormale\nCosto dei server ≤ 75 u\nUn grande saldo online si apre al minuto 5 e raddoppia il traffico.',
  );
  test('verbatim, with placeholders, with different quotes and spaces', () => {
    expect(matchSeed('Tasso di approvazione dei clienti onesti', seed).ok).toBe(true);
    expect(matchSeed('Costo dei server ≤ {target}', seed).ok).toBe(true);
    expect(matchSeed('Un  grande saldo online si apre al minuto 5 e raddoppia il traffico.', seed).ok).toBe(true);
  });
  test('a short label must be whole words; a long text may differ by at most 10 %', () => {
    expect(matchSeed('Tasso', seed).ok).toBe(true);
    expect(matchSeed('asso', seed).ok).toBe(false);
    expect(matchSeed('Un grande saldo online si apre al minuto 6 e raddoppia il traffico.', seed).ok).toBe(true);
    expect(matchSeed('Una grande svendita online comincia al minuto 5 e triplica il traffico.', seed).ok).toBe(false);
    expect(matchSeed('{value}', seed).ok).toBe(false);
  });
});
