// The team's ledger and split view on screen, in Debian's Chromium (issue 11, items 2 and 5; issue
// 12's one-screen desk): the desk's ledger — every line, the total, against doing nothing — is on the
// first screen at 1366×768 and one line on a phone; the dashboard, the projector and the end of the
// round show the same money; wherever a score is shown, its zero (doing nothing) is said. In split
// view a student's desk shows exactly what the server sent and names, for everything else, the role
// (and teammate) that sees it; the teacher, the projector and the replay see everything; the set-up
// offers split view and the full shift's own length. Time is the server's manual clock.
import type { Browser } from 'playwright-core';
import { io } from 'socket.io-client';
import { describe, expect, test } from 'vitest';
import { getMeta } from '../../shared/sim/meta.ts';
import type { StudentJoined } from '../../shared/protocol/types.ts';
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
  textOf,
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

/** "1,234 u" → 1234 */
const units = (s: string) => Number(s.replace(/[^\d.-]/g, ''));

describe('the ledger and split view', () => {
  test('the ledger on the desk (first screen; one line on a phone), the dashboard, the projector and the end; the score zero said', async () => {
    const minutes = 8;
    const { code, teacherKey } = await createRoom(server.url, {
      simulator: 'payment-switch',
      scenario: 'sale-surge',
      minutes,
      tempo: 1,
      teamCount: 2,
      seed: 7,
    });
    const { page: teacher } = await newPage(browser, LAPTOP);
    await teacher.goto(`${server.url}/teacher/${code}#key=${teacherKey}`);
    const { page: ana } = await newPage(browser, LAPTOP);
    await joinAsStudent(ana, server.url, code, 'Ana');
    const { page: bo } = await newPage(browser, HANDSET);
    await joinAsStudent(bo, server.url, code, 'Bo');
    // Cy joins Ana's team: Ana keeps scaling and fraud, the desk of a team of two.
    const { page: cy } = await newPage(browser, LAPTOP);
    await joinAsStudent(cy, server.url, code, 'Cy');
    await eventually(async () => expect(await textOf(ana, 'my-roles')).toBe('Your role: Scaling, Fraud'));
    const { page: wall } = await newPage(browser, WALL);
    await wall.goto(`${server.url}/projector/${code}`);
    await teacher.getByRole('button', { name: 'Start' }).click();
    await teacher.getByRole('button', { name: 'Pause' }).waitFor();
    // Team 1 (Ana) adds servers before the sale; Team 2 (Bo) does nothing.
    const servers = ana.getByRole('spinbutton', { name: 'Servers' });
    await servers.fill('12');
    await servers.press('Enter');
    await ana.locator('[data-control="servers"]').getByTestId('pending').waitFor();
    server.minutes(6, 1);
    await minuteShown(ana, 6);
    await minuteShown(bo, 6);

    // The desk: every line, the total (their sum) and the comparison, on the first screen.
    const ledger = ana.getByTestId('ledger');
    const model = getMeta('payment-switch');
    const lines = await Promise.all(model.ledger.items.map((k) => ledger.locator(`[data-key="${k}"] dd`).innerText()));
    const total = units(await textOf(ana, 'ledger-total'));
    expect(Math.abs(lines.map(units).reduce((a, b) => a + b, 0) - total)).toBeLessThanOrEqual(
      model.ledger.items.length,
    );
    expect(await ledger.innerText()).toContain('Server cost so far');
    const against = await textOf(ana, 'ledger-against');
    expect(against).toMatch(/^Doing nothing would have lost [\d,]+ u: you (saved [\d,]+ u|lost [\d,]+ u more)\.$/);
    await ana.evaluate(() => window.scrollTo(0, 0));
    await onFirstScreen(ana, ledger, 'ledger');
    // Bo's team did nothing: it saved nothing, and its phone shows one line, the rest one tap away.
    expect(await textOf(bo, 'ledger-compact')).toMatch(/^([\d,]+ u) lost · doing nothing \1$/);
    expect(await bo.getByTestId('ledger-against').isVisible()).toBe(false);
    await bo.getByTestId('ledger').locator('summary').click();
    expect(await textOf(bo, 'ledger-against')).toMatch(/you saved 0 u\.$/);
    // Where a score is shown, its zero is said.
    expect(await textOf(ana, 'score')).toMatch(/^Score -?[\d,.]+$/);
    expect(await textOf(ana, 'score-how-toggle')).toBe('(doing nothing = 0) ?');

    // The dashboard's card and the projector's row carry the same money as the desk.
    const card = teacher.locator('[data-testid="team-card"]').first();
    await eventually(async () =>
      expect(await card.getByTestId('card-ledger').innerText()).toContain(`Money lost ${total.toLocaleString('en')} u`),
    );
    expect(await textOf(teacher, 'leaderboard')).toContain('Doing nothing scores 0');
    await eventually(async () =>
      expect(await wall.getByTestId('proj-board').innerText()).toContain('Saved vs doing nothing'),
    );
    const saved = await wall.getByTestId('proj-saved').allInnerTexts();
    expect(saved).toHaveLength(2);
    expect(saved).toContain('saved 0 u');

    // The end: the money on the desk's verdict, the teacher's scores and the projector's podium.
    server.minutes(minutes - 6, 1);
    await ana.getByTestId('round-over').waitFor();
    await eventually(async () =>
      expect(await textOf(ana, 'over-ledger')).toMatch(
        /^Money lost [\d,]+ u · doing nothing [\d,]+ u · (saved [\d,]+ u|[\d,]+ u more lost)$/,
      ),
    );
    await eventually(async () => expect((await teacher.getByTestId('team-ledger').allInnerTexts()).length).toBe(2));
    await wall.getByTestId('podium').waitFor();
    await eventually(async () => expect(await textOf(wall, 'podium')).toMatch(/saved [\d,]+ u|more lost/));
  });

  test('split view: the desk shows what the server sent and who sees the rest; teacher, projector and replay see everything; the set-up offers it', async () => {
    const { code, teacherKey } = await createRoom(server.url, {
      simulator: 'payment-switch',
      scenario: 'free',
      minutes: 10,
      tempo: 1,
      teamCount: 1,
      seed: 11,
    });
    const { page: teacher } = await newPage(browser, LAPTOP);
    await teacher.goto(`${server.url}/teacher/${code}#key=${teacherKey}`);
    const setup = teacher.getByTestId('setup-form');
    await setup.waitFor();
    // A full shift brings its split view and its 60 minutes, with its brief; a classic level neither.
    await setup.getByLabel('Scenario').selectOption('black-friday');
    expect(await setup.getByLabel('Split view').isChecked()).toBe(true);
    expect(await setup.getByLabel('Round length (simulated minutes)').inputValue()).toBe('60');
    expect(await textOf(teacher, 'setup-brief')).toContain('card testers may strike');
    await setup.getByLabel('Scenario').selectOption('sale-surge');
    expect(await setup.getByLabel('Split view').isChecked()).toBe(false);
    await setup.getByLabel('Scenario').selectOption('black-friday');
    await setup.getByLabel('Round length (simulated minutes)').fill('10');
    await teacher.getByRole('button', { name: 'Save set-up' }).click();
    await eventually(async () => expect(await textOf(teacher, 'setup-brief')).toContain('card testers may strike'));

    const { page: ana } = await newPage(browser, LAPTOP);
    await joinAsStudent(ana, server.url, code, 'Ana');
    const { page: bo } = await newPage(browser, LAPTOP);
    await joinAsStudent(bo, server.url, code, 'Bo');
    await teacher.getByRole('button', { name: 'Start' }).click();
    await teacher.getByRole('button', { name: 'Pause' }).waitFor();
    server.minutes(3, 1);
    await minuteShown(ana, 3);
    expect(await textOf(ana, 'split-on')).toContain('Split view');

    // What the server sends Ana (scaling, fraud), read with her own token.
    const token = await ana.evaluate((c) => localStorage.getItem(`opsroom.student.${c}`), code);
    const socket = io(server.url, { transports: ['websocket'], forceNew: true, reconnection: false });
    const joined = await new Promise<StudentJoined & { ok: boolean }>((resolve) =>
      socket.emit('student:join', { code, token }, resolve),
    );
    socket.close();
    expect(joined.ok).toBe(true);
    const sent = new Set(Object.keys(joined.history!.snapshots.at(-1)!.indicators));
    const model = getMeta('payment-switch');
    const hiddenForAna = model.indicators.map((i) => i.key).filter((k) => !sent.has(k));
    expect(hiddenForAna).toContain('offeredTps');
    expect(sent.has('newTps')).toBe(true);

    // Her indicator table: a value for every key she received, "who sees it" for every other.
    await showTab(ana, 'indicators');
    const table = ana.getByTestId('indicators');
    for (const def of model.indicators.filter((i) => !i.headline)) {
      const cell = table.locator(`[data-key="${def.key}"] td`);
      if (sent.has(def.key)) expect(await cell.getByTestId('hidden-value').count(), def.key).toBe(0);
      else expect(await cell.innerText(), def.key).toMatch(/^⊘ Only .+ sees this: ask them$/);
    }
    expect(await table.locator('[data-key="offeredTps"] td').innerText()).toBe(
      '⊘ Only Shedding (Bo) sees this: ask them',
    );
    // The picture: Ana sees the rack, not the issuers; Bo the other way round.
    await showTab(ana, 'picture');
    expect(await ana.getByTestId('picture').locator('[data-hidden="groupBLatencyMs"]').innerText()).toContain(
      'Only Stand-in (Bo) sees this',
    );
    expect(await ana.getByRole('img', { name: /Server rack/ }).count()).toBe(1);
    expect(await bo.getByTestId('picture').locator('[data-hidden="serversInService"]').innerText()).toContain(
      'Only Scaling (Ana) sees this',
    );
    expect(await bo.locator('[data-issuer="b"]').count()).toBe(1);
    // The ledger is everyone's.
    expect(await ana.getByTestId('ledger').getByTestId('hidden-value').count()).toBe(0);

    // The teacher's view of the team's desk, and the projector: everything.
    await teacher
      .getByTestId('team-tile')
      .first()
      .getByRole('button', { name: /^Open desk/ })
      .click();
    const teamDesk = teacher.getByTestId('teacher-desk');
    await teamDesk.getByTestId('headline').waitFor();
    expect(await teamDesk.getByTestId('split-on').count()).toBe(0);
    expect(await teamDesk.getByTestId('hidden-value').count()).toBe(0);

    // The replay: everything too.
    server.minutes(7, 1);
    await eventually(async () => expect(await textOf(teacher, 'round-state')).toBe('Finished'));
    await teacher.getByTestId('open-replay').click();
    const replay = teacher.getByTestId('replay-desk');
    await replay.waitFor();
    await showTab(teacher, 'indicators');
    expect(await replay.getByTestId('hidden-value').count()).toBe(0);
    expect(await replay.locator('[data-key="offeredTps"] td').innerText()).toMatch(/tx\/s$/);
  });
});
