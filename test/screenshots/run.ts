// `npm run screenshots`: refreshes docs/screenshots/ from the built app — the desk as a student sees
// it at 1366×768 (lobby, mid-round with an event, the end) and on a 390×844 phone, a team of one, the
// web service in its incident, the web service's product launch (a control the story takes away, greyed
// with its reason) at 1366×768, 390×844 and 1920×1080, Black Friday's desk in split view with a sale
// announced, the teacher's first screen (a class of twelve) at 1366×768 and 1920×1080, the projector at
// 1920×1080 (lobby, ten teams running, the end), a replay and the teacher's history, the hindsight
// coach in the teacher's replay, a student's debrief, a desk in each language, and the seats that never freeze
// (a seat dropped, then on autopilot on a teammate's desk, the teacher's first screen and the projector; the student
// back with the summary; the teacher in a seat; the minutes others played each seat in the scores), the teacher's
// scenarios and the scenario editor at 1366×768, 1920×1080 and 390×844. Each picture is the
// first screen (no scrolling), as people see it. The server runs in-process on a manual clock with
// fixed seeds, so the figures are the same from run to run (only the dates shown are the day's).
// `npm test` never writes here.
//
//   npm run screenshots [-- --out DIR] [-- --only PART]
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { io, type Socket } from 'socket.io-client';
import {
  assertBuilt,
  atEveryScreen,
  createRoom,
  eventually,
  HANDSET,
  joinAsStudent,
  LAPTOP,
  launchBrowser,
  newPage,
  quietStudents,
  startWebServer,
  WALL,
  type WebServer,
} from '../browser/helpers.ts';

const args = process.argv.slice(2);
const out = args.includes('--out') ? args[args.indexOf('--out') + 1] : 'docs/screenshots';

type Room = Awaited<ReturnType<typeof createRoom>>;

async function teacher(browser: Browser, server: WebServer, room: Room, viewport = LAPTOP): Promise<Page> {
  const { page } = await newPage(browser, viewport);
  await page.goto(`${server.url}/teacher/${room.code}#key=${room.teacherKey}`);
  await page.getByTestId('clock-panel').waitFor();
  return page;
}

async function start(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Start' }).click();
  await page.getByRole('button', { name: 'Pause' }).waitFor();
}

async function control(s: Socket, key: string, value: number | boolean): Promise<void> {
  const res = await new Promise<{ ok: boolean }>((resolve) => s.emit('student:control', { key, value }, resolve));
  if (!res.ok) throw new Error(`${key}=${value}: ${JSON.stringify(res)}`);
}

async function minuteShown(page: Page, minute: number): Promise<void> {
  await eventually(async () => {
    const t = await page.getByTestId('clock-minute').first().innerText();
    if (!t.startsWith(`Minute ${minute} `)) throw new Error(`at ${t}`);
  });
}

async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  // Fonts and the last minute's charts settle.
  await page.waitForTimeout(250);
  await page.screenshot({ path: join(out, `${name}.png`) });
  console.log(`${out}/${name}.png`);
}

