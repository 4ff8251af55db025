// The student desk as a class meets it, in Debian's Chromium (issue 12, items 2, 4, 6, 12, 13): the
// lobby shows the values the round starts with; at 1366×768 the first screen holds the clock, the
// headline with its goals, what just happened, the picture, the student's own controls, the goals
// and the team's ledger; events stay in a banner until read; the charts keep a readable axis with
// unit and goal line and name each change's author; a typed value out of range is refused with the allowed range and
// not sent; a double tap on Roll back presses once; on a 390×844 phone the incident's cause and Roll
// back are on the first screen; at the end the verdicts come first, on the desk and on the phone.
// Time is the server's manual clock.
import type { Browser, Locator, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { axeViolations, describeViolations } from './axe.ts';
import {
  createRoom,
  eventually,
  HANDSET,
  joinAsStudent,
  LAPTOP,
  minuteShown,
  newPage,
  onFirstScreen,
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

async function teacherStarts(code: string, teacherKey: string): Promise<Page> {
  const { page } = await newPage(browser, LAPTOP);
  await page.goto(`${server.url}/teacher/${code}#key=${teacherKey}`);
  await page.getByRole('button', { name: 'Start' }).click();
  await page.getByRole('button', { name: 'Pause' }).waitFor();
  return page;
}

/** A web-service room of one team: Eka on a laptop and Fitri on a phone have joined; the teacher starts it. */
async function webServiceTeam(scenario: string, minutes: number): Promise<{ eka: Page; fitri: Page }> {
  const { code, teacherKey } = await createRoom(server.url, {
    simulator: 'web-service',
    scenario,
    minutes,
    tempo: 1,
    teamCount: 1,
    seed: 7,
  });
  const { page: eka } = await newPage(browser, LAPTOP);
  await joinAsStudent(eka, server.url, code, 'Eka');
  const { page: fitri } = await newPage(browser, HANDSET);
  await joinAsStudent(fitri, server.url, code, 'Fitri');
  expect(await fitri.getByTestId('my-roles').innerText()).toBe('Your role: Cache, Release');
  await teacherStarts(code, teacherKey);
  return { eka, fitri };
}

describe('the desk in class', () => {
  test('payment switch: starting values, one screen, a banner until read, readable charts, refused inputs, the end first', async () => {
    const minutes = 12;
    const { code, teacherKey } = await createRoom(server.url, {
      simulator: 'payment-switch',
      scenario: 'sale-surge',
      minutes,
      tempo: 1,
      teamCount: 1,
      seed: 7,
    });
    // A team of two: Ana (scaling, fraud) at 1366×768, Budi (shedding, stand-in) on a phone.
    const { page: ana } = await newPage(browser, LAPTOP);
    await joinAsStudent(ana, server.url, code, 'Ana');
    const { page: budi } = await newPage(browser, HANDSET);
    await joinAsStudent(budi, server.url, code, 'Budi');
    expect(await ana.getByTestId('my-roles').innerText()).toBe('Your role: Scaling, Fraud');

    // (2) Before the round every control shows the value it starts with, not its minimum.
    await eventually(async () => expect(await ana.getByRole('spinbutton', { name: 'Servers' }).inputValue()).toBe('6'));
    expect(await ana.locator('[data-control="servers"]').innerText()).toContain('Starts at 6');
    expect(await ana.getByRole('spinbutton', { name: 'Fraud-score threshold' }).inputValue()).toBe('3');
    expect(await ana.locator('[data-control="fraudThreshold"]').innerText()).toContain('Starts at 3.0 σ');
    expect(await budi.getByRole('spinbutton', { name: 'Issuer timeout' }).inputValue()).toBe('8');
    expect(await budi.getByRole('combobox', { name: 'Retry policy' }).inputValue()).toBe('immediate');
    expect(await budi.locator('[data-control="retryPolicy"]').innerText()).toContain('Starts at Immediate');
    expect(await ana.getByRole('spinbutton', { name: 'Servers' }).isDisabled()).toBe(true);

    await teacherStarts(code, teacherKey);
    await minuteShown(ana, 0, minutes);
    server.minutes(3, 1);
    await minuteShown(ana, 3, minutes);
    const servers = ana.getByRole('spinbutton', { name: 'Servers' });
    await servers.fill('10');
    await servers.press('Enter');
    await ana.locator('[data-control="servers"]').getByTestId('pending').waitFor();

    // (13) 9 in the 0.5–5 σ threshold: refused with the allowed range, not sent; off the step too.
    const threshold = ana.getByRole('spinbutton', { name: 'Fraud-score threshold' });
    for (const typed of ['9', '3.05']) {
      await threshold.fill(typed);
      await threshold.press('Enter');
      const refused = ana.locator('[data-control="fraudThreshold"]').getByTestId('invalid');
      await eventually(async () =>
        expect(await refused.innerText()).toBe('Not sent: choose from 0.5 σ to 5.0 σ, in steps of 0.1 σ.'),
      );
      expect(await threshold.getAttribute('aria-invalid')).toBe('true');
      expect(await threshold.inputValue()).toBe(typed);
    }
    await threshold.fill('3.5');
    await threshold.press('Enter');
    await ana.locator('[data-control="fraudThreshold"]').getByTestId('pending').waitFor();
    expect(await ana.locator('[data-control="fraudThreshold"]').getByTestId('invalid').count()).toBe(0);

    server.minutes(3, 1);
    await minuteShown(ana, 6, minutes);
    await minuteShown(budi, 6, minutes);
    // Only the valid values reached the team: the feed has 3.5 σ, never 9 or 3.05.
    await showTab(budi, 'feed');
    await eventually(async () =>
      expect(await budi.getByTestId('feed').innerText()).toContain('Ana set Fraud-score threshold to 3.5 σ'),
    );
    expect(await budi.getByTestId('feed').locator('[data-change="fraudThreshold"]').count()).toBe(1);

    // (6) The sale opened at minute 5: a banner on top of the desk, and in the feed.
    const banner = ana.getByTestId('event-banner');
    await eventually(async () => expect(await banner.innerText()).toContain('The sale opens'));
    expect(await budi.getByTestId('feed').innerText()).toContain('The sale opens');

    // (1) The one-screen desk at 1366×768: everything a minute needs, without scrolling.
    const first: [string, Locator][] = [
      ['clock', ana.getByTestId('clock')],
      ['banner', banner],
      ['headline', ana.getByTestId('headline')],
      ['approval goal', ana.locator('[data-key="goodApproval"]').getByTestId('headline-goal')],
      ['picture', ana.getByTestId('picture')],
      ['servers', servers],
      ['threshold', threshold],
      ['step-up band', ana.getByRole('spinbutton', { name: 'Step-up band' })],
      ['goals', ana.getByTestId('goals')],
      ['ledger', ana.getByTestId('ledger')],
    ];
    for (const [label, what] of first) await onFirstScreen(ana, what, label);
    expect(await ana.locator('[data-key="authTimeMs"]').getByTestId('headline-goal').innerText()).toBe('Goal ≤ 500 ms');
    // The rest is one tap away.
    for (const tab of ['Simulator', 'Trend', 'Indicators', 'Team feed', 'Scenario', 'Your team'])
      await onFirstScreen(ana, ana.getByRole('tab', { name: tab }), `tab ${tab}`);

    // The banner stays (a minute later too) until read, and stays read after a reload.
    server.minutes(1, 1);
    await minuteShown(ana, 7, minutes);
    expect(await banner.innerText()).toContain('The sale opens');
    await banner.getByRole('button', { name: 'Got it' }).click();
    await eventually(async () => expect(await banner.count()).toBe(0));
    await ana.reload();
    await minuteShown(ana, 7, minutes);
    await ana.getByTestId('headline').waitFor();
    expect(await ana.getByTestId('event-banner').count()).toBe(0);

    // (12) The authorization-time chart on Budi's live desk: the goal line on a readable axis with
    // its unit, not zoomed into noise, and Ana's change marked with her name at minute 4.
    await showTab(budi, 'trends');
    const auth = budi.getByTestId('trend').filter({ hasText: 'Authorization time' });
    await eventually(async () => expect(await auth.getByTestId('change-marker').first().innerText()).toBe('Ana'));
    expect(await auth.getByTestId('change-marker').first().getAttribute('data-minute')).toBe('4');
    expect(await auth.getByTestId('change-marker').first().getAttribute('title')).toContain('Ana set Servers to 10');
    expect(await auth.getByTestId('axis-unit').textContent()).toBe('ms');
    expect(await auth.getByTestId('goal-line').count()).toBe(1);
    expect(await auth.locator('text.goal-text').textContent()).toBe('Goal ≤ 500 ms');
    const yTicks = (await auth.locator('text.tick.y').allTextContents()).map((t) => Number(t.replace(/,/g, '')));
    // The goal (500 ms) inside the axis, and a span of hundreds of ms, not 20.
    expect(Math.max(...yTicks)).toBeGreaterThan(500);
    expect(Math.min(...yTicks)).toBeLessThan(500);
    expect(Math.max(...yTicks) - Math.min(...yTicks)).toBeGreaterThanOrEqual(250);
    expect(await auth.getByRole('img').getAttribute('aria-label')).toContain('Goal ≤ 500 ms');

    // (4) The end comes first: the verdicts, the score, the rank — on the desk and on the phone.
    server.minutes(minutes - 7, 1);
    for (const page of [ana, budi]) {
      await minuteShown(page, minutes, minutes);
      const over = page.getByTestId('round-over');
      await over.waitFor();
      await page.evaluate(() => window.scrollTo(0, 0));
      const box = (await over.boundingBox())!;
      expect(box.y).toBeLessThan(page.viewportSize()!.height / 2);
      await eventually(async () => expect(await over.getByTestId('rank').innerText()).toBe('Rank 1 of 1'));
      const verdicts = await over.getByTestId('verdicts').locator('li').all();
      expect(verdicts).toHaveLength(3);
      for (const v of verdicts) {
        const met = await v.getAttribute('data-met');
        expect(await v.innerText()).toContain(met === 'true' ? 'met' : 'missed');
        expect(await v.innerText()).toMatch(/goal [≤≥]/);
      }
      expect(await over.innerText()).toMatch(/Score -?[\d,.]+/);
      // Nothing about closed controls above it.
      const closed = page.getByText('The round is over: controls are closed.');
      expect((await closed.boundingBox())!.y).toBeGreaterThan(box.y);
    }
  });

  test("web service on a phone: the incident's cause and Roll back on the first screen; a double tap presses once", async () => {
    const minutes = 16;
    const { eka, fitri } = await webServiceTeam('bad-deploy', minutes);
    server.minutes(12, 1);
    await minuteShown(fitri, 12, minutes);
    await fitri.getByTestId('headline').waitFor();

    // The bad build went live at minute 10: the cause in the banner, the headline and Roll back on
    // the phone's first screen.
    const rollback = fitri.getByRole('button', { name: 'Roll back', exact: true });
    await eventually(async () =>
      expect(await fitri.getByTestId('event-banner').innerText()).toContain('A new build is going live'),
    );
    await onFirstScreen(fitri, fitri.getByTestId('event-banner'), 'banner');
    await onFirstScreen(fitri, fitri.getByTestId('headline'), 'headline');
    await onFirstScreen(fitri, rollback, 'Roll back');

    // A double tap: one press recorded, and the button waits while it is pending.
    await rollback.dblclick();
    await fitri.locator('[data-control="rollback"]').getByTestId('pending').waitFor();
    expect(await rollback.isDisabled()).toBe(true);
    await rollback.click({ force: true });
    await showTab(eka, 'feed');
    await eventually(async () =>
      expect(await eka.getByTestId('feed').innerText()).toContain('Fitri pressed Roll back'),
    );
    server.minutes(1, 1);
    await minuteShown(eka, 13, minutes);
    expect(await eka.getByTestId('feed').locator('[data-change="rollback"]').count()).toBe(1);
  });

  test('the product launch: the autoscaler the story takes away is greyed with the reason, on the desk and the phone', async () => {
    const minutes = 10;
    const { eka, fitri } = await webServiceTeam('product-launch', minutes);
    expect(await eka.getByTestId('my-roles').innerText()).toBe('Your role: Fleet, Traffic');
    server.minutes(2, 1);
    await minuteShown(eka, 2, minutes);
    const field = eka.locator('[data-control="autoscaling"]');
    await eventually(async () =>
      expect(await field.getByTestId('unavailable').innerText()).toContain(
        'Not available: the autoscaler is being migrated and is not there today',
      ),
    );
    const toggle = field.getByRole('switch');
    expect(await toggle.isDisabled()).toBe(true);
    expect(await toggle.isChecked()).toBe(false);
    // The reason is part of the control's description for a screen reader.
    expect(await toggle.getAttribute('aria-describedby')).toContain('ctl-autoscaling-unavailable');
    // The fleet's other control still works.
    expect(await eka.getByRole('spinbutton', { name: 'Minimum instances' }).isDisabled()).toBe(false);
    expect(describeViolations(await axeViolations(eka)), 'desk').toEqual([]);
    // A teammate without the fleet sees it greyed too, with the same reason.
    await minuteShown(fitri, 2, minutes);
    await eventually(async () =>
      expect(await fitri.locator('[data-control="autoscaling"]').getByTestId('unavailable').count()).toBe(1),
    );
    expect(describeViolations(await axeViolations(fitri)), 'phone').toEqual([]);
  });
});
