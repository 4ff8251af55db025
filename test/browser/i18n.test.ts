// Six languages in one classroom, in Debian's Chromium. Each student's browser speaks its own
// language (the context's locale, or the language switcher); they play the same team in the same
// room, and each reads the same indicators in their own words — the seed pages' own labels where
// a page exists — with the numbers formatted for their language. The server sends keys and
// numbers only: what differs between the desks is the client's doing.
// Time is the server's manual clock, moved by hand (server.minutes): no test sleeps.
//
// Nepali figures: Latin digits, as the Nepali seed page writes them (shared/format.ts names the
// numbering system, so Node — whose CLDR default for 'ne' is Devanagari — and a browser without
// Nepali locale data write the same "99.9 %"). The expected texts come from shared/format.ts run
// here in Node, so the desk is held to exactly what the shared formatter gives.
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { formatDisplay, numberFormat } from '../../shared/format.ts';
import { runRound } from '../../shared/sim/engine.ts';
import { getModel } from '../../shared/sim/registry.ts';
import type { SimulatorId, Snapshot } from '../../shared/sim/types.ts';
import { readSeed } from '../i18n/seed-text.ts';
import { DESKTOP, eventually, newPage, screenshot, showTab, useBrowserSuite, type WebServer } from './helpers.ts';

const LOCALES = ['en', 'id', 'hu', 'it', 'nl', 'ne'] as const;
type Locale = (typeof LOCALES)[number];
/** What each student's browser says it speaks (navigator.languages). */
const BROWSER_LOCALE: Record<Locale, string> = {
  en: 'en-US',
  id: 'id-ID',
  hu: 'hu-HU',
  it: 'it-IT',
  nl: 'nl-NL',
  ne: 'ne-NP',
};

const msg = Object.fromEntries(
  LOCALES.map((l) => [l, JSON.parse(readFileSync(`web/messages/${l}.json`, 'utf8'))]),
) as Record<Locale, Record<string, string>>;
const provenance = JSON.parse(readFileSync('web/messages/provenance.json', 'utf8')) as Record<
  string,
  { seed: string[] }
>;
const fill = (template: string, values: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (_, k: string) => values[k]);
const int = (l: Locale, n: number) => numberFormat(l, null).format(n);

let server: WebServer;
let browser: Browser;

useBrowserSuite((s, b) => {
  server = s;
  browser = b;
});