async function desks(browser: Browser, server: WebServer): Promise<void> {
  // Payment switch, sale surge: a team of two at 1366×768 and one student of another team on a phone.
  const room = await createRoom(server.url, {
    simulator: 'payment-switch',
    scenario: 'sale-surge',
    minutes: 30,
    tempo: 1,
    teamCount: 2,
    seed: 7,
  });
  const dash = await teacher(browser, server, room);
  const { page: ana } = await newPage(browser, LAPTOP);
  await joinAsStudent(ana, server.url, room.code, 'Ana');
  const { page: budi } = await newPage(browser, HANDSET);
  await joinAsStudent(budi, server.url, room.code, 'Budi');
  await quietStudents(server.url, room.code, ['Csilla', 'Dario']);
  await shot(ana, 'desk-lobby');
  await start(dash);
  await minuteShown(ana, 0);
  server.minutes(3, 1);
  await minuteShown(ana, 3);
  const servers = ana.getByRole('spinbutton', { name: 'Servers' });
  await servers.fill('10');
  await servers.press('Enter');
  await ana.getByTestId('pending').first().waitFor();
  server.minutes(4, 1);
  await minuteShown(ana, 7);
  await minuteShown(budi, 7);
  await shot(ana, 'desk-payment-switch');
  await shot(budi, 'desk-phone');
  await ana.getByRole('tab', { name: 'Trend' }).click();
  await ana.getByTestId('trend').first().waitFor();
  await shot(ana, 'desk-trends');
  server.minutes(23, 1);
  await minuteShown(ana, 30);
  await ana.getByTestId('round-over').waitFor();
  await shot(ana, 'desk-finished');

  // Web service, the product launch, a team of three: at minute 6 a surge is announced and a build goes
  // out. Eka owns the fleet — the autoscaler is away this hour, so its switch is greyed with the reason; on
  // the phone, Fitri owns the cache and the release; on a wide screen, Gita the traffic.
  const ws = await createRoom(server.url, {
    simulator: 'web-service',
    scenario: 'product-launch',
    minutes: 30,
    tempo: 1,
    teamCount: 1,
    seed: 7,
  });
  const wsDash = await teacher(browser, server, ws);
  const { page: eka } = await newPage(browser, LAPTOP);
  await joinAsStudent(eka, server.url, ws.code, 'Eka');
  const { page: ekaPhone } = await newPage(browser, HANDSET);
  await joinAsStudent(ekaPhone, server.url, ws.code, 'Fitri');
  const { page: gita } = await newPage(browser, WALL);
  await joinAsStudent(gita, server.url, ws.code, 'Gita');
  await start(wsDash);
  server.minutes(6, 1);
  for (const p of [eka, ekaPhone, gita]) await minuteShown(p, 6);
  await shot(eka, 'desk-web-service');
  await shot(ekaPhone, 'desk-web-service-phone');
  await shot(gita, 'desk-web-service-wide');
}

/** The teacher's first screen: a class of twelve in four teams, two of whose pages dropped, at 1366×768 and 1920×1080. */
async function dashboard(browser: Browser, server: WebServer): Promise<void> {
  const room = await createRoom(server.url, {
    simulator: 'payment-switch',
    scenario: 'black-friday',
    minutes: 60,
    tempo: 1,
    teamCount: 4,
    seed: 5,
  });
  const names = ['Ana', 'Budi', 'Csilla', 'Dario', 'Eka', 'Fitri', 'Gábor', 'Hanna', 'Ilaria', 'Joost', 'Kiran', 'Lea'];
  const sockets = await quietStudents(server.url, room.code, names);
  const dash = await teacher(browser, server, room);
  await start(dash);
  // Each team's scaler decides differently; two students' pages drop.
  for (const [i, s] of sockets.slice(0, 4).entries()) await control(s, 'servers', 6 + 2 * i);
  sockets[5].disconnect();
  sockets[6].disconnect();
  server.minutes(9, 1);
  await eventually(async () => {
    if (!(await dash.getByTestId('teacher-minute').innerText()).startsWith('Minute 9 ')) throw new Error('not at 9');
    if ((await dash.locator('[data-seat-state="dropped"]').count()) !== 2) throw new Error('seats not dropped yet');
  });
  await shot(dash, 'teacher-dashboard');
  await dash.setViewportSize(WALL);
  await shot(dash, 'teacher-dashboard-wall');
}

/** A team of one (every role) at 1366×768: every control on the first screen. */
async function teamOfOne(browser: Browser, server: WebServer): Promise<void> {
  const { ana } = await classWithAna(
    browser,
    server,
    { simulator: 'payment-switch', scenario: 'sale-day', minutes: 60, tempo: 1, teamCount: 2, seed: 7 },
    [],
  );
  server.minutes(12, 1);
  await minuteShown(ana, 12);
  await shot(ana, 'desk-team-of-one');
}

