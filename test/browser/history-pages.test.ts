// The teacher's history a page at a time: twenty rooms first, the older ones on "Show older rooms", every room once,
// without an axe violation, at 1366×768.
import type { Browser } from 'playwright-core';
import { expect, test } from 'vitest';
import { noViolations } from './axe.ts';
import { LAPTOP, newPage, screenshot, useBrowserSuite, type WebServer } from './helpers.ts';

let server: WebServer;
let browser: Browser;
useBrowserSuite((s, b) => {
  server = s;
  browser = b;
});

test('twenty rooms, then the older ones on demand, each once', async () => {
  let key: string | undefined;
  const codes: string[] = [];
  for (let i = 0; i < 23; i++) {
    const res = await fetch(`${server.url}/api/rooms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ teamCount: 2 }),
    });
    const body = await res.json();
    key ??= body.teacherKey;
    codes.push(body.code);
    // One after the other in time: the newest first on the page.
    server.clock.advance(1000);
  }
  const { page } = await newPage(browser, LAPTOP);
  await page.goto(`${server.url}/teacher#key=${key}`);
  const rooms = page.getByTestId('history').locator('[data-room]');
  await page.getByTestId('history-older').waitFor();
  expect(await rooms.evaluateAll((els) => els.map((e) => e.getAttribute('data-room')))).toEqual(
    [...codes].reverse().slice(0, 20),
  );
  await noViolations(page, 'history, first page');
  await screenshot(page, 'history-older');
  await page.getByTestId('history-older').click();
  await page.getByTestId('history-older').waitFor({ state: 'detached' });
  expect(await rooms.evaluateAll((els) => els.map((e) => e.getAttribute('data-room')))).toEqual([...codes].reverse());
  await noViolations(page, 'history, every page');
});
