// The teacher's dashboard in Debian's Chromium, as a class uses it: the first screen shows every team and
// every seat's state at 1366×768 — a class of twelve and one of thirty — and uses the width at 1920×1080;
// copying the join and teacher links works on the plain-http network address the README gives, or shows
// the text selected to copy by hand; the teacher link opens the dashboard on another device; after the
// round the team cards speak of the end, not "so far", and a replay's first minute is not "running".
// The server listens on every address, so the page can be opened where a class opens it.
import type { Browser, Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { noViolations } from './axe.ts';
import {
  assertBuilt,
  createRoom,
  cspViolations,
  eventually,
  LAPTOP,
  launchBrowser,
  newPage,
  onFirstScreen,
  quietStudents,
  screenshot,
  startWebServer,
  textOf,
  WALL,
  type WebServer,
} from './helpers.ts';

let server: WebServer;
let browser: Browser;
/** Where the class opens the app: the network address when the machine has one. */
let site: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  assertBuilt();
  server = await startWebServer({ lan: true });
  browser = await launchBrowser();
  site = server.lanUrl ?? server.url;
});
afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await browser?.close();
  await server?.close();
  if (cspViolations.length) throw new Error(`Content-Security-Policy violations:\n${cspViolations.join('\n')}`);
});

const NAMES =
  'Ana Budi Csilla Dario Eka Fitri Gábor Hanna Ilaria Joost Kiran Lea Marco Nisha Ona Priya Rudi Sita Tamás Uma Vera Wim Xenia Yusuf Zsófia Aditya Bram Chiara Dewi Erzsébet'.split(
    ' ',
  );

/** Students in seats (socket.io clients), disconnected when the file is done. */
async function seats(code: string, names: string[]): Promise<Socket[]> {
  const out = await quietStudents(server.url, code, names);
  sockets.push(...out);
  return out;
}

async function dashboard(code: string, key: string, viewport = LAPTOP): Promise<Page> {
  const { page } = await newPage(browser, viewport);
  await page.goto(`${site}/teacher/${code}#key=${key}`);
  await page.getByTestId('class-board').waitFor();
  return page;
}

/** Every tile and every seat drawn on the first screen, without scrolling. */
async function wholeClassOnFirstScreen(page: Page, students: number, teams: number): Promise<void> {
  await eventually(async () => expect(await page.locator('[data-seat-state]').count()).toBe(students));
  expect(await page.getByTestId('team-tile').count()).toBe(teams);
  for (const tile of await page.getByTestId('team-tile').all()) await onFirstScreen(page, tile, 'a team');
  for (const seat of await page.locator('[data-seat-state]').all()) await onFirstScreen(page, seat, 'a seat');
}

