// The classroom's people on screen, in Debian's Chromium (issue 12, items 1, 3 and 11; issue 13,
// item 4): roles stay where they are when someone joins late and move only when the teacher gives
// one or removes its owner — every desk of the team says so at once, in a banner and in the feed,
// and the roster keeps the log; a second "Ana" in a team is "Ana 2" and is told why; the teacher
// locks the room (nobody new, not even a removed student under a new name), sends a message that
// stays on the desks until read; the join code, link and QR use the address the server says phones
// can reach, with a warning when only this computer can; the server stopping is said in words.
// Time is the server's manual clock.
import type { Browser } from 'playwright-core';
import { io } from 'socket.io-client';
import { describe, expect, test } from 'vitest';
import {
  createRoom,
  eventually,
  joinAsStudent,
  LAPTOP,
  minuteShown,
  newPage,
  PHONE,
  screenshot,
  showTab,
  startWebServer,
  textOf,
  useBrowserSuite,
  type WebServer,
} from './helpers.ts';

let server: WebServer;
let browser: Browser;

useBrowserSuite((s, b) => {
  server = s;
  browser = b;
});

describe('people, roles and access on screen', () => {
  test('roles stay put; the teacher gives one and removes an owner, and the team hears it at once; names, lock, messages', async () => {
    const { code, teacherKey } = await createRoom(server.url, {
      simulator: 'payment-switch',
      scenario: 'sale-surge',
      minutes: 12,
      tempo: 1,
      teamCount: 1,
      seed: 7,
    });
    const { page: teacher } = await newPage(browser, LAPTOP);
    await teacher.goto(`${server.url}/teacher/${code}#key=${teacherKey}`);
    await teacher.getByRole('button', { name: 'Start' }).waitFor();
    const { page: ana } = await newPage(browser, LAPTOP);
    await joinAsStudent(ana, server.url, code, 'Ana');
    const { page: bo } = await newPage(browser, LAPTOP);
    await joinAsStudent(bo, server.url, code, 'Bo');
    await eventually(async () => expect(await textOf(ana, 'my-roles')).toBe('Your role: Scaling, Fraud'));
    expect(await textOf(bo, 'my-roles')).toBe('Your role: Shedding, Stand-in');
    await teacher.getByRole('button', { name: 'Start' }).click();
    await teacher.getByRole('button', { name: 'Pause' }).waitFor();
    server.minutes(2, 1);
    await minuteShown(ana, 2);

    // (11, 1) A late joiner also called Ana: "Ana 2", told why, and an analyst — nobody's roles move.
    const { page: cy } = await newPage(browser, PHONE);
    await joinAsStudent(cy, server.url, code, 'Ana');
    await eventually(async () =>
      expect(await textOf(cy, 'renamed')).toContain(
        'Someone in your team is already called “Ana”: here you are “Ana 2”.',
      ),
    );
    expect(await textOf(cy, 'my-name')).toBe('Ana 2 (you)');
    expect(await textOf(cy, 'my-roles')).toBe(
      'You are an analyst: you watch the desk while your teammates own the controls.',
    );
    await cy.getByTestId('renamed').getByRole('button', { name: 'Got it' }).click();
    await eventually(async () => expect(await cy.getByTestId('renamed').count()).toBe(0));
    await eventually(async () =>
      expect(
        await teacher
          .locator('[data-player]')
          .filter({ has: teacher.getByText('Ana 2', { exact: true }) })
          .count(),
      ).toBe(1),
    );
    server.minutes(1, 1);
    await minuteShown(ana, 3);
    expect(await textOf(ana, 'my-roles')).toBe('Your role: Scaling, Fraud');
    expect(await textOf(bo, 'my-roles')).toBe('Your role: Shedding, Stand-in');
    // Nothing handed over to the late joiner (the lobby's hand-overs to Bo are all that the feed has).
    await showTab(ana, 'feed');
    const handovers = await ana.getByTestId('feed').locator('[data-role-change]').allInnerTexts();
    expect(handovers.length).toBeGreaterThan(0);
    for (const line of handovers)
      expect(line).toMatch(/^⇄?Bo now owns (Shedding|Stand-in) \(from Ana, shared with a newcomer\)/);

    // (1) The teacher gives Stand-in to Ana 2 from the roster, during the round: her desk and Bo's say so at once.
    const give = teacher.getByLabel('Give Ana 2 a role');
    expect(await give.locator('option', { hasText: 'Stand-in' }).innerText()).toBe('Stand-in (now: Bo)');
    // It asks first, naming whose role it is; cancelled, nothing moves.
    const asked: string[] = [];
    teacher.once('dialog', (d) => {
      asked.push(d.message());
      void d.dismiss();
    });
    await give.selectOption('standin');
    await eventually(() => expect(asked).toHaveLength(1));
    expect(asked[0]).toBe('Give Stand-in to Ana 2? It is Bo’s now: Bo loses it, and the team is told at once.');
    expect(await textOf(bo, 'my-roles')).toBe('Your role: Shedding, Stand-in');
    expect(await give.inputValue()).toBe('');
    teacher.once('dialog', (d) => {
      asked.push(d.message());
      void d.accept();
    });
    await give.selectOption('standin');
    await eventually(async () => expect(await textOf(cy, 'my-roles')).toBe('Your role: Stand-in'));
    expect(asked).toHaveLength(2);
    await teacher.getByText('Ana 2 now owns Stand-in (it was Bo’s).').waitFor();
    await eventually(async () => expect(await textOf(bo, 'my-roles')).toBe('Your role: Shedding'));
    await eventually(async () =>
      expect(await textOf(bo, 'event-banner')).toContain('Ana 2 now owns Stand-in (from Bo, given by the teacher)'),
    );
    await eventually(async () =>
      expect(await textOf(cy, 'event-banner')).toContain(
        'Ana 2 (you) now owns Stand-in (from Bo, given by the teacher)',
      ),
    );
    await eventually(async () =>
      expect(await ana.getByTestId('feed').locator('[data-role-change="standin"]').first().innerText()).toContain(
        'Ana 2 now owns Stand-in (from Bo, given by the teacher)',
      ),
    );
    await screenshot(bo, 'desk-role-banner');

    // (1) Removing Ana, for good: the teacher is told what it means; her roles go to teammates, who hear it.
    let question = '';
    teacher.once('dialog', (d) => {
      question = d.message();
      void d.accept();
    });
    await teacher.getByRole('button', { name: 'Remove Ana from the room', exact: true }).click();
    await ana.getByText('The teacher removed you from the room.').waitFor();
    expect(question).toBe(
      'Remove Ana for good? Their link stops working and their roles go to a teammate. They can join again under another name unless you lock the room.',
    );
    await eventually(async () =>
      expect(await bo.getByTestId('event-banner').innerText()).toMatch(
        /now owns (Scaling|Fraud) \(from Ana, removed\)/,
      ),
    );
    await showTab(bo, 'feed');
    await eventually(async () =>
      expect((await bo.getByTestId('feed').locator('[data-reason="remove"]').allInnerTexts()).length).toBe(2),
    );
    const owners = [await textOf(bo, 'my-roles'), await textOf(cy, 'my-roles')].join(' | ');
    expect(owners).toContain('Scaling');
    expect(owners).toContain('Fraud');
    await eventually(async () => expect(await textOf(teacher, 'role-log')).toContain('(from Ana, removed)'));

    // (13.4) Locked: nobody new comes in, not Ana under a new name either; open again, a newcomer can.
    await teacher.getByRole('button', { name: 'Lock the room' }).click();
    await eventually(async () => expect(await textOf(teacher, 'lock-state')).toContain('Locked'));
    // The join page says so at once, before any name is typed.
    await ana.goto(`${server.url}/join/${code}`);
    await eventually(async () =>
      expect(await textOf(ana, 'join-locked')).toContain(
        'This room is locked: your teacher is not letting new students in.',
      ),
    );
    expect(await ana.getByLabel('Your name').count()).toBe(0);
    expect(new URL(ana.url()).pathname).toBe(`/join/${code}`);
    // A name sent anyway (a script, not the page) is refused the same.
    const refused = await new Promise<{ ok: boolean; error?: { code: string } }>((resolve) => {
      const s = io(server.url, { transports: ['websocket'], forceNew: true, reconnection: false });
      s.emit('student:join', { code, name: 'Anna' }, (r: { ok: boolean; error?: { code: string } }) => {
        s.disconnect();
        resolve(r);
      });
    });
    expect(refused.error?.code).toBe('ROOM_LOCKED');
    await teacher.getByRole('button', { name: 'Open the room again' }).click();
    await eventually(async () => expect(await textOf(teacher, 'lock-state')).toContain('Open to new students'));
    const { page: dee } = await newPage(browser, LAPTOP);
    await joinAsStudent(dee, server.url, code, 'Dee');

    // A message to the team: a banner on every desk until read, then in the team tab.
    await teacher.getByLabel('To', { exact: true }).selectOption({ label: 'Team 1' });
    await teacher.getByLabel('Message', { exact: true }).fill('Look at the queue before the sale.');
    await teacher.getByRole('button', { name: 'Send' }).click();
    for (const page of [bo, cy, dee]) {
      await eventually(async () =>
        expect(await textOf(page, 'message-banner')).toContain(
          'Teacher, to your team: Look at the queue before the sale.',
        ),
      );
    }
    await eventually(async () =>
      expect(await textOf(teacher, 'sent-messages')).toContain('Look at the queue before the sale.'),
    );
    await bo.getByTestId('message-banner').getByRole('button', { name: 'Got it' }).click();
    await eventually(async () => expect(await bo.getByTestId('message-banner').count()).toBe(0));
    await bo.reload();
    await minuteShown(bo, 3);
    expect(await bo.getByTestId('message-banner').count()).toBe(0);
    await showTab(bo, 'team');
    expect(await textOf(bo, 'team-messages')).toContain('Look at the queue before the sale.');
    // Unread elsewhere: Dee's banner is still there.
    expect(await textOf(dee, 'message-banner')).toContain('Look at the queue');
  });

  test('join address: the code, link and QR use PUBLIC_URL or a LAN address; a warning when only this computer can reach the server', async () => {
    // This suite's server listens on 127.0.0.1: no phone can open its link, and the teacher is told so.
    const local = await createRoom(server.url, {
      simulator: 'payment-switch',
      scenario: 'free',
      minutes: 5,
      tempo: 1,
      teamCount: 1,
    });
    const { page: teacher } = await newPage(browser, LAPTOP);
    await teacher.goto(`${server.url}/teacher/${local.code}#key=${local.teacherKey}`);
    await eventually(async () =>
      expect(await textOf(teacher, 'loopback-warning')).toContain('Only this computer can reach the server'),
    );
    const { page: wall } = await newPage(browser, { width: 1920, height: 1080 });
    await wall.goto(`${server.url}/projector/${local.code}`);
    await eventually(async () =>
      expect(await textOf(wall, 'loopback-warning')).toContain('Phones cannot reach this address'),
    );

    // With PUBLIC_URL set, the teacher's link and QR and the projector's address are the public ones, no warning.
    const publicServer = await startWebServer({ publicUrl: 'http://opsroom.school.test' });
    try {
      const room = await createRoom(publicServer.url, {
        simulator: 'payment-switch',
        scenario: 'free',
        minutes: 5,
        tempo: 1,
        teamCount: 1,
      });
      await teacher.goto(`${publicServer.url}/teacher/${room.code}#key=${room.teacherKey}`);
      const url = `http://opsroom.school.test/join/${room.code}`;
      await eventually(async () => expect(await textOf(teacher, 'join-link')).toBe(url));
      expect(await teacher.getByRole('img', { name: `QR code of the join link ${url}` }).count()).toBe(1);
      expect(await teacher.getByTestId('loopback-warning').count()).toBe(0);
      await wall.goto(`${publicServer.url}/projector/${room.code}`);
      await eventually(async () => expect(await textOf(wall, 'join-host')).toBe('Join at opsroom.school.test'));
      expect(await wall.getByTestId('loopback-warning').count()).toBe(0);
    } finally {
      await publicServer.close();
    }
  });

  test('the server stopping is said in words on the desk, the dashboard and the projector', async () => {
    const stopping = await startWebServer();
    const room = await createRoom(stopping.url, {
      simulator: 'web-service',
      scenario: 'bad-deploy',
      minutes: 10,
      tempo: 1,
      teamCount: 1,
      seed: 3,
    });
    const { page: teacher } = await newPage(browser, LAPTOP);
    await teacher.goto(`${stopping.url}/teacher/${room.code}#key=${room.teacherKey}`);
    await teacher.getByRole('button', { name: 'Start' }).click();
    await teacher.getByRole('button', { name: 'Pause' }).waitFor();
    const { page: student } = await newPage(browser, LAPTOP);
    await joinAsStudent(student, stopping.url, room.code, 'Eka');
    const { page: wall } = await newPage(browser, { width: 1920, height: 1080 });
    await wall.goto(`${stopping.url}/projector/${room.code}`);
    await wall.getByTestId('proj-clock').waitFor();
    const report = await stopping.stopGracefully();
    expect(report.roundsPaused).toBe(1);
    const words =
      'The server is stopping: the round is paused and saved. This page reconnects by itself when the server is back.';
    for (const page of [student, teacher, wall])
      await eventually(async () => expect(await textOf(page, 'notice')).toBe(words));
    // Not an "internal error" anywhere.
    for (const page of [student, teacher, wall])
      expect(await page.locator('body').innerText()).not.toContain('internal error');
  });
});
