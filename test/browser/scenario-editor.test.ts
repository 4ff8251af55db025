// The scenario editor in Debian's Chromium, as a teacher uses it: the list (built-ins offered, retired ones not),
// a duplicate of Black Friday, a shock moved and a goal changed, the checks at three depths (an error that blocks
// saving, then the dry run's verdicts from the Web Worker under the app's CSP), saved; a room opened with it, a round
// played on the manual clock and replayed — then the scenario edited again (a new version) and the old round still
// replays exactly. axe-core on the list and the editor; screenshots of both on a laptop, a wall and a phone.
import type { Browser, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { noViolations } from './axe.ts';
import {
  atEveryScreen,
  createRoom,
  eventually,
  joinAsStudent,
  LAPTOP,
  newPage,
  quietStudents,
  screenshot,
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

const TEMPO = 1;
const ID = 'black-friday-copy';

/** The dry run of the draft on screen is done (it runs in a worker, seconds under load). */
const dryRunDone = (page: Page) =>
  eventually(async () => {
    expect(await page.getByTestId('dry-run-status').getAttribute('data-status')).toBe('done');
  }, 90_000);

interface ReplayJson {
  teams: { columns: unknown; result: unknown; changes: unknown[] }[];
  round: { minute: number; scenario: string };
}
const replayOf = async (roundId: number, key: string): Promise<ReplayJson> => {
  const res = await fetch(`${server.url}/api/rounds/${roundId}/replay`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as ReplayJson;
};

/** What the replay page shows at the round's last minute: the minute and the team's score. */
async function replayEnd(page: Page, roundId: number): Promise<{ minute: string; score: string }> {
  await page.goto(`${server.url}/replay/${roundId}`);
  await page.getByTestId('replay-desk').waitFor();
  const scrubber = page.getByLabel('Minute of the replay');
  await scrubber.fill(String(await scrubber.getAttribute('max')));
  await eventually(async () => expect(await page.getByTestId('replay-minute').innerText()).toMatch(/^Minute 60 of 60/));
  return {
    minute: await page.getByTestId('replay-minute').innerText(),
    score: await page.getByTestId('compare-legend').innerText(),
  };
}

describe('the scenario editor', () => {
  test('duplicate Black Friday, move a shock, change a goal, check, save, play it, replay it, edit it: the round replays the same', async () => {
    // The teacher's key comes from a room made over HTTP (the start page does the same).
    const room = await createRoom(server.url, {
      simulator: 'payment-switch',
      scenario: 'sale-surge',
      tempo: TEMPO,
      teamCount: 1,
      seed: 11,
    });
    const key = room.teacherKey;

    // The list: the built-ins new rooms are offered, Black Friday among them and not the retired Sale day.
    const { page } = await newPage(browser, LAPTOP);
    await page.goto(`${server.url}/teacher#key=${key}`);
    await page.getByTestId('history-scenarios').click();
    await page.waitForURL(`${server.url}/teacher/scenarios`);
    const builtins = page.getByTestId('scenarios-builtin');
    await builtins.locator('[data-scenario="black-friday"]').waitFor();
    expect(await builtins.locator('[data-scenario="sale-day"]').count()).toBe(0);
    expect(await page.getByTestId('scenarios-mine').count()).toBe(0);
    await noViolations(page, 'scenario list');
    await atEveryScreen(page, (screen) => screenshot(page, `scenarios-list-${screen}`));

    // Duplicate and tweak: the copy gets its own id.
    await builtins
      .locator('[data-scenario="black-friday"]')
      .getByRole('link', { name: /^Duplicate and tweak: .*Black Friday/ })
      .click();
    await page.getByRole('heading', { name: 'New scenario (not saved yet)' }).waitFor();
    expect(await page.getByLabel('Id', { exact: true }).inputValue()).toBe(ID);
    await page.getByLabel('Name', { exact: true }).fill('Black Friday, early bots');

    // An error blocks saving and names its field: a starting control outside its range.
    await dryRunDone(page);
    const servers = page.locator('[data-control="servers"] input');
    const serversBefore = await servers.inputValue();
    await servers.fill('999');
    await eventually(async () =>
      expect(await page.getByTestId('checks-meaning').innerText()).toContain('controls.servers'),
    );
    expect(await page.getByTestId('editor-save').isDisabled()).toBe(true);
    expect(await page.getByTestId('editor-said').innerText()).toContain('error');
    expect(await page.getByTestId('dry-run-status').getAttribute('data-status')).toBe('blocked');
    await servers.fill(serversBefore);

    // Move a shock: the scalper bots (shock 2) from minutes 18–20 to 10–12; the strip follows.
    const bots = page.getByTestId('shock-1');
    expect(await bots.getAttribute('data-kind')).toBe('bots');
    await bots.getByLabel('between').first().fill('10');
    await bots.getByLabel('and', { exact: true }).first().fill('12');
    const window = page.getByTestId('strip-1').locator('.window');
    await eventually(async () => expect(await window.getAttribute('data-from')).toBe('10'));
    expect(await window.getAttribute('data-to')).toBe('12');

    // Change a goal: the fraud rate's target from 36 to 30 bp.
    const fraud = page.getByTestId('goal-2');
    expect(await fraud.getByLabel('Indicator').inputValue()).toBe('fraudRateBp');
    await fraud.getByLabel(/^Target/).fill('30');

    // The checks at three depths, in words; the dry run comes from the worker while the page stays usable.
    await eventually(async () =>
      expect(['waiting', 'running']).toContain(await page.getByTestId('dry-run-status').getAttribute('data-status')),
    );
    await page.getByLabel('Name', { exact: true }).fill('Black Friday, early bots');
    await dryRunDone(page);
    expect(await page.getByTestId('checks-schema').innerText()).toContain('Nothing found.');
    const verdicts = page.getByTestId('verdicts').locator('li');
    expect(await verdicts.count()).toBeGreaterThan(0);
    expect(await page.getByTestId('verdicts').locator('[data-level="error"]').count()).toBe(0);
    await page.getByTestId('preview-chart').waitFor();
    expect(await page.getByTestId('preview-chart').innerText()).toMatch(
      /Careful bots: every goal met on \d of 3 seeds/,
    );
    await noViolations(page, 'scenario editor');
    await atEveryScreen(page, (screen) => screenshot(page, `scenario-editor-${screen}`));

    // Save: version 1, and the address now opens it.
    await page.getByTestId('editor-save').click();
    await eventually(async () => expect(await page.getByTestId('editor-said').innerText()).toBe('Saved as version 1.'));
    expect(new URL(page.url()).searchParams.get('id')).toBe(ID);
    const stored = await fetch(`${server.url}/api/teacher/scenarios/${ID}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const { file } = (await stored.json()) as {
      file: { shocks: { episodes: { start: unknown }[] }; goals: { target: number }[] };
    };
    expect(file.shocks.episodes[1].start).toEqual([10, 12]);
    expect(file.goals[2].target).toBe(30);

    // A room with it: the set-up offers the teacher's own scenarios beside the built-ins.
    await page.goto(`${server.url}/teacher/${room.code}`);
    const setup = page.getByTestId('setup-form');
    await setup.locator(`option[value="${ID}"]`).waitFor({ state: 'attached' });
    await setup.getByLabel('Scenario').selectOption(ID);
    await eventually(async () =>
      expect(await setup.getByLabel('Round length (simulated minutes)').inputValue()).toBe('60'),
    );
    await setup.getByRole('button', { name: 'Save set-up' }).click();
    await eventually(async () => expect(await setup.getByRole('status').innerText()).toBe('Set-up saved.'));

    // A student's desk shows the scenario's own words: its name, its brief and each goal's line with its target.
    const desk = await newPage(browser, LAPTOP);
    await joinAsStudent(desk.page, server.url, room.code, 'Bea');
    const fraudLine = 'Fraud rate over the worst 10 minutes in a row ≤ 30';
    const goals = desk.page.getByTestId('goals');
    await eventually(async () => expect(await goals.locator('li').count()).toBe(file.goals.length));
    expect(await goals.locator('[data-goal="fraudRate"] .sentence').innerText()).toContain(fraudLine);
    await showTab(desk.page, 'about');
    expect(await desk.page.locator('.scenario-name').innerText()).toBe('Black Friday, early bots');
    expect(await desk.page.locator('.brief').innerText()).toMatch(/^Sales may be announced/);

    // A round on the manual clock, with two students.
    const students = await quietStudents(server.url, room.code, ['Ana']);
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    server.minutes(60, TEMPO);
    await eventually(async () => expect(await page.getByTestId('round-state').first().innerText()).toBe('Finished'));
    // The round's verdicts on the desk say each goal in the scenario's words.
    const over = desk.page.getByTestId('round-over');
    await eventually(async () =>
      expect(await over.locator('[data-goal="fraudRate"] .sentence').innerText()).toContain(fraudLine),
    );
    await desk.context.close();
    const href = await page.getByTestId('open-replay').getAttribute('href');
    const roundId = Number(/\/replay\/(\d+)/.exec(href ?? '')?.[1]);
    for (const s of students) s.disconnect();

    const before = await replayOf(roundId, key);
    expect(before.round.scenario).toBe(ID);
    const shownBefore = await replayEnd(page, roundId);
    expect(await page.locator('header.round-head').innerText()).toContain('Black Friday, early bots');

    // The scenario edited again: the bots later, a harsher goal — version 2.
    await page.goto(`${server.url}/teacher/scenarios?id=${ID}`);
    await page.getByRole('heading', { name: 'Scenario: Black Friday, early bots' }).waitFor();
    await page.getByTestId('shock-1').getByLabel('between').first().fill('30');
    await page.getByTestId('shock-1').getByLabel('and', { exact: true }).first().fill('33');
    await page
      .getByTestId('goal-2')
      .getByLabel(/^Target/)
      .fill('20');
    await dryRunDone(page);
    await page.getByTestId('editor-save').click();
    await eventually(async () => expect(await page.getByTestId('editor-said').innerText()).toBe('Saved as version 2.'));

    // The old round replays exactly as before the edit: the same minutes, the same score.
    const after = await replayOf(roundId, key);
    expect(after.teams.map((t) => t.columns)).toEqual(before.teams.map((t) => t.columns));
    expect(after.teams.map((t) => t.result)).toEqual(before.teams.map((t) => t.result));
    expect(await replayEnd(page, roundId)).toEqual(shownBefore);
  });
});