async function projector(browser: Browser, server: WebServer): Promise<void> {
  const room = await createRoom(server.url, {
    simulator: 'payment-switch',
    scenario: 'sale-surge',
    minutes: 20,
    tempo: 5,
    teamCount: 10,
    seed: 11,
  });
  const { page: wall } = await newPage(browser, WALL);
  await wall.goto(`${server.url}/projector/${room.code}`);
  await wall.getByTestId('proj-lobby').waitFor();
  const names = [
    'Ana',
    'Budi',
    'Csilla',
    'Dario',
    'Eka',
    'Fitri',
    'Gábor',
    'Hanna',
    'Ilaria',
    'Joost',
    'Kiran',
    'Lea',
    'Marco',
    'Nisha',
    'Ona',
    'Priya',
    'Rudi',
    'Sita',
    'Tamás',
    'Uma',
  ];
  const sockets = await quietStudents(server.url, room.code, names);
  await eventually(async () => {
    if (!(await wall.getByTestId('proj-count').innerText()).includes(String(names.length)))
      throw new Error('not all joined yet');
  });
  await shot(wall, 'projector-lobby');
  const dash = await teacher(browser, server, room);
  await start(dash);
  // The teams decide differently: each team's scaler (its first member) sets its own server count
  // at minute 2, and every other team sheds load.
  server.minutes(2, 5);
  for (const [i, s] of sockets.slice(0, 10).entries()) await control(s, 'servers', 4 + 2 * i);
  for (const s of sockets.slice(10).filter((_, i) => i % 2 === 0)) await control(s, 'shedding', true);
  server.minutes(6, 5);
  await eventually(async () => {
    if (!(await wall.getByTestId('proj-clock').innerText()).includes('Minute 8 ')) throw new Error('not at minute 8');
  });
  await shot(wall, 'projector');
  server.minutes(12, 5);
  await wall.getByTestId('podium').waitFor();
  await shot(wall, 'projector-end');
}

/** A started round: the teacher's dashboard, Ana's desk at 1366×768 and Budi (or `more`) as quiet sockets in her team or the next. */
async function classWithAna(browser: Browser, server: WebServer, config: object, more = ['Budi']) {
  const room = await createRoom(server.url, config);
  const dash = await teacher(browser, server, room);
  const { page: ana } = await newPage(browser, LAPTOP);
  await joinAsStudent(ana, server.url, room.code, 'Ana');
  const others = await quietStudents(server.url, room.code, more);
  await start(dash);
  return { room, dash, ana, others };
}

async function replay(browser: Browser, server: WebServer): Promise<void> {
  const { dash, ana } = await classWithAna(browser, server, {
    simulator: 'payment-switch',
    scenario: 'sale-surge',
    minutes: 12,
    tempo: 1,
    teamCount: 2,
    seed: 7,
  });
  server.minutes(3, 1);
  await minuteShown(ana, 3);
  const servers = ana.getByRole('spinbutton', { name: 'Servers' });
  await servers.fill('10');
  await servers.press('Enter');
  await ana.getByTestId('pending').first().waitFor();
  server.minutes(9, 1);
  await dash.getByTestId('open-replay').click();
  await dash.getByTestId('replay-desk').waitFor();
  await dash.getByLabel('Minute of the replay').fill('9');
  await minuteShown(dash, 9);
  await dash.getByRole('tab', { name: 'Trend' }).click();
  await dash.getByTestId('change-marker').first().waitFor();
  await shot(dash, 'replay');
  await dash.goto(`${server.url}/teacher`);
  await dash.getByTestId('history').waitFor();
  await shot(dash, 'teacher-history');
}

/** A part of a page, wherever it is on it (the coach sits below the replay's first screen). */
async function shotOf(page: Page, testId: string, name: string): Promise<void> {
  const part = page.getByTestId(testId);
  await part.scrollIntoViewIfNeeded();
  await page.waitForTimeout(250);
  await part.screenshot({ path: join(out, `${name}.png`) });
  console.log(`${out}/${name}.png`);
}

async function splitView(browser: Browser, server: WebServer): Promise<void> {
  // Black Friday (split view on by default), a team of two: Ana (scaling, fraud) does not see the issuers;
  // at minute 18 a sale is announced, with its size and the minutes to its start.
  const { ana } = await classWithAna(browser, server, {
    simulator: 'payment-switch',
    scenario: 'black-friday',
    minutes: 60,
    tempo: 1,
    teamCount: 1,
    seed: 7,
  });
  server.minutes(18, 1);
  await minuteShown(ana, 18);
  await shot(ana, 'desk-split-view');
}

