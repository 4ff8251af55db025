// The projector in Debian's Chromium at 1920×1080 (issue 12, items 5 and 7): full screen without
// the site's header; in the lobby the code, the QR code and every name as it joins, by team, with a
// count; while ten teams play, all of them on one screen with the time to the next minute; at the
// end a podium and every team's verdict on every goal — never the last minute's "✓ normal" cards.
// Twenty students join as socket.io clients; the teacher drives the clock over socket.io too. Time
// is the server's manual clock.
import type { Browser } from 'playwright-core';
import { io, type Socket } from 'socket.io-client';
import { afterAll, describe, expect, test } from 'vitest';
import { eventually, newPage, useBrowserSuite, type WebServer } from './helpers.ts';

const WALL = { width: 1920, height: 1080 };
const TEMPO = 5;
const MINUTES = 6;

let server: WebServer;
let browser: Browser;
const sockets: Socket[] = [];

useBrowserSuite((s, b) => {
  server = s;
  browser = b;
});
afterAll(() => {
  for (const s of sockets) s.close();
});

async function connect(): Promise<Socket> {
  const s = io(server.url, { transports: ['websocket'], forceNew: true, reconnection: false });
  sockets.push(s);
  await new Promise<void>((resolve, reject) => {
    s.once('connect', () => resolve());
    s.once('connect_error', reject);
  });
  return s;
}

async function ask<T extends { ok: boolean }>(s: Socket, event: string, payload: object): Promise<T> {
  const res = await new Promise<T>((resolve) => s.emit(event, payload, resolve));
  expect(res.ok, `${event} ${JSON.stringify(res)}`).toBe(true);
  return res;
}

describe('the projector', () => {
  test('lobby names by team, ten teams on one screen with the next minute, a podium and every verdict', async () => {
    const res = await fetch(`${server.url}/api/rooms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        simulator: 'payment-switch',
        scenario: 'sale-surge',
        minutes: MINUTES,
        tempo: TEMPO,
        teamCount: 10,
        seed: 3,
      }),
    });
    const { code, teacherKey } = (await res.json()) as { code: string; teacherKey: string };
    const { page: wall } = await newPage(browser, WALL);
    await wall.goto(`${server.url}/projector/${code}`);
    await wall.getByTestId('proj-lobby').waitFor();

    // Full screen: no site header, no language switcher; the code and the QR code, nobody yet.
    expect(await wall.locator('header.top').count()).toBe(0);
    expect(await wall.getByLabel('Language').count()).toBe(0);
    expect(await wall.getByTestId('room-code').innerText()).toBe(code);
    await wall.getByRole('img', { name: /QR code of the join link/ }).waitFor();
    expect(await wall.getByTestId('proj-count').innerText()).toBe('Joined so far: 0');

    // Names appear as they join, under their team, with the count.
    const names = Array.from({ length: 20 }, (_, i) => `Student ${String.fromCharCode(65 + i)}`);
    const teamOf = new Map<string, number>();
    for (const [i, name] of names.entries()) {
      const s = await connect();
      const joined = await ask<{ ok: true; playerId: number; room: { players: { id: number; teamId: number }[] } }>(
        s,
        'student:join',
        { code, name },
      );
      teamOf.set(name, joined.room.players.find((p) => p.id === joined.playerId)!.teamId);
      if (i === 2) {
        await eventually(async () => expect(await wall.getByTestId('proj-count').innerText()).toBe('Joined so far: 3'));
        for (const n of names.slice(0, 3))
          expect(await wall.locator(`[data-team="${teamOf.get(n)}"]`).innerText()).toContain(n);
      }
    }
    await eventually(async () => expect(await wall.getByTestId('proj-count').innerText()).toBe('Joined so far: 20'));
    for (const n of names)
      expect(
        await wall
          .locator(`[data-team="${teamOf.get(n)}"]`)
          .getByTestId('proj-names')
          .innerText(),
      ).toContain(n);
    expect(new Set(teamOf.values()).size).toBe(10);
    expect(await wall.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(WALL.height);

    // The round: ten teams on one 1920×1080 screen, and the time to the next minute.
    const teacher = await connect();
    await ask(teacher, 'teacher:join', { code, key: teacherKey });
    await ask(teacher, 'teacher:clock', { action: 'start' });
    server.minutes(3, TEMPO);
    await eventually(async () => expect(await wall.getByTestId('proj-clock').innerText()).toContain('Minute 3 of 6'));
    const board = wall.getByTestId('proj-board');
    expect(await board.locator('tbody tr').count()).toBe(10);
    const next = await wall.getByTestId('proj-next').innerText();
    const seconds = Number(/Next minute in (\d+) s/.exec(next)?.[1]);
    expect(seconds).toBeGreaterThanOrEqual(0);
    expect(seconds).toBeLessThanOrEqual(TEMPO);
    expect(await wall.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(WALL.height);
    const lastRow = (await board.locator('tbody tr').last().boundingBox())!;
    expect(lastRow.y + lastRow.height).toBeLessThanOrEqual(WALL.height);

    // The end: a podium of three and every team's verdicts, with no status cards of the last minute.
    server.minutes(MINUTES - 3, TEMPO);
    const podium = wall.getByTestId('podium');
    await podium.waitFor();
    expect(await podium.locator('li').count()).toBe(3);
    expect(await wall.getByTestId('proj-next').count()).toBe(0);
    const verdicts = wall.getByTestId('verdicts');
    expect(await verdicts.locator('tbody tr').count()).toBe(10);
    for (const row of await verdicts.locator('tbody tr').all()) {
      const cells = row.locator('td[data-goal]');
      expect(await cells.count()).toBe(3);
      for (const cell of await cells.all()) {
        expect(['true', 'false']).toContain(await cell.getAttribute('data-met'));
        expect(await cell.innerText()).toMatch(/(met|missed)\s+\S/);
      }
    }
    expect(await wall.evaluate(() => document.documentElement.scrollHeight)).toBeLessThanOrEqual(WALL.height);
    expect(await wall.locator('[data-status]').count()).toBe(0);
    expect(await wall.locator('body').innerText()).not.toContain('normal');
  });
});
