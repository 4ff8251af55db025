// Replay and debrief in Debian's Chromium: two teams play a short sale surge (Ana adds servers),
// the teacher opens the history from the dashboard and the round's replay, scrubs to a minute and
// finds Ana's name at the change marker, jumps by chapters, exports the CSV, forks a what-if from a
// minute, resumes it (a student changes another control), and compares original and fork on one
// chart. Time is the server's manual clock.
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import {
  DESKTOP,
  eventually,
  joinAsStudent,
  newPage,
  PHONE,
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
const MINUTES = 12;

const text = (page: Page, testId: string) => page.getByTestId(testId).first().innerText();
const deskMinute = (page: Page, minute: number) =>
  eventually(async () =>
    expect(await page.getByTestId('clock-minute').first().innerText()).toBe(`Minute ${minute} of ${MINUTES}`),
  );

/** RFC 4180 rows (quoted fields may hold the separator), enough to read the export back. */
function parseCsv(csv: string, sep = ','): string[][] {
  const rows: string[][] = [];
  for (const line of csv.split('\r\n').filter((l) => l !== '')) {
    const fields: string[] = [];
    let field = '';
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      const ch = line[i];
      if (quoted && ch === '"' && line[i + 1] === '"') {
        field += '"';
        i++; // the escaped quote's second half
      } else if (ch === '"') {
        quoted = !quoted;
      } else if (ch === sep && !quoted) {
        fields.push(field);
        field = '';
      } else {
        field += ch;
      }
    }
    fields.push(field);
    rows.push(fields);
  }
  return rows;
}

async function downloadCsv(
  page: Page,
  button: string | RegExp,
  sep = ',',
): Promise<{ name: string; rows: string[][] }> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: button }).click(),
  ]);
  const path = await download.path();
  // Without the byte-order mark the export starts with (for spreadsheets).
  return {
    name: download.suggestedFilename(),
    rows: parseCsv(readFileSync(path, 'utf8').replace(/^\uFEFF/, ''), sep),
  };
}