describe("the teacher's first screen", () => {
  test('a class of twelve: every team, every seat and its state at 1366×768; the width used at 1920×1080', async () => {
    const { code, teacherKey } = await createRoom(server.url, {
      simulator: 'payment-switch',
      scenario: 'sale-day',
      minutes: 60,
      tempo: 1,
      teamCount: 4,
      seed: 5,
    });
    const class12 = await seats(code, NAMES.slice(0, 12));
    const page = await dashboard(code, teacherKey);
    await wholeClassOnFirstScreen(page, 12, 4);
    // The lobby: each team's seats with their roles; nobody's role is left free.
    expect(await page.getByTestId('team-tile').first().getByTestId('seats').innerText()).toMatch(
      /Ana\s+connected\s+Scaling/,
    );
    expect(await page.getByTestId('free-roles').count()).toBe(0);
    await noViolations(page, 'dashboard, lobby');

    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    // Two students' pages drop: their seats say so, in their tiles and in the class's count.
    class12[1].disconnect();
    class12[6].disconnect();
    server.minutes(6, 1);
    await eventually(async () =>
      expect(await page.locator('[data-seat-state="dropped"]').allInnerTexts()).toEqual([
        expect.stringMatching(/^○\s*Budi\s+not connected/),
        expect.stringMatching(/^○\s*Gábor\s+not connected/),
      ]),
    );
    expect(await textOf(page, 'class-summary')).toMatch(/12 students in 4 teams:\s*● 10 connected\s*○ 2 not connected/);
    await eventually(async () => expect(await page.getByTestId('tile-score').count()).toBe(4));
    await wholeClassOnFirstScreen(page, 12, 4);
    // Each team's state: its goals and the figures that are not normal, or that all are.
    for (const tile of await page.getByTestId('team-tile').all()) {
      const trouble =
        (await tile.getByTestId('tile-trouble').count()) +
        (await tile.getByTestId('tile-normal').count()) +
        (await tile.getByTestId('tile-collapse').count());
      expect(trouble).toBe(1);
    }
    await noViolations(page, 'dashboard, running, two seats dropped');
    await screenshot(page, 'teacher-first-screen-1366');

    // The same class on a wall screen: the tiles spread over the width, the join card and messages beside them.
    await page.setViewportSize(WALL);
    await wholeClassOnFirstScreen(page, 12, 4);
    const tops = await page
      .getByTestId('team-tile')
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().top));
    expect(new Set(tops.map(Math.round)).size).toBe(1);
    const board = await page.getByTestId('class-board').boundingBox();
    const join = await page.getByRole('heading', { name: 'Students join here' }).boundingBox();
    expect(board!.width).toBeGreaterThan(1200);
    expect(join!.x).toBeGreaterThan(board!.x + board!.width);
    await screenshot(page, 'teacher-first-screen-1920');

    // A tile opens its team's desk, further down, in view.
    await page.setViewportSize(LAPTOP);
    await page
      .getByTestId('team-tile')
      .nth(2)
      .getByRole('button', { name: /^Open desk/ })
      .click();
    await page.getByTestId('teacher-desk').waitFor();
    await eventually(async () => {
      const box = await page.getByTestId('teacher-desk').boundingBox();
      expect(Math.abs(box!.y)).toBeLessThan(40);
    });
    await page.close();
  });

  test('a class of thirty in eight teams fits the first screen at 1366×768', async () => {
    const { code, teacherKey } = await createRoom(server.url, {
      simulator: 'payment-switch',
      scenario: 'sale-day',
      minutes: 60,
      tempo: 1,
      teamCount: 8,
      seed: 6,
    });
    const class30 = await seats(code, NAMES);
    const page = await dashboard(code, teacherKey);
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    class30[3].disconnect();
    server.minutes(3, 1);
    await eventually(async () => expect(await page.locator('[data-seat-state="dropped"]').count()).toBe(1));
    await eventually(async () => expect(await page.getByTestId('tile-score').count()).toBe(8));
    await wholeClassOnFirstScreen(page, 30, 8);
    await noViolations(page, 'dashboard, thirty students');
    await page.close();
  });

  test('copying over plain http: the join link copies, or stands selected to copy by hand; the teacher link opens the dashboard elsewhere', async () => {
    const { code, teacherKey } = await createRoom(server.url, {
      simulator: 'web-service',
      scenario: 'launch-day',
      minutes: 60,
      tempo: 1,
      teamCount: 2,
      seed: 3,
    });
    const { context, page } = await newPage(browser, LAPTOP);
    if (server.lanUrl === null) {
      // No network address on this machine: take the clipboard away, as a plain-http page has none.
      await context.addInitScript(() =>
        Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined }),
      );
    }
    await page.goto(`${site}/teacher/${code}#key=${teacherKey}`);
    await page.getByTestId('class-board').waitFor();
    expect(await page.evaluate(() => navigator.clipboard)).toBeUndefined();
    // The web service's full shift is named as one.
    expect(await page.getByLabel('Scenario').locator('option:checked').innerText()).toBe('Full shift · Launch day');

    // The copy command works during a click: "Copied", and the clipboard holds the link.
    const joinUrl = await page.getByTestId('join-link').getAttribute('href');
    expect(joinUrl).toBe(`${site}/join/${code}`);
    await page.getByRole('button', { name: 'Copy join link' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const reader = await context.newPage();
    await reader.goto(`${server.url}/`);
    expect(await reader.evaluate(() => navigator.clipboard.readText())).toBe(joinUrl);
    await reader.close();

    // The teacher link is a secret: hidden until asked for, then shown with its QR code, at the network address.
    const details = page.getByTestId('teacher-link');
    expect(await details.getAttribute('open')).toBeNull();
    await details.locator('summary').click();
    const field = page.getByTestId('teacher-link-field');
    const link = await field.inputValue();
    expect(link).toBe(`${site}/teacher/${code}#key=${teacherKey}`);
    await field.focus();
    expect(await field.evaluate((f: HTMLInputElement) => [f.selectionStart, f.selectionEnd])).toEqual([0, link.length]);
    await expect(details.getByRole('img', { name: /QR code of the teacher link/ }).count()).resolves.toBe(1);
    await noViolations(page, 'dashboard, teacher link shown');

    // Where the browser copies nothing at all, the link stands in a field, focused and selected.
    await page.evaluate(() => {
      document.execCommand = () => false;
    });
    await details.getByRole('button', { name: 'Copy teacher link' }).click();
    const byHand = details.getByTestId('copy-by-hand');
    await byHand.waitFor();
    expect(await byHand.inputValue()).toBe(link);
    expect(
      await byHand.evaluate((f: HTMLInputElement) => [document.activeElement === f, f.selectionStart, f.selectionEnd]),
    ).toEqual([true, 0, link.length]);
    await details.getByText(/This browser did not copy it: the text is selected below/).waitFor();
    await noViolations(page, 'dashboard, a link to copy by hand');

    // On another device (a fresh browser: no key stored), the link opens the dashboard.
    const { page: phone } = await newPage(browser, { width: 390, height: 844 });
    await phone.goto(link);
    await phone.getByRole('button', { name: 'Start' }).waitFor();
    expect(new URL(phone.url()).hash).toBe('');
    await phone.close();
    await page.close();
  });

  test('after the round the team cards speak of the end; a replay at minute 0 is a replay, not a running round', async () => {
    const { code, teacherKey } = await createRoom(server.url, {
      simulator: 'payment-switch',
      scenario: 'sale-surge',
      minutes: 6,
      tempo: 1,
      teamCount: 2,
      seed: 7,
    });
    await seats(code, ['Ana', 'Bo']);
    const page = await dashboard(code, teacherKey);
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    server.minutes(3, 1);
    await eventually(async () => expect(await page.getByTestId('team-card').first().innerText()).toContain('so far'));
    server.minutes(3, 1);
    await page.getByTestId('scores').waitFor();
    await eventually(async () => {
      const goals = await page.getByTestId('team-card').locator('[data-goal]').allInnerTexts();
      expect(goals).toHaveLength(2 * 3);
      for (const g of goals) {
        expect(g).not.toMatch(/so far|now /);
        expect(g).toMatch(/^(✓\s*met|✖\s*missed)\s/);
      }
    });
    expect(await page.getByTestId('tile-rank').allInnerTexts()).toEqual([
      expect.stringMatching(/^Rank \d of 2$/),
      expect.stringMatching(/^Rank \d of 2$/),
    ]);
    await page.getByTestId('open-replay').click();
    await page.getByTestId('replay-desk').waitFor();
    await page.getByLabel('Minute of the replay').fill('0');
    await eventually(async () => expect(await textOf(page, 'clock-minute')).toBe('Minute 0 of 6'));
    expect(await textOf(page, 'clock-state')).toBe('Replay');
    await page.close();
  });
});
