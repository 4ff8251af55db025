// The desk says why, in Debian's Chromium: the issuer picture tells a slow issuer from our own timeout
// cutting its answers off; a headline that reads critical because most attempts fail says so and keeps
// each figure's own status; a score of 0 beside money saved says why; a rollback with nothing to roll
// back waits and says so; a team of one acts without scrolling; an analyst in split view sees every
// figure; the lobby's role moves stay in the feed; the join page has the name field ready and says a
// locked room at once. Time is the server's manual clock; axe-core on every new state.
import type { Browser, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { noViolations } from './axe.ts';
import {
  createRoom,
  eventually,
  joinAsStudent,
  LAPTOP,
  minuteShown,
  newPage,
  onFirstScreen,
  screenshot,
  showTab,
  textOf,
  useBrowserSuite,
  type WebServer,
} from './helpers.ts';

let server: WebServer;
let browser: Browser;

useBrowserSuite((s, b) => {
  server = s;
  browser = b;
});

async function teacherPage(code: string, key: string): Promise<Page> {
  const { page } = await newPage(browser, LAPTOP);
  await page.goto(`${server.url}/teacher/${code}#key=${key}`);
  await page.getByTestId('class-board').waitFor();
  return page;
}

async function start(teacher: Page): Promise<void> {
  await teacher.getByRole('button', { name: 'Start' }).click();
  await teacher.getByRole('button', { name: 'Pause' }).waitFor();
}

/** A room as configured, its teacher's dashboard, and students joined in order at 1366×768 (the round not started). */
async function classOf(config: object, names: string[]): Promise<{ code: string; teacher: Page; desks: Page[] }> {
  const { code, teacherKey } = await createRoom(server.url, config);
  const teacher = await teacherPage(code, teacherKey);
  const desks: Page[] = [];
  for (const name of names) {
    const { page } = await newPage(browser, LAPTOP);
    await joinAsStudent(page, server.url, code, name);
    desks.push(page);
  }
  return { code, teacher, desks };
}

async function setNumber(page: Page, name: string, value: string): Promise<void> {
  const box = page.getByRole('spinbutton', { name });
  await box.fill(value);
  await box.press('Enter');
  await page.getByTestId('pending').first().waitFor();
}

/** Every control of the student's own on the first screen. */
async function controlsOnFirstScreen(page: Page): Promise<void> {
  const controls = page.getByTestId('controls').locator('[data-control]');
  expect(await controls.count()).toBeGreaterThan(5);
  for (const c of await controls.all()) await onFirstScreen(page, c, `control ${await c.getAttribute('data-control')}`);
}

describe('the desk says why', () => {
  test('issuers: our short timeout is ours, a slow issuer is the issuer’s; a collapse is said, each figure keeps its own status; a team of one acts without scrolling', async () => {
    // The issuer outage, two teams of one: Ana sets a 0.5 s timeout before the outage; Bo does nothing.
    const {
      teacher,
      desks: [ana, bo],
    } = await classOf(
      { simulator: 'payment-switch', scenario: 'issuer-outage', minutes: 20, tempo: 1, teamCount: 2, seed: 3 },
      ['Ana', 'Bo'],
    );
    await start(teacher);
    server.minutes(2, 1);
    await minuteShown(ana, 2);
    // A team of one owns all four roles: every control on the first screen at 1366×768.
    await controlsOnFirstScreen(ana);
    await setNumber(ana, 'Issuer timeout', '0.5');
    server.minutes(1, 1);
    await minuteShown(ana, 3);

    // Both issuers answer in their usual 250 ms: our timeout cuts a seventh of their answers off — said as ours.
    const issuer = (page: Page, g: 'a' | 'b') => page.locator(`[data-issuer="${g}"]`);
    for (const g of ['a', 'b'] as const) {
      await eventually(async () => expect(await issuer(ana, g).getAttribute('data-state')).toBe('cut'));
      expect(await issuer(ana, g).innerText()).toMatch(
        /Answering in time, but our timeout is shorter than its answers\s+mean answer \d{3} ms; our 0\.5 s timeout cuts off 1\d %/,
      );
    }
    await noViolations(ana, 'desk, our timeout too short');

    // The outage: group B slows to ~12 s. On Bo's desk (8 s timeout) B is slow and A fine; most attempts fail.
    server.minutes(5, 1);
    await minuteShown(bo, 8);
    expect(await issuer(bo, 'b').getAttribute('data-state')).toBe('slow');
    expect(await issuer(bo, 'b').innerText()).toMatch(
      /Issuer slow or down\s+mean answer \d{1,2},\d{3} ms; our 8\.0 s timeout cuts off \d+ %/,
    );
    expect(await issuer(bo, 'a').getAttribute('data-state')).toBe('ok');
    expect(await issuer(ana, 'b').getAttribute('data-state')).toBe('slow');
    expect(await issuer(ana, 'a').getAttribute('data-state')).toBe('cut');

    const collapse = bo.getByTestId('collapse');
    await collapse.waitFor();
    expect(await collapse.innerText()).toMatch(
      /Critical: most attempts fail\s+Every figure counts as critical while this lasts/,
    );
    // Every card's edge reads critical (the rule); each badge is the figure's own status, and not every
    // figure is critical by itself (the others read normal, warning, or "—" with nothing under them).
    const cards = bo.getByTestId('headline').locator('li');
    expect(await cards.evaluateAll((els) => els.every((e) => e.classList.contains('edge-critical')))).toBe(true);
    const own = await cards.evaluateAll((els) =>
      els.map((e) => e.querySelector('[data-status]')?.getAttribute('data-status') ?? 'none'),
    );
    expect(own).toHaveLength(4);
    expect(own.filter((s) => s === 'critical').length).toBeLessThan(4);
    await onFirstScreen(bo, collapse, 'the reason');
    await noViolations(bo, 'desk, most attempts fail');
    await screenshot(bo, 'desk-collapse-reason');
    // The teacher's class board says it too.
    await eventually(async () => expect(await teacher.getByTestId('tile-collapse').count()).toBeGreaterThan(0));
  });

  test('a score of 0 beside money saved says why: the saving is under what counts at that minute', async () => {
    // The sale surge, a team of one at 7 servers from minute 1: by minute 22 it has saved ~560 u of doing
    // nothing's retry storm, too little to count on that scale.
    const {
      teacher,
      desks: [ana],
    } = await classOf(
      { simulator: 'payment-switch', scenario: 'sale-surge', minutes: 30, tempo: 1, teamCount: 1, seed: 7 },
      ['Ana'],
    );
    await start(teacher);
    await setNumber(ana, 'Servers', '7');
    server.minutes(10, 1);
    await minuteShown(ana, 10);
    expect(await ana.getByTestId('score-why').count()).toBe(0);
    server.minutes(12, 1);
    await minuteShown(ana, 22);
    expect(await textOf(ana, 'score')).toBe('Score 0');
    expect(await textOf(ana, 'score-why')).toMatch(
      /^Score 0: the 5\d\d u saved so far is under the [\d,]+ u a saving needs to count at this minute\.$/,
    );
    // How the score reads is one tap away.
    const how = ana.getByTestId('score-how');
    expect(await how.isVisible()).toBe(false);
    await ana.getByTestId('score-how-toggle').click();
    expect(await how.innerText()).toMatch(
      /^How the score reads: 0 is doing nothing; 1,000 is losing no more than a calm hour/,
    );
    await noViolations(ana, 'desk, score 0 explained');
    // The teacher's card of the team says the same.
    await eventually(async () =>
      expect(await teacher.getByTestId('team-card').getByTestId('score-why').innerText()).toMatch(
        /^Score 0: the 5\d\d u saved/,
      ),
    );
    // And so do the end of the round on the desk and the teacher's scores.
    server.minutes(8, 1);
    await ana.getByTestId('round-over').waitFor();
    expect(await ana.getByTestId('round-over').getByTestId('score-why').innerText()).toMatch(
      /^Score 0: the 5\d\d u saved/,
    );
    await teacher.getByTestId('scores').waitFor();
    expect(await teacher.getByTestId('scores').getByTestId('score-why').innerText()).toMatch(
      /^Score 0: the 5\d\d u saved/,
    );
  });

  test('a rollback with nothing to roll back waits and says so; a team of one acts without scrolling', async () => {
    // Bad deploy, seed 1: the new build shows at minute 16.
    const {
      teacher,
      desks: [eka],
    } = await classOf(
      { simulator: 'web-service', scenario: 'bad-deploy', minutes: 40, tempo: 1, teamCount: 1, seed: 1 },
      ['Eka'],
    );
    await start(teacher);
    server.minutes(3, 1);
    await minuteShown(eka, 3);
    await controlsOnFirstScreen(eka);
    const rollback = eka.locator('#ctl-rollback');
    expect(await rollback.isDisabled()).toBe(true);
    const why = eka.locator('[data-control="rollback"]').getByTestId('idle');
    expect(await why.innerText()).toBe('Only the last good build is in service: there is nothing to roll back.');
    expect(await rollback.getAttribute('aria-describedby')).toContain('ctl-rollback-idle');
    // The warm-up always does something: it waits for nothing.
    expect(await eka.getByRole('button', { name: 'Warm up the cache', exact: true }).isDisabled()).toBe(false);
    await noViolations(eka, 'desk, nothing to roll back');

    server.minutes(13, 1);
    await minuteShown(eka, 16);
    expect(await rollback.isDisabled()).toBe(false);
    expect(await why.count()).toBe(0);
    await rollback.click();
    await eka.locator('[data-control="rollback"]').getByTestId('pending').waitFor();
    // Traffic switches back five minutes later: once it has, there is nothing to roll back again.
    server.minutes(6, 1);
    await minuteShown(eka, 22);
    await eventually(async () => expect(await rollback.isDisabled()).toBe(true));
    expect(await why.innerText()).toBe('Only the last good build is in service: there is nothing to roll back.');
  });

  test('an analyst in split view sees every figure, and is named among those to ask', async () => {
    const { teacher, desks: pages } = await classOf(
      { simulator: 'payment-switch', scenario: 'sale-day', minutes: 60, tempo: 1, teamCount: 1, seed: 2 },
      ['Ana', 'Bo', 'Cy', 'Di', 'Ed'],
    );
    const [ana, , , , ed] = pages;
    // The lobby's dealing moved roles as people came in: the feed has it, no banner does.
    for (const p of pages) expect(await p.getByTestId('event-banner').count()).toBe(0);
    await showTab(ana, 'feed');
    expect(await ana.getByTestId('feed').locator('[data-role-change]').count()).toBeGreaterThan(0);
    await start(teacher);
    server.minutes(2, 1);
    await minuteShown(ed, 2);
    // The round's banner is the round's: nothing from the lobby is waiting in it.
    for (const p of pages) expect(await p.getByTestId('event-banner').count()).toBe(0);

    expect(await textOf(ed, 'my-roles')).toBe(
      'You are an analyst: you watch the desk while your teammates own the controls. In split view you see every figure: tell your teammates what their own views leave out.',
    );
    await showTab(ed, 'indicators');
    expect(await ed.getByTestId('indicators').getByTestId('hidden-value').count()).toBe(0);
    expect(await ed.getByTestId('indicators').locator('tr').count()).toBeGreaterThan(10);
    // Ana (scaling) does not see the fraud figures: the analyst is among those she can ask.
    await showTab(ana, 'indicators');
    const hidden = ana.getByTestId('indicators').locator('[data-hidden="fraudStopped"]');
    expect(await hidden.innerText()).toMatch(/^⊘ Only Fraud \(Cy\), Analyst \(Ed\) sees this: ask them$/);
    await noViolations(ed, 'desk, an analyst in split view');
  });

  test('the join page: the name field has the focus; a locked room says so before any name is typed', async () => {
    const { code, teacherKey } = await createRoom(server.url, { teamCount: 1 });
    const { page: visitor } = await newPage(browser, LAPTOP);
    await visitor.goto(`${server.url}/join/${code}`);
    await visitor.getByLabel('Your name').waitFor();
    await eventually(async () => expect(await visitor.evaluate(() => document.activeElement?.id)).toBe('join-name'));
    // Typing straight away fills the name.
    await visitor.keyboard.type('Ana');
    expect(await visitor.getByLabel('Your name').inputValue()).toBe('Ana');

    const teacher = await teacherPage(code, teacherKey);
    await teacher.getByRole('button', { name: 'Lock the room' }).click();
    await teacher.getByTestId('lock-state').getByText('Locked').waitFor();
    const { page: late } = await newPage(browser, LAPTOP);
    await late.goto(`${server.url}/join/${code}`);
    const locked = late.getByTestId('join-locked');
    await locked.waitFor();
    expect(await locked.innerText()).toContain('This room is locked: your teacher is not letting new students in.');
    expect(await late.getByLabel('Your name').count()).toBe(0);
    await noViolations(late, 'join, locked');
    // Unlocked, "Try again" brings the name field, focused.
    await teacher.getByRole('button', { name: 'Open the room again' }).click();
    await late.getByRole('button', { name: 'Try again' }).click();
    await late.getByLabel('Your name').waitFor();
    await eventually(async () => expect(await late.evaluate(() => document.activeElement?.id)).toBe('join-name'));
  });
});
