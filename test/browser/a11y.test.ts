// Accessibility in Debian's Chromium (issue 12, item 15): axe-core finds no violation on any screen
// — home, join, the desk in the lobby (a role move in its feed), running (each tab, a teacher's message) and
// finished (its ledger), the teacher's dashboard (roster, access and messages), the projector's lobby,
// round and end, the replay with the hindsight coach, a student's debrief, the teacher's history and
// the model pages. Status words have at least
// 4.5:1 contrast on their tints, every slider is named by its control's label, links are named by
// their text. The round here is ended early by the teacher: every screen says so (desk, phone,
// dashboard, projector, replay and its CSV panel, the student's debrief, history).
import type { Browser, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { noViolations } from './axe.ts';
import {
  DESKTOP,
  eventually,
  joinAsStudent,
  newPage,
  PHONE,
  showTab,
  useBrowserSuite,
  type WebServer,
} from './helpers.ts';

let server: WebServer;
let browser: Browser;

useBrowserSuite((s, b) => {
  server = s;
  browser = b;
});

/** Contrast ratio (WCAG 2) of an element's text on its own background, as the page computes them. */
function contrastOf(page: Page, selector: string): Promise<number[]> {
  return page.locator(selector).evaluateAll((els) => {
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
    const lum = (c: string) => {
      const [r, g, b] = rgb(c).map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    return els.map((el) => {
      const cs = getComputedStyle(el);
      const [a, b] = [lum(cs.color), lum(cs.backgroundColor)];
      return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    });
  });
}

describe('accessibility', () => {
  test('every screen passes axe; status tags, sliders and links are readable and named', async () => {
    const minutes = 8;
    const res = await fetch(`${server.url}/api/rooms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        simulator: 'payment-switch',
        scenario: 'sale-surge',
        minutes,
        tempo: 1,
        teamCount: 1,
        seed: 7,
      }),
    });
    const { code, teacherKey } = (await res.json()) as { code: string; teacherKey: string };

    const { page: visitor } = await newPage(browser, DESKTOP);
    await visitor.goto(`${server.url}/`);
    await visitor.getByLabel('Room code').waitFor();
    await noViolations(visitor, 'home');
    await visitor.goto(`${server.url}/join/${code}`);
    await visitor.getByLabel('Your name').waitFor();
    await noViolations(visitor, 'join');

    const { page: teacher } = await newPage(browser, DESKTOP);
    await teacher.goto(`${server.url}/teacher/${code}#key=${teacherKey}`);
    await teacher.getByRole('button', { name: 'Start' }).waitFor();
    const { page: wall } = await newPage(browser, { width: 1920, height: 1080 });
    await wall.goto(`${server.url}/projector/${code}`);
    const { page: ana } = await newPage(browser, DESKTOP);
    await joinAsStudent(ana, server.url, code, 'Ana');
    const { page: phone } = await newPage(browser, PHONE);
    await joinAsStudent(phone, server.url, code, 'Budi');
    await eventually(async () => expect(await wall.getByTestId('proj-count').innerText()).toBe('Joined so far: 2'));

    // A role moved in the lobby is in the feed, not in a banner.
    await showTab(ana, 'feed');
    await eventually(async () => expect(await ana.getByTestId('feed').innerText()).toContain('Budi now owns'));
    expect(await ana.getByTestId('event-banner').count()).toBe(0);
    await noViolations(ana, 'desk, lobby, a role move in the feed');
    await noViolations(teacher, 'dashboard, lobby');
    await noViolations(wall, 'projector, lobby');

    await teacher.getByRole('button', { name: 'Start' }).click();
    await teacher.getByRole('button', { name: 'Pause' }).waitFor();
    server.minutes(6, 1);
    await ana.getByTestId('event-banner').waitFor();
    await teacher.getByLabel('Message', { exact: true }).fill('Watch the queue.');
    await teacher.getByRole('button', { name: 'Send' }).click();
    await ana.getByTestId('message-banner').waitFor();
    await ana.getByTestId('ledger').waitFor();
    await noViolations(ana, 'desk, running, a message and an event banner, the ledger');
    await noViolations(phone, 'desk on a phone, running');
    for (const tab of ['trends', 'indicators', 'feed', 'about', 'team'] as const) {
      await showTab(ana, tab);
      await noViolations(ana, `desk, running, tab ${tab}`);
    }
    await showTab(ana, 'picture');
    await noViolations(wall, 'projector, running');
    await teacher
      .getByTestId('team-tile')
      .first()
      .getByRole('button', { name: /^Open desk/ })
      .click();
    await teacher.getByTestId('teacher-desk').getByTestId('headline').waitFor();
    await noViolations(teacher, "dashboard, running, a team's desk open");

    // Status words on their tints: at least 4.5:1 (they were 4.47:1).
    for (const selector of [
      '.tag.status-normal',
      '.tag.status-warning',
      '.tag.status-critical',
      '.tag.state-running',
    ]) {
      const ratios = [...(await contrastOf(ana, selector)), ...(await contrastOf(teacher, selector))];
      expect(ratios.length, selector).toBeGreaterThan(0);
      for (const r of ratios) expect(r, selector).toBeGreaterThanOrEqual(4.5);
    }
    // Every slider is named by its control's label (not by a title), on the student's own controls.
    for (const label of ['Servers', 'Fraud-score threshold', 'Step-up band']) {
      const slider = ana.getByRole('slider', { name: label, exact: true });
      expect(await slider.count(), label).toBe(1);
      expect(await slider.getAttribute('title')).toBeNull();
    }

    // The teacher ends the round early: every screen says so, the end first.
    teacher.once('dialog', (d) => void d.accept());
    await teacher.getByRole('button', { name: 'End round' }).click();
    const early = `Ended early, at minute 6 of ${minutes}`;
    for (const page of [ana, phone, teacher, wall])
      await eventually(async () => expect(await page.getByTestId('ended-early').first().innerText()).toBe(early));
    await ana.getByTestId('round-over').waitFor();
    await noViolations(ana, 'desk, finished');
    await noViolations(phone, 'desk on a phone, finished');
    await noViolations(teacher, 'dashboard, finished');
    await wall.getByTestId('podium').waitFor();
    await noViolations(wall, 'projector, end');

    await teacher.getByTestId('open-replay').click();
    await teacher.getByTestId('replay-desk').waitFor();
    expect(await teacher.getByTestId('ended-early').first().innerText()).toBe(early);
    // The CSV panel says it too (scores.csv carries the minute).
    expect(await teacher.getByTestId('export-ended-early').innerText()).toContain(early);
    await teacher.getByTestId('coach').waitFor({ timeout: 20_000 });
    await noViolations(teacher, 'replay with the coach');
    await showTab(teacher, 'trends');
    await noViolations(teacher, 'replay, trends');

    // A student's debrief, from the finished desk.
    await ana.getByTestId('debrief-link').click();
    await ana.getByTestId('replay-desk').waitFor();
    await ana.getByTestId('coach').waitFor({ timeout: 20_000 });
    expect(await ana.getByTestId('ended-early').first().innerText()).toBe(early);
    await noViolations(ana, "a student's debrief");
    for (const simulator of ['payment-switch', 'web-service']) {
      await visitor.goto(`${server.url}/model/${simulator}`);
      await visitor.getByTestId('model-ledger').waitFor();
      await noViolations(visitor, `model page ${simulator}`);
    }

    await teacher.goto(`${server.url}/teacher`);
    const history = teacher.getByTestId('history');
    await history.waitFor();
    expect(await history.getByTestId('ended-early').innerText()).toBe(early);
    await noViolations(teacher, 'history');
    // Links are named by what they say.
    for (const link of await history.getByRole('link').all()) expect(await link.getAttribute('aria-label')).toBeNull();
    await history.getByRole('link', { name: `Open the replay of round 1, room ${code}`, exact: true }).waitFor();
    await history.getByRole('link', { name: `Open the dashboard of room ${code}`, exact: true }).waitFor();
  });
});
