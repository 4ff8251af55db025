// The classroom end to end in Debian's Chromium: a teacher opens a room, four students join by
// code in their own browser contexts, play a fast round of the payment switch to its end, and a
// reload brings a student back to the same role. A second test plays the web-service desk.
// Time is the server's manual clock: a minute passes only when the test advances it.
import type { Browser, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { getModel } from '../../shared/sim/registry.ts';
import {
  DESKTOP,
  eventually,
  joinAsStudent,
  minuteShown,
  newPage,
  PHONE,
  screenshot,
  showTab,
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

/** The inputs of one control on a desk (number inputs, switches, selects, buttons). */
const controlInputs = (page: Page, key: string) =>
  page.locator(`[data-control="${key}"]`).locator('input:not([type=range]), select, button:not(.help-toggle)');

describe('classroom in the browser', () => {
  test('payment switch: a teacher and four students play a round to its scores', async () => {
    const tempo = 1;
    const minutes = 10;
    const { page: teacher } = await newPage(browser, DESKTOP);

    // The teacher opens a room from the start page.
    await teacher.goto(`${server.url}/`);
    await teacher.getByLabel('Simulator').selectOption('payment-switch');
    await teacher.getByLabel('Scenario').selectOption('sale-surge');
    await teacher.getByLabel('Round length (simulated minutes)').fill(String(minutes));
    await teacher.getByLabel('Tempo').selectOption(String(tempo));
    await teacher.getByLabel('Number of teams').fill('1');
    await teacher.getByRole('button', { name: 'Create room' }).click();
    await teacher.waitForURL(/\/teacher\/[2-9A-HJKMNP-Z]{6}$/);
    const code = (await textOf(teacher, 'room-code')).trim();
    expect(code).toMatch(/^[2-9A-HJKMNP-Z]{6}$/);
    // The join link is where the server says students reach it (GET /api/info): this test's server
    // listens on loopback only, so it is this computer's own address, with a warning.
    const info = (await (await fetch(`${server.url}/api/info`)).json()) as { baseUrl: string; loopbackOnly: boolean };
    expect(info.loopbackOnly).toBe(true);
    await eventually(async () =>
      expect(await teacher.getByTestId('join-link').innerText()).toBe(`${info.baseUrl}/join/${code}`),
    );

    // The projector shows the code and the QR in the lobby.
    const { page: projector } = await newPage(browser, { width: 1600, height: 900 });
    await projector.goto(`${server.url}/projector/${code}`);
    await eventually(async () => expect(await textOf(projector, 'room-code')).toBe(code));
    await projector.getByRole('img', { name: /QR code of the join link/ }).waitFor();

    // Four students join by code, each in their own browser context; the first on a phone.
    const names = ['Ana', 'Budi', 'Csilla', 'Dario'];
    const students: Page[] = [];
    for (const [i, name] of names.entries()) {
      const { page } = await newPage(browser, i === 0 ? PHONE : DESKTOP);
      await joinAsStudent(page, server.url, code, name);
      students.push(page);
    }
    // The roster shows everybody connected, with their roles dealt in join order.
    const model = getModel('payment-switch');
    const roleLabel: Record<string, string> = {
      scaling: 'Scaling',
      shedding: 'Shedding',
      fraud: 'Fraud',
      standin: 'Stand-in',
    };
    for (const [i, name] of names.entries()) {
      // The row named so (other rows name them too, as the owner of a role they could be given).
      const row = teacher.locator('[data-player]').filter({ has: teacher.getByText(name, { exact: true }) });
      await eventually(async () => {
        const t = await row.innerText();
        expect(t).toContain('connected');
        expect(t).not.toContain('not connected');
        expect(t).toContain(roleLabel[model.roles[i].id]);
      });
    }

    await teacher.getByRole('button', { name: 'Start' }).click();
    // The lobby also reads "Minute 0": wait until the server has really started the round.
    await teacher.getByRole('button', { name: 'Pause' }).waitFor();
    for (const page of students) await minuteShown(page, 0, minutes);

    // Each student sees exactly their own role's controls enabled; the others (one tap away) disabled,
    // with the owner's name.
    for (const page of students) await page.getByText("Your teammates' controls (read-only)").click();
    for (const [i, page] of students.entries()) {
      const mine = model.roles[i];
      expect(await textOf(page, 'my-roles')).toBe(`Your role: ${roleLabel[mine.id]}`);
      for (const [j, role] of model.roles.entries()) {
        const fieldset = page.locator(`fieldset[data-role="${role.id}"]`);
        expect(await fieldset.getByTestId('owner').innerText()).toBe(i === j ? 'Yours' : `Owner: ${names[j]}`);
        for (const key of role.controls) {
          const inputs = controlInputs(page, key);
          expect(await inputs.count()).toBeGreaterThan(0);
          for (const input of await inputs.all()) expect(await input.isEnabled(), `${names[i]} · ${key}`).toBe(i === j);
        }
      }
    }

    // Ana (scaling) adds servers during minute 0: the other three see it pending, with her name…
    const servers = students[0].getByRole('spinbutton', { name: 'Servers' });
    await servers.fill('10');
    await servers.press('Enter');
    for (const page of students) await showTab(page, 'feed');
    for (const page of students.slice(1)) {
      await eventually(async () => {
        const line = page.getByTestId('feed').locator('[data-change="servers"]').first();
        expect(await line.innerText()).toContain('Ana set Servers to 10');
        expect(await line.getAttribute('data-pending')).toBe('true');
      });
      await eventually(async () =>
        expect(await page.locator('[data-control="servers"]').getByTestId('pending').innerText()).toContain('by Ana'),
      );
    }
    // …and by the next minute it is applied: in force, and four servers booting in the rack.
    server.minutes(1, tempo);
    for (const page of students) {
      await minuteShown(page, 1, minutes);
      await eventually(async () => {
        const line = page.getByTestId('feed').locator('[data-change="servers"]').first();
        expect(await line.getAttribute('data-pending')).toBe('false');
        expect(await line.innerText()).toContain('Ana set Servers to 10');
        expect(await page.locator('[data-control="servers"]').innerText()).toContain('In force: 10');
      });
    }
    await showTab(students[1], 'picture');
    await eventually(async () =>
      expect(await students[1].getByRole('img', { name: /Server rack/ }).getAttribute('aria-label')).toContain(
        '6 in service, 4 booting, 14 free',
      ),
    );

    // The connection drops and a minute passes meanwhile: every page says it is reconnecting, comes
    // back by itself and rebuilds the desk from the join's history (the missed minute included).
    server.disconnectAll();
    server.minutes(1, tempo);
    for (const page of [...students, teacher]) {
      await eventually(
        async () =>
          expect(await page.getByTestId('connection').first().getAttribute('data-state')).not.toBe('connected'),
        2000,
      );
    }
    for (const page of students) {
      await eventually(async () =>
        expect(await page.getByTestId('connection').getAttribute('data-state')).toBe('connected'),
      );
      await minuteShown(page, 2, minutes);
    }
    await showTab(students[2], 'feed');
    expect(await textOf(students[2], 'feed')).toContain('Ana set Servers to 10');

    // Into the sale: the desks and the projector mid-round.
    server.minutes(4, tempo);
    for (const page of students) await minuteShown(page, 6, minutes);
    await eventually(async () => expect(await textOf(teacher, 'teacher-minute')).toBe(`Minute 6 of ${minutes}`));
    await students[3].getByTestId('headline').waitFor();
    await screenshot(students[3], 'desk-payment-switch');
    await screenshot(students[0], 'desk-payment-switch-phone');
    await eventually(async () => expect(await projector.getByTestId('proj-board').innerText()).toContain('Team 1'));
    await screenshot(projector, 'projector');

    // The round runs to its end; the teacher's dashboard shows the recorded scores.
    server.minutes(minutes - 6, tempo);
    await eventually(async () => expect(await textOf(teacher, 'round-state')).toBe('Finished'));
    const scores = teacher.getByTestId('team-scores');
    await scores.waitFor();
    const scoresText = await scores.innerText();
    expect(scoresText).toMatch(/Team 1 — Score -?\d/);
    expect(scoresText).toContain('Average authorization time');
    expect(scoresText).toMatch(/met|missed/);
    for (const page of students)
      await eventually(async () => expect(await textOf(page, 'round-over')).toContain('Team 1'));
    await eventually(async () => expect(await textOf(projector, 'verdicts')).toContain('Team 1'));
    await teacher
      .getByTestId('team-tile')
      .first()
      .getByRole('button', { name: /^Open desk/ })
      .click();
    await teacher.getByTestId('teacher-desk').getByTestId('headline').waitFor();
    await screenshot(teacher, 'teacher-dashboard');

    // Budi reloads: the same seat, role and history come back (rebuilt from the join's history).
    const budi = students[1];
    await budi.reload();
    await eventually(async () => expect(await textOf(budi, 'my-roles')).toBe('Your role: Shedding'));
    await minuteShown(budi, minutes, minutes);
    await showTab(budi, 'feed');
    expect(await budi.getByTestId('feed').locator('[data-change="servers"]').first().innerText()).toContain(
      'Ana set Servers to 10',
    );
    expect(await budi.locator('fieldset[data-role="shedding"]').getByTestId('owner').innerText()).toBe('Yours');
    await eventually(async () =>
      expect(
        await teacher
          .locator('[data-player]')
          .filter({ has: teacher.getByText('Budi', { exact: true }) })
          .innerText(),
      ).not.toContain('not connected'),
    );
  });

  test('web service: one student plays every role, rolls back a bad deploy', async () => {
    const tempo = 2;
    const minutes = 20;
    // The room is made over HTTP; the teacher opens the dashboard through a copied teacher link.
    const res = await fetch(`${server.url}/api/rooms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ simulator: 'web-service', scenario: 'bad-deploy', minutes, tempo, teamCount: 1, seed: 7 }),
    });
    const { code, teacherKey } = (await res.json()) as { code: string; teacherKey: string };
    const { page: teacher } = await newPage(browser, DESKTOP);
    await teacher.goto(`${server.url}/teacher/${code}#key=${teacherKey}`);
    await teacher.getByRole('button', { name: 'Start' }).waitFor();
    expect(new URL(teacher.url()).hash).toBe('');

    const { page: student } = await newPage(browser, DESKTOP);
    await joinAsStudent(student, server.url, code, 'Eka');
    expect(await textOf(student, 'my-roles')).toBe('Your role: Fleet, Cache, Traffic, Release');
    await teacher.getByRole('button', { name: 'Start' }).click();
    // The lobby also reads "Minute 0": wait until the server has really started the round.
    await teacher.getByRole('button', { name: 'Pause' }).waitFor();
    await minuteShown(student, 0, minutes);
    // Every control acts, but Roll back: no bad build is in service yet, and it says so.
    for (const c of getModel('web-service').controls) {
      for (const input of await controlInputs(student, c.key).all())
        expect(await input.isEnabled(), c.key).toBe(c.key !== 'rollback');
    }
    expect(await student.locator('[data-control="rollback"]').getByTestId('idle').innerText()).toBe(
      'Only the last good build is in service: there is nothing to roll back.',
    );

    // The bad build goes live at 09:10 (minute 10); a little later the student rolls back.
    server.minutes(12, tempo);
    await minuteShown(student, 12, minutes);
    await eventually(async () =>
      expect(await student.getByTestId('picture').innerText()).toMatch(/Bad build on \d+ % of traffic/),
    );
    await student.getByRole('button', { name: 'Roll back', exact: true }).click();
    await eventually(async () =>
      expect(await student.locator('[data-control="rollback"]').getByTestId('pending').innerText()).toContain(
        'Pressed by Eka',
      ),
    );
    server.minutes(2, tempo);
    await minuteShown(student, 14, minutes);
    await eventually(async () =>
      expect(await student.getByTestId('picture').innerText()).toContain('Rollback being prepared'),
    );
    await screenshot(student, 'desk-web-service');

    server.minutes(minutes - 14, tempo);
    await minuteShown(student, minutes, minutes);
    await eventually(async () =>
      expect(await student.getByTestId('picture').innerText()).toContain('Last good build on all traffic'),
    );
    await eventually(async () =>
      expect(await textOf(teacher, 'team-scores')).toMatch(/Error budget remaining at the end/),
    );

    // The language switcher: Italian numbers (99,9 %) after the page reloads and joins again.
    await student.getByLabel('Language').selectOption('it');
    await eventually(async () => expect(await student.evaluate(() => document.documentElement.lang)).toBe('it'));
    await student.getByTestId('headline').waitFor();
    await showTab(student, 'indicators');
    await eventually(async () =>
      expect(await student.locator('[data-key="errorBudgetRemaining"] td').innerText()).toMatch(/^\d+,\d %$/),
    );
    await eventually(async () => expect(await textOf(student, 'clock-minute')).toBe(`Minuto ${minutes} di ${minutes}`));
  });

  test('teacher: set-up, rename, move, next round, remove', async () => {
    const res = await fetch(`${server.url}/api/rooms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ simulator: 'payment-switch', scenario: 'free', minutes: 5, tempo: 1, teamCount: 2 }),
    });
    const { code, teacherKey } = (await res.json()) as { code: string; teacherKey: string };
    const { page: teacher } = await newPage(browser, DESKTOP);
    await teacher.goto(`${server.url}/teacher/${code}#key=${teacherKey}`);
    await teacher.getByTestId('setup-form').waitFor();
    const { page: ana } = await newPage(browser, PHONE);
    await joinAsStudent(ana, server.url, code, 'Ana');
    const { page: budi } = await newPage(browser, DESKTOP);
    await joinAsStudent(budi, server.url, code, 'Budi');
    // Dealt into the two teams: each alone owns every role.
    expect(await textOf(ana, 'team-name')).toBe('Team 1');
    expect(await textOf(budi, 'team-name')).toBe('Team 2');

    // The set-up in the lobby: another scenario reaches the desks (it brings its own length, 60
    // minutes: the teacher keeps 5).
    await teacher.getByTestId('setup-form').getByLabel('Scenario').selectOption('fraud-wave');
    expect(await teacher.getByTestId('setup-form').getByLabel('Round length (simulated minutes)').inputValue()).toBe(
      '60',
    );
    await teacher.getByTestId('setup-form').getByLabel('Round length (simulated minutes)').fill('5');
    await teacher.getByRole('button', { name: 'Save set-up' }).click();
    await eventually(async () =>
      expect(await ana.getByRole('heading', { name: 'Level 2 · Fraud wave' }).count()).toBe(1),
    );

    // Rename team 1, move Budi into it: roles are dealt again between the two.
    await teacher.getByLabel('Name of Team 1').fill('Falcons');
    await teacher
      .locator('[data-team]')
      .filter({ has: teacher.getByLabel('Name of Team 1') })
      .getByRole('button', { name: 'Rename' })
      .click();
    await eventually(async () => expect(await textOf(ana, 'team-name')).toBe('Falcons'));
    await teacher.getByLabel('Team of Budi').selectOption({ label: 'Falcons' });
    await eventually(async () => expect(await textOf(budi, 'team-name')).toBe('Falcons'));
    await eventually(async () => expect(await textOf(ana, 'my-roles')).toBe('Your role: Scaling, Fraud'));
    await eventually(async () => expect(await textOf(budi, 'my-roles')).toBe('Your role: Shedding, Stand-in'));

    // A short round to its end, then the next round back in the lobby.
    await teacher.getByRole('button', { name: 'Start' }).click();
    // The lobby also reads "Minute 0": wait until the server has really started the round.
    await teacher.getByRole('button', { name: 'Pause' }).waitFor();
    await minuteShown(ana, 0, 5);
    server.minutes(5, 1);
    await eventually(async () => expect(await textOf(teacher, 'round-state')).toBe('Finished'));
    await teacher.getByTestId('scores').waitFor();
    await teacher.getByRole('button', { name: 'Next round' }).click();
    await eventually(async () => expect(await textOf(teacher, 'round-state')).toBe('Waiting to start'));
    await eventually(async () => expect(await ana.getByText('The round has not started yet.').count()).toBe(1));
    await eventually(async () => expect(await ana.getByTestId('clock').innerText()).toContain('Waiting to start'));

    // Removing a student: their page says so and stops.
    teacher.once('dialog', (d) => void d.accept());
    await teacher.getByRole('button', { name: 'Remove Budi from the room' }).click();
    await budi.getByText('The teacher removed you from the room.').waitFor();
    await eventually(async () => expect(await teacher.locator('[data-player]').count()).toBe(1));
  });
});