describe('replay and debrief in the browser', () => {
  test('history, replay, scrubber, markers with authors, chapters, CSV, a what-if fork compared with its original', async () => {
    // A room of two teams, made over HTTP; the teacher opens it with the copied teacher link.
    const res = await fetch(`${server.url}/api/rooms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        simulator: 'payment-switch',
        scenario: 'sale-surge',
        minutes: MINUTES,
        tempo: TEMPO,
        teamCount: 2,
        seed: 7,
      }),
    });
    const { code, teacherKey } = (await res.json()) as { code: string; teacherKey: string };
    const { page: teacher } = await newPage(browser, DESKTOP);
    await teacher.goto(`${server.url}/teacher/${code}#key=${teacherKey}`);
    await teacher.getByRole('button', { name: 'Start' }).waitFor();

    const { page: ana } = await newPage(browser, DESKTOP);
    await joinAsStudent(ana, server.url, code, 'Ana');
    const { page: budi } = await newPage(browser, DESKTOP);
    await joinAsStudent(budi, server.url, code, 'Budi');
    expect(await text(ana, 'team-name')).toBe('Team 1');
    expect(await text(budi, 'team-name')).toBe('Team 2');

    // The round: Ana adds servers during minute 3 (they apply at minute 4); Budi changes nothing.
    await teacher.getByRole('button', { name: 'Start' }).click();
    // The lobby also reads "Minute 0": wait until the server has really started the round.
    await teacher.getByRole('button', { name: 'Pause' }).waitFor();
    await deskMinute(ana, 0);
    server.minutes(3, TEMPO);
    await deskMinute(ana, 3);
    const servers = ana.getByRole('spinbutton', { name: 'Servers' });
    await servers.fill('10');
    await servers.press('Enter');
    await eventually(async () =>
      expect(await ana.locator('[data-control="servers"]').getByTestId('pending').innerText()).toContain('by Ana'),
    );
    server.minutes(MINUTES - 3, TEMPO);
    await eventually(async () => expect(await text(teacher, 'round-state')).toBe('Finished'));
    await teacher.getByTestId('open-replay').waitFor();

    // The history, from the dashboard: the room, its round, both teams' scores, the replay link.
    await teacher.getByRole('link', { name: 'All your rooms and replays' }).click();
    await teacher.waitForURL(`${server.url}/teacher`);
    const room = teacher.locator(`[data-room="${code}"]`);
    await room.waitFor();
    const roundText = await room.getByTestId('history-round').innerText();
    expect(roundText).toContain('Round 1');
    expect(roundText).toContain('Payment switch · Level 1 · Sale-peak surge');
    expect(roundText).toContain('Seed 7');
    expect(roundText).toContain(`Minute ${MINUTES} of ${MINUTES}`);
    expect(roundText).toMatch(/Team 1[\s\S]*of 3 goals met/);
    expect(roundText).toContain('Team 2');
    await room.getByRole('link', { name: `Open the replay of round 1, room ${code}` }).click();
    await teacher.waitForURL(/\/replay\/\d+/);
    const roundId = Number(/\/replay\/(\d+)/.exec(teacher.url())![1]);
    const replay = teacher;
    await replay.getByTestId('replay-desk').waitFor();
    expect(await replay.getByRole('heading', { level: 1 }).innerText()).toBe(`Replay: round 1, room ${code}`);
    expect(await replay.getByLabel('Team', { exact: true }).inputValue()).toBeTruthy();
    await deskMinute(replay, 0);
    expect(await replay.getByTestId('controls').innerText()).toContain('read-only');

    // Scrub to minute 6 (the range's own input), then one minute on with the keyboard.
    const scrubber = replay.getByLabel('Minute of the replay');
    await scrubber.fill('6');
    await deskMinute(replay, 6);
    expect(await replay.getByTestId('replay-minute').innerText()).toBe(`Minute 6 of ${MINUTES}`);
    // The change marker at minute 4 on every trend chart, with its author; the feed says it in full.
    await showTab(replay, 'trends');
    const marker = replay.getByTestId('change-marker').first();
    expect(await marker.innerText()).toBe('Ana');
    expect(await marker.getAttribute('data-minute')).toBe('4');
    expect(await marker.getAttribute('title')).toContain('Ana set Servers to 10');
    expect(await replay.getByTestId('change-marker').count()).toBeGreaterThanOrEqual(4);
    await showTab(replay, 'feed');
    expect(await text(replay, 'feed')).toContain('Ana set Servers to 10');
    await showTab(replay, 'trends');
    expect(await replay.locator('[data-control="servers"]').innerText()).toContain('In force: 10');
    expect(await replay.locator('fieldset[data-role="scaling"]').getByTestId('owner').innerText()).toBe('Owner: Ana');
    await scrubber.focus();
    await replay.keyboard.press('ArrowRight');
    await deskMinute(replay, 7);
    // Before minute 4 there is no marker yet: the desk is as it was then.
    await scrubber.fill('3');
    await deskMinute(replay, 3);
    expect(await replay.getByTestId('change-marker').count()).toBe(0);

    // Chapters: the sale opens at minute 5 for all teams; Team 1's servers come into service at
    // minute 9 — jumping there from Team 2's desk shows Team 1's.
    const team1 = await replay.getByLabel('Team', { exact: true }).inputValue();
    await replay.getByLabel('Team', { exact: true }).selectOption({ label: 'Team 2' });
    await replay.getByRole('button', { name: /The sale opens.*all teams/ }).click();
    await deskMinute(replay, 5);
    expect(await replay.getByTestId('team-name').innerText()).toBe('Team 2');
    const chapters = await text(replay, 'chapters');
    expect(chapters).toContain('A retry storm starts');
    expect(chapters).toContain('Goal lost for good');
    await replay.getByRole('button', { name: /Servers now in service: 4 more/ }).click();
    await deskMinute(replay, 9);
    expect(await replay.getByLabel('Team', { exact: true }).inputValue()).toBe(team1);
    expect(await replay.getByRole('button', { name: /Servers now in service/ }).getAttribute('aria-current')).toBe(
      'true',
    );
    expect(await replay.getByTestId('change-marker').first().innerText()).toBe('Ana');
    // Both teams on one chart, with their values at the minute shown.
    const legend = await text(replay, 'compare-legend');
    expect(legend).toMatch(/Team 1\s+\d/);
    expect(legend).toMatch(/Team 2\s+\d/);
    await screenshot(replay, 'replay');

    // Play at 5 minutes per second (the page's own timer, not the game clock): it runs to the end
    // and stops there; the address then keeps the moment.
    await replay.getByLabel('Speed (simulated minutes per second)').selectOption('5');
    await replay.getByRole('button', { name: 'Play' }).click();
    await replay.getByRole('button', { name: 'Pause' }).waitFor();
    await deskMinute(replay, MINUTES);
    await replay.getByRole('button', { name: 'Play' }).waitFor();
    await eventually(() => expect(new URL(replay.url()).searchParams.get('minute')).toBe(String(MINUTES)));

    // CSV export: the minutes (columns named with unit and key, a row per team per minute), the
    // changes (with their author and minute), the scores, and all four (with the seats) in one ZIP.
    const minutesCsv = await downloadCsv(replay, 'Every minute of every team');
    expect(minutesCsv.name).toBe(`opsroom-${code}-round1-minutes.csv`);
    const [header, ...rows] = minutesCsv.rows;
    expect(header.slice(0, 3)).toEqual(['Team id [team_id]', 'Team [team]', 'Minute [minute]']);
    expect(header).toContain('Good-customer approval rate (%) [goodApproval]');
    expect(header).toContain('Authorization time (ms) [authTimeMs]');
    expect(header).toContain('Servers [servers]');
    expect(rows.length).toBe(2 * (MINUTES + 1));
    const col = (name: string) => header.indexOf(name);
    const ana9 = rows.find((r) => r[col('Team [team]')] === 'Team 1' && r[col('Minute [minute]')] === '9')!;
    expect(ana9[col('Servers [servers]')]).toBe('10');
    expect(ana9[col('Servers in service [serversInService]')]).toBe('10');
    const changesCsv = await downloadCsv(replay, 'Control changes with their authors');
    expect(changesCsv.rows[0]).toContain('Author [author]');
    expect(changesCsv.rows.slice(1).map((r) => [r[1], r[2], r[3], r[4], r[7]])).toEqual([
      ['Team 1', '4', 'Servers [servers]', '10', 'Ana'],
    ]);
    const [zipped] = await Promise.all([
      replay.waitForEvent('download'),
      replay.getByRole('button', { name: 'All four files (zip)' }).click(),
    ]);
    expect(zipped.suggestedFilename()).toBe(`opsroom-${code}-round1.zip`);
    expect(
      readFileSync(await zipped.path())
        .subarray(0, 4)
        .toString('latin1'),
    ).toBe('PK\x03\x04');
    const scoresCsv = await downloadCsv(replay, 'Scores');
    expect(scoresCsv.rows[0]).toContain('Score [score]');
    expect(scoresCsv.rows.length).toBe(3);
    await eventually(async () =>
      expect(await text(replay, 'export')).toContain(`Downloaded opsroom-${code}-round1-scores.csv.`),
    );
    // Each button says the file's format; in Italian, the format an Italian spreadsheet opens.
    expect(await replay.getByTestId('export-format').allInnerTexts()).toEqual(
      Array(5).fill('(CSV with commas and decimal points)'),
    );
    await replay.getByLabel('Language').selectOption('it');
    await replay.getByTestId('export').waitFor();
    expect(await replay.getByTestId('export-format').first().innerText()).toBe(
      '(CSV con punto e virgola e virgola decimale)',
    );
    const italian = await downloadCsv(replay, /Ogni minuto di ogni squadra/, ';');
    expect(italian.rows[0]).toHaveLength(header.length);
    const approval = header.indexOf('Good-customer approval rate (%) [goodApproval]');
    // The same figures, each with a decimal comma: "99.7" → "99,7".
    expect(italian.rows.slice(1).map((r) => r[approval])).toEqual(rows.map((r) => r[approval].replace('.', ',')));
    expect(rows.some((r) => r[approval].includes('.'))).toBe(true);
    await replay.getByLabel('Lingua').selectOption('en');
    await replay.getByTestId('export').waitFor();

    // What-if from minute 5 of Team 1: a new room, paused at that minute.
    await replay.getByRole('button', { name: /The sale opens/ }).click();
    await deskMinute(replay, 5);
    await replay.getByRole('button', { name: 'Try another decision from minute 5' }).click();
    const made = replay.getByTestId('fork-made');
    await made.waitFor();
    const forkCode = /room ([2-9A-HJKMNP-Z]{6}), paused at minute 5/.exec(await made.innerText())![1];
    expect(forkCode).not.toBe(code);
    expect(await made.getByRole('link', { name: 'Play it yourself' }).getAttribute('href')).toBe(`/join/${forkCode}`);
    expect(await made.getByRole('link', { name: 'Play it yourself' }).getAttribute('target')).toBe('_blank');
    await eventually(async () =>
      expect(await text(replay, 'fork-list')).toContain(`Room ${forkCode}: Team 1 from minute 5`),
    );

    // Its dashboard: paused at minute 5, linked to the original. A student joins and decides otherwise.
    await made.getByRole('link', { name: 'Open its dashboard' }).click();
    await replay.waitForURL(`${server.url}/teacher/${forkCode}`);
    const dash = replay;
    await eventually(async () => expect(await text(dash, 'round-state')).toBe('Paused'));
    expect(await text(dash, 'teacher-minute')).toBe(`Minute 5 of ${MINUTES}`);
    expect(await text(dash, 'fork-of')).toContain('starts from minute 5 of an earlier round');
    const { page: csilla } = await newPage(browser, DESKTOP);
    await joinAsStudent(csilla, server.url, forkCode, 'Csilla');
    await deskMinute(csilla, 5);
    await showTab(csilla, 'feed');
    expect(await text(csilla, 'feed')).toContain('Ana set Servers to 10');
    await csilla.getByRole('switch', { name: 'Load shedding' }).check();
    await eventually(async () =>
      expect(await csilla.locator('[data-control="shedding"]').getByTestId('pending').innerText()).toContain(
        'by Csilla',
      ),
    );
    // Resumed, a minute passes; then the what-if plays to its end.
    await dash.getByRole('button', { name: 'Resume' }).click();
    await eventually(async () => expect(await text(dash, 'round-state')).toBe('Running'));
    server.minutes(1, TEMPO);
    await eventually(async () => expect(await text(dash, 'teacher-minute')).toBe(`Minute 6 of ${MINUTES}`));
    await deskMinute(csilla, 6);
    server.minutes(MINUTES - 6, TEMPO);
    await eventually(async () => expect(await text(dash, 'round-state')).toBe('Finished'));

    // The fork's replay: linked to its origin, both changes marked with their authors, and the
    // original and the what-if on the compare chart.
    await dash.getByTestId('open-replay').click();
    await dash.waitForURL(/\/replay\/\d+/);
    const forkReplay = dash;
    await forkReplay.getByTestId('replay-desk').waitFor();
    expect(await text(forkReplay, 'fork-origin')).toContain(`minute 5 of the original round, in room ${code}`);
    await forkReplay.getByLabel('Minute of the replay').fill(String(MINUTES));
    await deskMinute(forkReplay, MINUTES);
    await showTab(forkReplay, 'trends');
    const labels = await forkReplay.locator('figure').first().getByTestId('change-marker').allInnerTexts();
    expect(labels).toEqual(['Ana', 'Csilla']);
    await eventually(async () => {
      const lines = forkReplay.getByTestId('compare-legend').locator('li');
      expect(await lines.count()).toBe(2);
      expect(await lines.nth(0).innerText()).toMatch(/This what-if: Team 1\s+\d/);
      expect(await lines.nth(1).innerText()).toMatch(/Original round: Team 1\s+\d/);
    });
    // The what-ifs differ from minute 6 on: Csilla's shedding.
    await forkReplay.getByRole('combobox', { name: 'Indicator', exact: true }).selectOption('shedTps');
    const values = await forkReplay.getByTestId('compare-legend').locator('.value').allInnerTexts();
    expect(values[0]).not.toBe(values[1]);

    // The original's replay now draws the what-if beside both teams.
    await forkReplay.getByRole('link', { name: 'Open the original replay' }).click();
    await forkReplay.waitForURL(new RegExp(`/replay/${roundId}\\?team=\\d+&minute=5$`));
    await deskMinute(forkReplay, 5);
    await eventually(async () =>
      expect(await text(forkReplay, 'compare-legend')).toContain(`What-if from minute 5: Team 1, room ${forkCode}`),
    );

    // The history lists the what-if, linked to its original both ways.
    await forkReplay.goto(`${server.url}/teacher`);
    const forkRoom = forkReplay.locator(`[data-room="${forkCode}"]`);
    await forkRoom.waitFor();
    expect(await forkRoom.getByTestId('history-fork-of').innerText()).toBe(
      `What-if from minute 5 of round 1, room ${code} (Team 1)`,
    );
    expect(await forkReplay.locator(`[data-room="${code}"]`).innerText()).toContain(
      `room ${forkCode}, Team 1, from minute 5`,
    );
    // Newest first: the what-if's room comes before the original's.
    const order = await forkReplay
      .locator('[data-room]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-room')));
    expect(order.indexOf(forkCode)).toBeLessThan(order.indexOf(code));
    await screenshot(forkReplay, 'teacher-history');

    // On a phone the replay fits the width: nothing scrolls sideways.
    const { page: phone } = await newPage(browser, PHONE);
    await phone.goto(`${server.url}/replay/${roundId}?minute=9#key=${teacherKey}`);
    await phone.getByTestId('replay-desk').waitFor();
    await deskMinute(phone, 9);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(phone, 'replay-phone');
  });
});
