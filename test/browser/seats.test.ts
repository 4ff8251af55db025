// Seats that never freeze, in Debian's Chromium: a student closes the tab mid-round; after the room's grace the
// autopilot plays their roles, their teammate and the teacher read AUTO, the controls move by the policy; the
// student opens the page again, takes the seat back at once and reads what the autopilot did. The teacher plays a
// seat from the dashboard, marked to the team; the scores say how long others played each seat; a rehearsal is
// deleted from the history. Screens at 1366×768, 1920×1080 and 390×844, axe on each new state.
import type { Browser, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { noViolations } from './axe.ts';
import {
  createRoom,
  eventually,
  HANDSET,
  joinAsStudent,
  LAPTOP,
  minuteShown,
  newPage,
  onFirstScreen,
  screenshot,
  showTab,
  useBrowserSuite,
  WALL,
  type WebServer,
} from './helpers.ts';

let server: WebServer;
let browser: Browser;

useBrowserSuite((s, b) => {
  server = s;
  browser = b;
});

const TEMPO = 1;

async function dashboard(code: string, key: string, viewport = LAPTOP): Promise<Page> {
  const { page } = await newPage(browser, viewport);
  await page.goto(`${server.url}/teacher/${code}#key=${key}`);
  await page.getByTestId('class-board').waitFor();
  return page;
}

describe('seats that never freeze', () => {
  test('a student closes the tab: after the grace the autopilot plays; back, the student takes the seat and reads the summary', async () => {
    const { code, teacherKey } = await createRoom(server.url, {
      simulator: 'payment-switch',
      scenario: 'sale-surge',
      minutes: 30,
      tempo: 5,
      seed: 7,
      teamCount: 1,
      graceSeconds: 10,
    });
    const teacher = await dashboard(code, teacherKey);
    const ana = await newPage(browser, LAPTOP);
    await joinAsStudent(ana.page, server.url, code, 'Ana');
    const ben = await newPage(browser, LAPTOP);
    await joinAsStudent(ben.page, server.url, code, 'Ben');
    await teacher.getByRole('button', { name: 'Start' }).click();
    server.minutes(2, 5);
    await minuteShown(ben.page, 2);

    // Ana closes her tab: the teacher's first screen lists her seat as dropped, without scrolling.
    await ana.page.close();
    const watch = teacher.getByTestId('seats-to-watch');
    await eventually(async () =>
      expect(await watch.locator('[data-watch-state="dropped"]').innerText()).toContain('Ana'),
    );
    await onFirstScreen(teacher, watch, 'the seats to look at');
    await screenshot(teacher, 'seats-teacher-dropped-1366');
    await noViolations(teacher, 'the teacher’s first screen with a dropped seat');

    // The grace runs out: the autopilot takes her roles; Ben and the teacher read AUTO.
    server.clock.advance(10_000);
    await eventually(async () => expect(await watch.locator('[data-watch-state="auto"]').innerText()).toContain('Ana'));
    await showTab(ben.page, 'team');
    const anaOnBensDesk = ben.page.getByTestId('team').locator('li', { hasText: 'Ana' });
    await eventually(async () => expect(await anaOnBensDesk.getByTestId('seat-badge').innerText()).toContain('AUTO'));
    await expect(teacher.getByTestId('team-tile').getByTestId('seat-badge').innerText()).resolves.toContain('AUTO');

    // The surge comes; the careful policy moves Ana's controls, and the feed says who did.
    await showTab(ben.page, 'feed');
    // The grace was two minutes at this tempo; twelve more.
    for (let i = 0; i < 12; i++) server.minutes(1, 5);
    await minuteShown(ben.page, 16);
    const autoChanges = ben.page.locator('[data-actor="autopilot"]');
    await eventually(async () => expect(await autoChanges.count()).toBeGreaterThan(0));
    expect(await autoChanges.first().innerText()).toMatch(/^Autopilot for Ana /);
    expect(await ben.page.locator('[data-seat-turn="autopilot"]').innerText()).toContain(
      'Autopilot took over Ana’s seat',
    );
    await showTab(ben.page, 'team');
    await screenshot(ben.page, 'seats-desk-auto-1366');
    await noViolations(ben.page, 'a desk with a teammate on autopilot');
    for (const [view, name] of [
      [WALL, 'seats-desk-auto-1920'],
      [HANDSET, 'seats-desk-auto-390'],
    ] as const) {
      await ben.page.setViewportSize(view);
      await screenshot(ben.page, name);
    }
    await ben.page.setViewportSize(LAPTOP);
    await screenshot(teacher, 'seats-teacher-auto-1366');
    await noViolations(teacher, 'the teacher’s first screen with a seat on autopilot');
    await teacher.setViewportSize(WALL);
    await screenshot(teacher, 'seats-teacher-auto-1920');
    await teacher.setViewportSize(LAPTOP);

    // The projector shows it too.
    const { page: wall } = await newPage(browser, WALL);
    await wall.goto(`${server.url}/projector/${code}`);
    await eventually(async () => expect(await wall.getByTestId('proj-pilot').innerText()).toContain('Ana'));
    await screenshot(wall, 'seats-projector-1920');
    await noViolations(wall, 'the projector with a seat on autopilot');

    // Ana opens the page again: the seat is hers at once, and she reads what the autopilot did.
    const back = await ana.context.newPage();
    await back.goto(`${server.url}/play/${code}`);
    const summary = back.getByTestId('seat-summary');
    await eventually(async () =>
      expect(await summary.innerText()).toMatch(/^Autopilot ran .+ for \d+ min: .+ → .+ at minute \d+/),
    );
    await eventually(async () => expect(await watch.locator('[data-watch-state="auto"]').count()).toBe(0));
    await noViolations(back, 'the desk of a student back from the autopilot');
    await screenshot(back, 'seats-desk-back-1366');
    await back.setViewportSize(HANDSET);
    await screenshot(back, 'seats-desk-back-390');
    await showTab(ben.page, 'feed');
    await eventually(async () => expect(await ben.page.locator('[data-seat-turn="back"]').count()).toBe(1));

    // At the end, the teacher's scores say how long the autopilot played Ana's seat.
    server.minutes(14, 5);
    const others = teacher.getByTestId('team-seat-minutes');
    await eventually(async () =>
      expect(await others.innerText()).toMatch(/^Seats others played: Ana — \d+ min on autopilot$/),
    );
    await noViolations(teacher, 'the scores with the minutes others played a seat');
  });

  test('the teacher plays a seat from the dashboard; the team reads TEACHER and the feed names the teacher', async () => {
    const { code, teacherKey } = await createRoom(server.url, {
      simulator: 'web-service',
      scenario: 'product-launch',
      tempo: TEMPO,
      seed: 3,
      teamCount: 1,
    });
    const teacher = await dashboard(code, teacherKey);
    const ana = await newPage(browser, LAPTOP);
    await joinAsStudent(ana.page, server.url, code, 'Ana');
    const ben = await newPage(browser, LAPTOP);
    await joinAsStudent(ben.page, server.url, code, 'Ben');
    await teacher.getByRole('button', { name: 'Start' }).click();
    server.minutes(1, TEMPO);
    await minuteShown(ana.page, 1);

    // From Ana's seat on the class board: play it myself.
    await teacher.getByRole('button', { name: 'Seat of Ana' }).click();
    await teacher.getByTestId('team-tile').getByRole('button', { name: 'Play it myself' }).click();
    const playing = teacher.getByTestId('teacher-playing');
    await eventually(async () => expect(await playing.innerText()).toContain('You are playing Ana’s seat'));
    const desk = teacher.getByTestId('teacher-desk');
    // The desk opened is the seat's: its controls are open; the teacher changes one.
    const field = desk.getByTestId('controls').locator('[data-control] input[type=number]').first();
    await field.waitFor();
    const key = await desk.getByTestId('controls').locator('[data-control]').first().getAttribute('data-control');
    expect(key).not.toBeNull();
    await noViolations(teacher, 'the teacher playing a seat');
    await screenshot(teacher, 'seats-teacher-playing-1366');
    const before = Number(await field.inputValue());
    await field.fill(String(before + 1));
    await field.press('Enter');
    await showTab(ben.page, 'feed');
    await eventually(async () =>
      expect(await ben.page.locator('[data-actor="teacher"]').first().innerText()).toMatch(/^Teacher for Ana /),
    );
    // Ana's own desk says the teacher plays her roles; her controls are refused meanwhile.
    await eventually(async () =>
      expect(await ana.page.getByTestId('seat-mine').innerText()).toContain('The teacher plays your roles'),
    );
    await showTab(ben.page, 'team');
    const anaOnBensDesk = ben.page.getByTestId('team').locator('li', { hasText: 'Ana' });
    await eventually(async () =>
      expect(await anaOnBensDesk.getByTestId('seat-badge').innerText()).toContain('TEACHER'),
    );
    await noViolations(ana.page, 'the desk of a student whose seat the teacher plays');

    // Handed back: the seat is Ana's again.
    await playing.getByRole('button', { name: 'Hand back to Ana' }).click();
    await eventually(async () => expect(await ana.page.getByTestId('seat-mine').count()).toBe(0));
    expect(await playing.count()).toBe(0);
  });

  test('a rehearsal with three bot teams runs to its end screen, its replay marks the bots and the class history keeps it apart', async () => {
    const { code, teacherKey } = await createRoom(server.url, {
      simulator: 'payment-switch',
      scenario: 'sale-surge',
      minutes: 10,
      tempo: TEMPO,
      seed: 5,
      purpose: 'rehearsal',
    });
    const teacher = await dashboard(code, teacherKey);
    expect(await teacher.getByTestId('purpose').innerText()).toBe('Rehearsal');
    const form = teacher.getByTestId('bot-teams');
    await form.getByLabel('Team 2 plays').selectOption('late');
    await form.getByLabel('Team 3 plays').selectOption('careless');
    await noViolations(teacher, 'a rehearsal in its lobby');
    await form.getByRole('button', { name: 'Fill the teams with bots' }).click();
    await eventually(async () => expect(await teacher.locator('[data-seat-state="auto"]').count()).toBe(12));
    expect(await teacher.getByTestId('team-tile').count()).toBe(3);
    await teacher.getByRole('button', { name: 'Start' }).click();
    await screenshot(teacher, 'rehearsal-teacher-1366');
    server.minutes(10, TEMPO);
    const scores = teacher.getByTestId('scores');
    await eventually(async () => expect(await scores.isVisible()).toBe(true));
    await noViolations(teacher, 'a rehearsal over');
    await screenshot(teacher, 'rehearsal-over-1366');
    // The replay, as after a class: the bots' seats are marked on the scrubber.
    await teacher.getByTestId('open-replay').click();
    await teacher.getByTestId('replay-toolbar').waitFor();
    await eventually(async () => expect(await teacher.getByTestId('pilot-spans').locator('.span').count()).toBe(4));
    // The class history lists it apart from the classes.
    await teacher.goto(`${server.url}/teacher`);
    await teacher.getByTestId('history-rehearsals').waitFor();
    expect(await teacher.getByTestId('history').locator(`[data-room="${code}"]`).count()).toBe(0);
    expect(await teacher.getByTestId('history-apart').locator(`[data-room="${code}"]`).count()).toBe(1);
    // And deletes it, with everything recorded in it, after saying what goes.
    await teacher.getByTestId('history-rehearsals').locator(':scope > summary').click();
    await noViolations(teacher, 'the history with a rehearsal to delete');
    let asked = '';
    teacher.once('dialog', (d) => {
      asked = d.message();
      void d.accept();
    });
    await teacher.getByRole('button', { name: `Delete room ${code}` }).click();
    await eventually(async () =>
      expect(await teacher.getByTestId('history-deleted').innerText()).toBe(
        `Room ${code} deleted, with everything recorded in it.`,
      ),
    );
    expect(asked).toContain(`Delete room ${code} with its rounds`);
    expect(await teacher.locator(`[data-room="${code}"]`).count()).toBe(0);
    await noViolations(teacher, 'the history after a deletion');
    await teacher.goto(`${server.url}/teacher`);
    await teacher.getByRole('heading', { level: 1 }).waitFor();
    await eventually(async () => expect(await teacher.locator(`[data-room="${code}"]`).count()).toBe(0));
  });

  test('a player practises alone from the home page: one role with bot teammates, the clock on the desk, to the coach', async () => {
    const { page } = await newPage(browser, LAPTOP);
    await page.goto(`${server.url}/`);
    await page.getByTestId('practice-link').click();
    await page.waitForURL(/\/practice$/);
    const form = page.getByTestId('practice-form');
    await form.getByLabel('Simulator').selectOption('payment-switch');
    await form.getByLabel('Scenario').selectOption('sale-surge');
    await form.getByLabel('Play').selectOption('scaling');
    await noViolations(page, 'the practice page');
    await form.getByRole('button', { name: 'Practise' }).click();
    await page.waitForURL(/\/practice\/[2-9A-HJKMNP-Z]{6}\?role=scaling$/);
    await eventually(async () => expect(await page.getByTestId('my-roles').innerText()).toBe('Your role: Scaling'));
    // Bots play the other three roles.
    await showTab(page, 'team');
    await eventually(async () => expect(await page.getByTestId('team').getByTestId('seat-badge').count()).toBe(3));
    await screenshot(page, 'practice-lobby-1366');
    await noViolations(page, 'a practice desk in its lobby');
    const clock = page.getByTestId('practice-clock');
    await clock.getByRole('button', { name: 'Start' }).click();
    await minuteShown(page, 0);
    await clock.getByRole('button', { name: 'Pause' }).click();
    await clock.getByRole('button', { name: 'Step one minute' }).click();
    await minuteShown(page, 1);
    await clock.getByRole('button', { name: 'Resume' }).click();
    // The scenario's hour, at the practice's tempo.
    server.minutes(60, 5);
    await eventually(async () => expect(await page.locator('.desk').getAttribute('data-state')).toBe('finished'));
    await screenshot(page, 'practice-over-1366');
    await page.setViewportSize(HANDSET);
    await screenshot(page, 'practice-over-390');
    await page.setViewportSize(LAPTOP);
    // The end screen leads to the replay and the coach, as after a class.
    await page.getByTestId('debrief-link').click();
    await page.getByTestId('replay-toolbar').waitFor();
    await eventually(async () => expect(await page.getByTestId('pilot-spans').locator('.span').count()).toBe(3));
    await page.getByTestId('coach').waitFor({ timeout: 20_000 });
    await noViolations(page, 'a practice round’s replay with the coach');
  });
});
