// What a person does with `npm run cluster`, in Debian's Chromium: the teacher's page on one process, the
// students' pages on the other. The teacher creates the room and starts it; the students join by code, see each
// minute the owner computes and change their controls; the teacher sees them join and their changes.
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  assertBuilt,
  BUILD_DIR,
  DESKTOP,
  eventually,
  joinAsStudent,
  launchBrowser,
  minuteShown,
  newPage,
  showTab,
} from '../browser/helpers.ts';
import { testCluster, type Node } from './nodes.ts';

const cluster = testCluster('browser');
let a: Node;
let b: Node;
let browser: Browser;

beforeAll(async () => {
  assertBuilt();
  await cluster.services();
  // On a whole second, as the browser tests' server: minutes are played at the end of their 20 ms beat slot, and a
  // clock that starts between two slots would need more than a tempo's advance to reach the first one.
  const env = { WEB_ROOT: resolve(BUILD_DIR), CLOCK_START: String(Math.floor(Date.now() / 1000) * 1000) };
  [a, b] = await Promise.all([cluster.start('a', env), cluster.start('b', env)]);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

test('the teacher’s page on one process, the students’ pages on the other', async () => {
  const minutes = 5;
  const { page: teacher } = await newPage(browser, DESKTOP);
  await teacher.goto(`${a.url}/`);
  await teacher.getByLabel('Simulator').selectOption('payment-switch');
  await teacher.getByLabel('Scenario').selectOption('sale-surge');
  await teacher.getByLabel('Round length (simulated minutes)').fill(String(minutes));
  await teacher.getByLabel('Tempo').selectOption('1');
  await teacher.getByLabel('Number of teams').fill('1');
  await teacher.getByRole('button', { name: 'Create room' }).click();
  await teacher.waitForURL(/\/teacher\/[2-9A-HJKMNP-Z]{6}$/);
  const code = (await teacher.getByTestId('room-code').first().innerText()).trim();

  const students: Page[] = [];
  for (const name of ['Ana', 'Budi']) {
    const { page } = await newPage(browser, DESKTOP);
    await joinAsStudent(page, b.url, code, name);
    students.push(page);
  }
  for (const name of ['Ana', 'Budi']) {
    await eventually(async () => {
      const row = await teacher
        .locator('[data-player]')
        .filter({ has: teacher.getByText(name, { exact: true }) })
        .innerText();
      expect(row).toContain('connected');
      expect(row).not.toContain('not connected');
    });
  }

  await teacher.getByRole('button', { name: 'Start' }).click();
  await teacher.getByRole('button', { name: 'Pause' }).waitFor();
  for (const page of students) await minuteShown(page, 0, minutes);

  // Ana (scaling, the first to join) adds servers on B; A stores it and the whole team sees it pending.
  const servers = students[0].getByRole('spinbutton', { name: 'Servers' });
  await servers.fill('10');
  await servers.press('Enter');
  await showTab(students[1], 'feed');
  await eventually(async () =>
    expect(await students[1].getByTestId('feed').locator('[data-change="servers"]').first().innerText()).toContain(
      'Ana set Servers to 10',
    ),
  );

  // The room's clock is A's: each minute it computes reaches the pages served by B.
  for (let m = 1; m <= 2; m++) {
    await a.advance(1000);
    for (const page of students) await minuteShown(page, m, minutes);
  }
  expect((await a.rooms()).held.map((r) => r.code)).toEqual([code]);
  expect((await b.rooms()).held).toEqual([]);
});