async function debrief(browser: Browser, server: WebServer): Promise<void> {
  // Two teams add servers for the sale, Team 1 late: the coach's suggestions, and Ana's debrief.
  const {
    room,
    dash,
    ana,
    others: [budi],
  } = await classWithAna(browser, server, {
    simulator: 'payment-switch',
    scenario: 'sale-surge',
    minutes: 12,
    tempo: 1,
    teamCount: 2,
    seed: 7,
  });
  server.minutes(2, 1);
  await control(budi, 'servers', 12);
  server.minutes(5, 1);
  await minuteShown(ana, 7);
  await control(await studentSocket(server, ana, room.code), 'servers', 12);
  server.minutes(5, 1);
  await ana.getByTestId('round-over').waitFor();
  await ana.getByTestId('debrief-link').click();
  await ana.getByTestId('coach').waitFor({ timeout: 20_000 });
  await shot(ana, 'student-debrief');
  await dash.getByTestId('open-replay').click();
  await dash.getByTestId('coach').waitFor({ timeout: 20_000 });
  await shotOf(dash, 'coach-panel', 'replay-coach');
}

/** A socket.io client joined with a browser student's own token (their changes, without the mouse). */
async function studentSocket(server: WebServer, page: Page, code: string): Promise<Socket> {
  const token = await page.evaluate((c) => localStorage.getItem(`opsroom.student.${c}`), code);
  const s = io(server.url, { transports: ['websocket'], forceNew: true, reconnection: false });
  await new Promise<void>((resolve) => s.once('connect', () => resolve()));
  const res = await new Promise<{ ok: boolean }>((resolve) => s.emit('student:join', { code, token }, resolve));
  if (!res.ok) throw new Error(`rejoin: ${JSON.stringify(res)}`);
  return s;
}

async function languages(browser: Browser, server: WebServer): Promise<void> {
  const room = await createRoom(server.url, {
    simulator: 'payment-switch',
    scenario: 'sale-surge',
    minutes: 30,
    tempo: 1,
    teamCount: 6,
    seed: 7,
  });
  const dash = await teacher(browser, server, room);
  const pages: [string, Page][] = [];
  for (const [locale, name] of [
    ['en', 'Emma'],
    ['id', 'Budi'],
    ['hu', 'Csilla'],
    ['it', 'Ilaria'],
    ['nl', 'Daan'],
    ['ne', 'Nisha'],
  ] as const) {
    const { context, page } = await newPage(browser, LAPTOP);
    await context.addInitScript((l) => localStorage.setItem('PARAGLIDE_LOCALE', l), locale);
    await page.goto(`${server.url}/join/${room.code}`);
    await page.locator('#join-name').fill(name);
    await page.locator('form button[type=submit]').click();
    await page.waitForURL(`**/play/${room.code}`);
    await page.getByTestId('my-roles').waitFor();
    pages.push([locale, page]);
  }
  await start(dash);
  server.minutes(7, 1);
  for (const [locale, page] of pages) {
    await page.getByTestId('headline').waitFor();
    await eventually(async () => {
      if (!(await page.getByTestId('clock-minute').innerText()).includes('7')) throw new Error('not at minute 7');
    });
    await shot(page, `desk-${locale}`);
  }
}

/**
 * Seats that never freeze: a team of three (Ana, Ben, Chitra) in the sale surge. Ana closes her tab: the teacher's
 * first screen lists her seat dropped; past the grace the autopilot plays it — AUTO on Ben's desk (1366×768,
 * 1920×1080, 390×844), on the teacher's team card and on the projector. Ana comes back and reads the summary; the
 * teacher plays Chitra's seat from the dashboard; at the end, the scores name the minutes others played each seat.
 */