async function createRoom(simulator: SimulatorId, minutes: number, tempo: number, teamCount: number, seed: number) {
  const res = await fetch(`${server.url}/api/rooms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ simulator, scenario: 'free', minutes, tempo, teamCount, seed }),
  });
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as { code: string; teacherKey: string };
}

/** The teacher (an English browser) opens the dashboard from the teacher link and starts the round. */
async function startRound(code: string, teacherKey: string): Promise<Page> {
  const { page } = await newPage(browser, DESKTOP);
  await page.goto(`${server.url}/teacher/${code}#key=${teacherKey}`);
  await page.getByRole('button', { name: msg.en.teacher_start, exact: true }).click();
  // The lobby also reads "Minute 0": wait until the server has really started the round.
  await page.getByRole('button', { name: msg.en.teacher_pause, exact: true }).waitFor();
  return page;
}

/**
 * A student opens the join link in a browser that speaks `browserLang`; with `switchTo` they pick
 * another language with the switcher first. Returns their desk.
 */
async function joinIn(
  code: string,
  name: string,
  browserLang: Locale,
  switchTo?: Locale,
): Promise<{ page: Page; lang: Locale }> {
  const context = await browser.newContext({
    viewport: DESKTOP,
    locale: BROWSER_LOCALE[browserLang],
    reducedMotion: 'reduce',
  });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${server.url}/join/${code}`);
  await eventually(async () => expect(await page.evaluate(() => document.documentElement.lang)).toBe(browserLang));
  const lang = switchTo ?? browserLang;
  if (switchTo) {
    await page.getByLabel(msg[browserLang].lang_label).selectOption(switchTo);
    await eventually(async () => expect(await page.evaluate(() => document.documentElement.lang)).toBe(switchTo));
  }
  await page.getByLabel(msg[lang].join_name_label).fill(name);
  await page.getByRole('button', { name: msg[lang].join_button, exact: true }).click();
  await page.waitForURL(`**/play/${code}`);
  await page.getByTestId('my-roles').waitFor();
  expect(await page.evaluate(() => document.documentElement.lang)).toBe(lang);
  return { page, lang };
}

const clockText = (l: Locale, minute: number, total: number) =>
  fill(msg[l].clock_minute, { minute: int(l, minute), total: int(l, total) });
/** The desk shows `minute`, in the reader's words and digits. */
const minuteShown = (page: Page, l: Locale, minute: number, total: number) =>
  eventually(async () => expect(await page.getByTestId('clock-minute').innerText()).toBe(clockText(l, minute, total)));

/** Every indicator of the desk — headline cards and the table — with `l`'s words (labels first, then values). */
async function expectIndicators(page: Page, l: Locale, simulator: SimulatorId, snap: Snapshot) {
  const model = getModel(simulator);
  const prefix = simulator === 'payment-switch' ? 'ps' : 'ws';
  await showTab(page, 'indicators');
  const cell = (key: string, headline: boolean | undefined, part: 'label' | 'value') =>
    headline
      ? page.getByTestId('headline').locator(`[data-key="${key}"] .${part}`)
      : page.getByTestId('indicators').locator(`tr[data-key="${key}"] ${part === 'label' ? 'th' : 'td'}`);
  for (const ind of model.indicators) {
    await eventually(async () =>
      expect(await cell(ind.key, ind.headline, 'label').innerText(), `${l} ${ind.key}`).toBe(
        msg[l][`${prefix}_ind_${ind.key}`],
      ),
    );
  }
  // …in the locale's number format: exactly what formatDisplay gives for the round's own figures.
  for (const ind of model.indicators) {
    const expected = formatDisplay(ind.display, snap.indicators[ind.key], l);
    await eventually(async () =>
      expect(await cell(ind.key, ind.headline, 'value').innerText(), `${l} ${ind.key}`).toBe(expected),
    );
  }
}

describe('one room, six languages', () => {
  test('payment switch: six students in six languages read the same indicators in their own words and number formats', async () => {
    const tempo = 1;
    const minutes = 10;
    const seed = 7;
    const { code, teacherKey } = await createRoom('payment-switch', minutes, tempo, 2, seed);

    // Italian and Nepali first (the pair), then the other four; the Indonesian student's
    // browser speaks English and she picks Bahasa Indonesia with the switcher on the join page.
    const joined: { page: Page; lang: Locale }[] = [];
    joined.push(await joinIn(code, 'Giulia', 'it'));
    joined.push(await joinIn(code, 'Sita', 'ne'));
    joined.push(await joinIn(code, 'Emma', 'en'));
    joined.push(await joinIn(code, 'Budi', 'en', 'id'));
    joined.push(await joinIn(code, 'Csilla', 'hu'));
    joined.push(await joinIn(code, 'Daan', 'nl'));

    await startRound(code, teacherKey);
    for (const { page, lang } of joined) await minuteShown(page, lang, 0, minutes);
    server.minutes(1, tempo);
    // The same round, computed here from the same seed: what every desk must show at minute 1.
    const snap = runRound(getModel('payment-switch'), { scenario: 'free', seed, noise: true, minutes: 1 }).snapshots[1];

    // A desk in each language, saved as it looks at minute 1.
    for (const { page, lang } of joined) {
      await minuteShown(page, lang, 1, minutes);
      await screenshot(page, `desk-${lang}`);
    }
    // Every indicator in every language: the locale's words and number format. Nepali last.
    for (const { page, lang } of joined.filter((j) => j.lang !== 'ne')) {
      await minuteShown(page, lang, 1, minutes);
      await expectIndicators(page, lang, 'payment-switch', snap);
    }

    // The example: the Italian student reads the seed page's own label, with 99,9 %.
    const [it, ne, en] = joined.map((j) => j.page);
    const approval = (p: Page) => p.getByTestId('headline').locator('[data-key="goodApproval"]');
    expect(await approval(it).locator('.label').innerText()).toBe('Tasso di approvazione dei clienti onesti');
    expect(readSeed('it')).toContain('Tasso di approvazione dei clienti onesti');
    expect(provenance.it.seed).toContain('ps_ind_goodApproval');
    expect(await approval(it).locator('.value').innerText()).toBe('99,9 %');
    expect(await approval(en).locator('.value').innerText()).toBe('99.9 %');
    expect(await approval(it).innerText()).toContain(msg.it.status_normal);

    // The choice made with the switcher is remembered: Budi's desk comes back in Indonesian.
    const budi = joined[3].page;
    await budi.reload();
    await budi.getByTestId('my-roles').waitFor();
    expect(await budi.evaluate(() => document.documentElement.lang)).toBe('id');
    await minuteShown(budi, 'id', 1, minutes);
    expect(await budi.getByTestId('my-roles').innerText()).toMatch(
      new RegExp(`^${msg.id.desk_your_roles.replace('{roles}', '')}`),
    );

    // The Nepali student, same team, same minute: the same indicator in Nepali, the figures with
    // the seed page's Latin digits.
    expect(await approval(ne).locator('.label').innerText()).toBe(msg.ne.ps_ind_goodApproval);
    expect(await approval(ne).innerText()).toContain(msg.ne.status_normal);
    await expectIndicators(ne, 'ne', 'payment-switch', snap);
    expect(await approval(ne).locator('.value').innerText()).toBe('99.9 %');
    await minuteShown(ne, 'ne', 1, minutes);
  });

  test('web service: an Italian and a Nepali student read the seed pages’ labels with local numbers', async () => {
    const tempo = 2;
    const minutes = 10;
    const seed = 7;
    const { code, teacherKey } = await createRoom('web-service', minutes, tempo, 1, seed);
    const it = await joinIn(code, 'Luca', 'it');
    const ne = await joinIn(code, 'Asha', 'ne');
    await startRound(code, teacherKey);
    for (const s of [it, ne]) await minuteShown(s.page, s.lang, 0, minutes);
    server.minutes(1, tempo);
    const snap = runRound(getModel('web-service'), { scenario: 'free', seed, noise: true, minutes: 1 }).snapshots[1];

    for (const s of [it, ne]) {
      await minuteShown(s.page, s.lang, 1, minutes);
      await screenshot(s.page, `desk-web-service-${s.lang}`);
    }
    await minuteShown(it.page, 'it', 1, minutes);
    await expectIndicators(it.page, 'it', 'web-service', snap);
    // Nepali reads the Nepali seed page's own labels (क्यास हिट दर, डाटाबेस उपयोग, अनुरोधहरू…).
    const seedNe = readSeed('ne');
    await showTab(ne.page, 'indicators');
    for (const key of ['cacheHitRatio', 'requestsPerSec', 'instancesServing', 'fleetCostPerHour']) {
      const row = ne.page.getByTestId('indicators').locator(`tr[data-key="${key}"]`);
      const label = await row.locator('th').innerText();
      expect(seedNe, key).toContain(label);
      expect(provenance.ne.seed).toContain(`ws_ind_${key}`);
    }
    const dbLoadNe = ne.page.getByTestId('headline').locator('[data-key="dbLoad"] .label');
    expect(await dbLoadNe.innerText()).toBe('डाटाबेस उपयोग');
    // Italian: the same figures with a decimal comma; Nepali: a decimal point, as its seed page.
    await showTab(it.page, 'indicators');
    expect(await it.page.getByTestId('indicators').locator('tr[data-key="fleetCostPerHour"] td').innerText()).toBe(
      '4,00 $/h',
    );
    await expectIndicators(ne.page, 'ne', 'web-service', snap);
    expect(await ne.page.getByTestId('indicators').locator('tr[data-key="fleetCostPerHour"] td').innerText()).toBe(
      '4.00 $/h',
    );
    await minuteShown(ne.page, 'ne', 1, minutes);
  });
});
