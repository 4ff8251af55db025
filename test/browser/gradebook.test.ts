// The teacher's gradebook on the history: a class list uploaded and matched by name, the ids saved, a Canvas gradebook
// downloaded with them; the research package downloaded; no axe violation, at 1366×768, 1920×1080 and 390×844.
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { io, type Socket } from 'socket.io-client';
import { afterAll, expect, test } from 'vitest';
import { csvRows, unzip, validatePackage } from '../server/table-schema.ts';
import { noViolations } from './axe.ts';
import {
  createRoom,
  HANDSET,
  LAPTOP,
  newPage,
  quietStudents,
  screenshot,
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
const sockets: Socket[] = [];
afterAll(() => {
  for (const s of sockets) s.disconnect();
});

async function ask(s: Socket, event: string, payload: object): Promise<void> {
  const res = await new Promise<{ ok: boolean }>((resolve) => s.emit(event, payload, resolve));
  expect(res.ok, `${event} ${JSON.stringify(res)}`).toBe(true);
}

test('a class list matched by name, the ids saved, a Canvas gradebook and the research data downloaded', async () => {
  const TEMPO = 1;
  const MINUTES = 6;
  const names = ['Zsófia Kovács', 'Bao Tran', 'Dewi Lestari', 'Ana Ruiz'];
  const { code, teacherKey } = await createRoom(server.url, {
    simulator: 'payment-switch',
    scenario: 'sale-surge',
    teamCount: 2,
    minutes: MINUTES,
    tempo: TEMPO,
    seed: 3,
  });
  sockets.push(...(await quietStudents(server.url, code, names)));
  const teacher = io(server.url, { transports: ['websocket'], forceNew: true, reconnection: false });
  sockets.push(teacher);
  await new Promise<void>((resolve, reject) => {
    teacher.once('connect', () => resolve());
    teacher.once('connect_error', reject);
  });
  await ask(teacher, 'teacher:join', { code, key: teacherKey });
  await ask(teacher, 'teacher:clock', { action: 'start' });
  server.minutes(MINUTES, TEMPO);

  const { page } = await newPage(browser, LAPTOP);
  await page.goto(`${server.url}/teacher#key=${teacherKey}`);
  const panel = page.getByTestId('class-data');
  await page.locator(`[data-room="${code}"] [data-testid="history-round"] .state-finished`).waitFor();
  await panel.locator('summary').click();
  await panel.getByRole('textbox', { name: 'School id of Dewi Lestari' }).waitFor();

  // The school's class list in Canvas's columns, with an email column: "Last, First" names, a Points Possible row.
  const list = join(tmpdir(), `roster-${code}.csv`);
  writeFileSync(
    list,
    [
      'Student,ID,SIS User ID,Section,Email',
      'Points Possible,,,,',
      '"Kovács, Zsófia",11,S-01,7A,zk@school.example',
      '"Tran, Bao",12,S-02,7A,bt@school.example',
      '"Lestari, Dewi",13,S-03,7A,dl@school.example',
      '"Someone, Else",14,S-04,7A,se@school.example',
    ].join('\r\n'),
  );
  await panel.getByTestId('roster-file').setInputFiles(list);
  await expect
    .poll(() => panel.getByRole('status').innerText())
    .toContain('Matched by name: 3. Rows of the list without a match: 1.');
  expect(await panel.getByRole('textbox', { name: 'School id of Bao Tran' }).inputValue()).toBe('S-02');
  // Ana is not on the list: the teacher types her id.
  await panel.getByRole('textbox', { name: 'School id of Ana Ruiz' }).fill('S-09');
  await panel.getByTestId('roster-save').click();
  await expect.poll(() => panel.getByRole('status').innerText()).toContain('Saved. Students with an id or email: 4.');

  await panel.getByRole('radio', { name: /^Rank/ }).check();
  await panel.getByRole('radio', { name: 'Canvas' }).check();
  await panel.getByRole('spinbutton', { name: 'Points possible' }).fill('20');
  for (const size of [LAPTOP, WALL, HANDSET]) {
    await page.setViewportSize(size);
    await noViolations(page, `gradebook panel ${size.width}×${size.height}`);
    await screenshot(page, `gradebook-${size.width}x${size.height}`);
  }
  await page.setViewportSize(LAPTOP);

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    panel.getByTestId('gradebook-download').click(),
  ]);
  expect(download.suggestedFilename()).toBe(`opsroom-${code}-gradebook-canvas-rank.csv`);
  const rows = csvRows(readFileSync(await download.path(), 'utf8').replace(/^\uFEFF/, '')).filter((r) => r.length > 1);
  expect(rows[0]).toEqual(['Student', 'ID', 'SIS User ID', 'SIS Login ID', 'Section', `Opsroom ${code}`]);
  expect(rows[1]).toEqual(['Points Possible', '', '', '', '', '20']);
  const byName = new Map(rows.slice(2).map((r) => [r[0], r]));
  expect([...byName.keys()].sort()).toEqual([...names].sort());
  expect(byName.get('Zsófia Kovács')?.slice(2, 4)).toEqual(['S-01', 'zk@school.example']);
  expect(byName.get('Ana Ruiz')?.[2]).toBe('S-09');
  // Two teams: the first gets the 20 points, the second none (unless they tie).
  const grades = [...byName.values()].map((r) => Number(r[5])).sort((a, b) => a - b);
  expect(grades.every((g) => g === 0 || g === 20)).toBe(true);
  expect(grades.at(-1)).toBe(20);

  const [zipped] = await Promise.all([page.waitForEvent('download'), panel.getByTestId('research-download').click()]);
  expect(zipped.suggestedFilename()).toBe(`opsroom-${code}-research.zip`);
  const files = unzip(readFileSync(await zipped.path()));
  expect(validatePackage(files)).toEqual([]);
  const all = [...files.values()].map((b) => b.toString('utf8')).join('\n');
  for (const n of names) expect(all).not.toContain(n);

  // A round's research data from its replay, with the names asked for.
  const roundId = await page.locator(`[data-room="${code}"] [data-testid="history-round"]`).getAttribute('data-round');
  await page.goto(`${server.url}/replay/${roundId}`);
  const research = page.locator('[data-part="research"]');
  await research.waitFor();
  await page.getByRole('checkbox', { name: "Include the students' names" }).check();
  await research.scrollIntoViewIfNeeded();
  await noViolations(page, 'replay with its research data');
  await screenshot(page, 'replay-research-1366x768');
  const [named] = await Promise.all([page.waitForEvent('download'), research.click()]);
  expect(named.suggestedFilename()).toBe(`opsroom-${code}-round1-research-named.zip`);
  const people = csvRows(
    unzip(readFileSync(await named.path()))
      .get('participants.csv')
      ?.toString('utf8') ?? '',
  );
  const nameAt = people[0].indexOf('name');
  expect(
    people
      .slice(1)
      .map((r) => r[nameAt])
      .filter(Boolean)
      .sort(),
  ).toEqual([...names].sort());
});