async function seats(browser: Browser, server: WebServer): Promise<void> {
  const room = await createRoom(server.url, {
    simulator: 'payment-switch',
    scenario: 'sale-surge',
    minutes: 20,
    tempo: 5,
    teamCount: 1,
    seed: 7,
    graceSeconds: 10,
  });
  const dash = await teacher(browser, server, room);
  const ana = await newPage(browser, LAPTOP);
  await joinAsStudent(ana.page, server.url, room.code, 'Ana');
  const { page: ben } = await newPage(browser, LAPTOP);
  await joinAsStudent(ben, server.url, room.code, 'Ben');
  const { page: chitra } = await newPage(browser, LAPTOP);
  await joinAsStudent(chitra, server.url, room.code, 'Chitra');
  await start(dash);
  server.minutes(2, 5);
  await minuteShown(ben, 2);
  await ana.page.close();
  const watch = dash.getByTestId('seats-to-watch');
  await watch.locator('[data-watch-state="dropped"]').waitFor();
  await shot(dash, 'seats-teacher-dropped');
  // The grace (two minutes at this tempo) runs out; the surge comes and the autopilot answers it.
  for (let i = 0; i < 6; i++) server.minutes(1, 5);
  await minuteShown(ben, 8);
  await watch.locator('[data-watch-state="auto"]').waitFor();
  await ben.getByRole('tab', { name: 'Your team' }).click();
  await ben.getByTestId('team').getByTestId('seat-badge').first().waitFor();
  await shot(ben, 'seats-desk-auto');
  await ben.setViewportSize(WALL);
  await shot(ben, 'seats-desk-auto-wide');
  await ben.setViewportSize(HANDSET);
  await shot(ben, 'seats-desk-auto-phone');
  await shot(dash, 'seats-teacher-auto');
  await dash.setViewportSize(WALL);
  await shot(dash, 'seats-teacher-auto-wall');
  await dash.setViewportSize(LAPTOP);
  const { page: wall } = await newPage(browser, WALL);
  await wall.goto(`${server.url}/projector/${room.code}`);
  await wall.getByTestId('proj-pilot').waitFor();
  await shot(wall, 'seats-projector');

  // Ana opens the page again: her seat at once, and what the autopilot did meanwhile.
  const back = await ana.context.newPage();
  await back.goto(`${server.url}/play/${room.code}`);
  await back.getByTestId('seat-summary').waitFor();
  await shot(back, 'seats-desk-back');
  await back.setViewportSize(HANDSET);
  await shot(back, 'seats-desk-back-phone');

  // The teacher plays Chitra's seat from the class board.
  await dash.getByRole('button', { name: 'Seat of Chitra' }).click();
  await dash.getByTestId('team-tile').getByRole('button', { name: 'Play it myself' }).click();
  await dash.getByTestId('teacher-playing').waitFor();
  await dash.getByTestId('teacher-desk').getByTestId('controls').waitFor();
  await shot(dash, 'seats-teacher-playing');
  await dash.getByTestId('teacher-playing').getByRole('button', { name: 'Hand back to Chitra' }).click();
  server.minutes(12, 5);
  await dash.getByTestId('team-seat-minutes').waitFor();
  await shotOf(dash, 'scores', 'seats-scores');
}

/** The teacher's scenarios and the editor (a copy of Black Friday, its dry run done) on a laptop, a wall and a phone. */
async function scenarios(browser: Browser, server: WebServer): Promise<void> {
  const room = await createRoom(server.url, { simulator: 'payment-switch', scenario: 'sale-surge', tempo: 5 });
  const { page } = await newPage(browser, LAPTOP);
  await page.goto(`${server.url}/teacher/scenarios#key=${room.teacherKey}`);
  await page.getByTestId('scenarios-builtin').waitFor();
  await atEveryScreen(page, (screen) => shot(page, screen === 'laptop' ? 'scenarios' : `scenarios-${screen}`));
  await page.goto(`${server.url}/teacher/scenarios?from=black-friday&simulator=payment-switch`);
  await eventually(async () => {
    if ((await page.getByTestId('dry-run-status').getAttribute('data-status')) !== 'done') throw new Error('running');
  }, 120_000);
  await atEveryScreen(page, (screen) =>
    shot(page, screen === 'laptop' ? 'scenario-editor' : `scenario-editor-${screen}`),
  );
}

async function main(): Promise<void> {
  assertBuilt();
  mkdirSync(out, { recursive: true });
  // Join links at a classroom's LAN address, as `npm start` prints it (the README's example).
  const server = await startWebServer({ publicUrl: 'http://192.168.1.20:3000' });
  const browser = await launchBrowser();
  const parts = { desks, dashboard, teamOfOne, splitView, projector, replay, debrief, languages, seats, scenarios };
  // `-- --only seats` (or any part's name) refreshes one part.
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
  if (only !== null && !Object.hasOwn(parts, only))
    throw new Error(`--only is one of ${Object.keys(parts).join(', ')}`);
  try {
    for (const [name, part] of Object.entries(parts)) if (only === null || only === name) await part(browser, server);
  } finally {
    await browser.close();
    await server.close();
  }
}

await main();
process.exit(0);
