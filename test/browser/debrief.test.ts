// After the round, in Debian's Chromium (issue 12, items 9 and 10, and the hindsight coach): from the
// finished desk a student opens their own team's replay — read-only, their token the key — with the
// chapters, every change and its author, the results and the coach's suggestion for their team; other
// teams only once the teacher shares the room's replays. In the teacher's replay the coach names, per
// team, the change that would have done better, with its figures, and opens it as a what-if whose
// team keeps the original's name ("Team 2 — what-if from minute m") on its dashboard, its desk and
// the compare legend. Time is the server's manual clock.
import type { Browser, Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import {
  eventually,
  joinAsStudent,
  LAPTOP,
  minuteShown,
  newPage,
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

const FIGURES = /^Goals \d → \d of \d · score -?[\d,.]+ → -?[\d,.]+ · money lost [\d,]+ u → [\d,]+ u$/;

describe('debrief and the hindsight coach', () => {
  test("a student's own replay and coach; the teacher's coach opens a what-if that keeps the team's name", async () => {
    const minutes = 12;
    const res = await fetch(`${server.url}/api/rooms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        simulator: 'payment-switch',
        scenario: 'sale-surge',
        minutes,
        tempo: 1,
        teamCount: 2,
        seed: 7,
      }),
    });
    const { code, teacherKey } = (await res.json()) as { code: string; teacherKey: string };
    const { page: teacher } = await newPage(browser, LAPTOP);
    await teacher.goto(`${server.url}/teacher/${code}#key=${teacherKey}`);
    const { page: ana } = await newPage(browser, LAPTOP);
    await joinAsStudent(ana, server.url, code, 'Ana');
    const { page: bo } = await newPage(browser, LAPTOP);
    await joinAsStudent(bo, server.url, code, 'Bo');
    expect(await textOf(ana, 'team-name')).toBe('Team 1');
    expect(await textOf(bo, 'team-name')).toBe('Team 2');
    await teacher.getByRole('button', { name: 'Start' }).click();
    await teacher.getByRole('button', { name: 'Pause' }).waitFor();
    // Both add servers for the sale (it opens at minute 5): Team 2 in time, Team 1 late.
    const addServers = async (page: Page) => {
      const servers = page.getByRole('spinbutton', { name: 'Servers' });
      await servers.fill('12');
      await servers.press('Enter');
      await page.locator('[data-control="servers"]').getByTestId('pending').waitFor();
    };
    server.minutes(2, 1);
    await minuteShown(bo, 2);
    await addServers(bo);
    server.minutes(5, 1);
    await minuteShown(ana, 7);
    await addServers(ana);
    server.minutes(minutes - 7, 1);
    await minuteShown(ana, minutes);

    // (10) From the finished desk to the team's own replay.
    await ana.getByTestId('debrief-link').click();
    await ana.waitForURL(new RegExp(`/debrief/${code}\\?round=\\d+$`));
    const desk = ana.getByTestId('replay-desk');
    await desk.waitFor();
    expect(await textOf(ana, 'round-over')).toContain('Team 1');
    // Her team's real place among both teams (Team 2 scaled up in time), though only her team is shown.
    const roundId = Number(new URL(ana.url()).searchParams.get('round'));
    const full = await fetch(`${server.url}/api/rounds/${roundId}/replay`, {
      headers: { authorization: `Bearer ${teacherKey}` },
    }).then((r) => r.json());
    const rank = full.standing.ranks.find((r: { teamId: number }) => r.teamId === full.teams[0].teamId).rank;
    expect(rank).toBe(2);
    expect(await textOf(ana, 'rank')).toBe('Rank 2 of 2');
    const results = ana.getByRole('region', { name: 'Scores of the round' });
    expect(await results.getByTestId('leaderboard').locator('tbody tr td').first().innerText()).toBe('2');
    expect(await textOf(ana, 'others-hidden')).toContain('among all 2 teams of the round');
    expect(await desk.getByText('A replay: the controls are read-only.').count()).toBe(1);
    // Only their own team: one team to choose, no fork, no export.
    expect(await ana.getByLabel('Team', { exact: true }).locator('option').allInnerTexts()).toEqual(['Team 1']);
    expect(await ana.getByTestId('fork-button').count()).toBe(0);
    expect(await ana.getByTestId('export').count()).toBe(0);
    // Every change with its author, the chapters, the coach's suggestion for their team (no button).
    await showTab(ana, 'feed');
    expect(await textOf(ana, 'feed')).toContain('Ana set Servers to 12');
    await ana.getByRole('button', { name: /The sale opens/ }).click();
    await eventually(async () => expect(await ana.getByLabel('Minute of the replay').inputValue()).toBe('5'));
    const coach = ana.getByTestId('coach');
    await coach.waitFor({ timeout: 20_000 });
    expect(await coach.locator('li').count()).toBe(1);
    // Servers from the start would have met the goals the late servers missed.
    expect(await coach.locator('li').getAttribute('data-kind')).toBe('add');
    // How long it lasts: until her own 12 servers at minute 8.
    expect(await coach.locator('li').innerText()).toMatch(
      /Also setting Servers to \d+ at minute \d+, until minute 8, when your own 12 applies, would have met “.+”: \+[\d,]+ points\./,
    );
    expect(await textOf(ana, 'coach-figures')).toMatch(FIGURES);
    expect(await ana.getByTestId('coach-open').count()).toBe(0);
    await screenshot(ana, 'student-debrief');

    // Shared by the teacher: every team.
    await teacher.getByRole('button', { name: "Share every team's replay" }).click();
    await eventually(async () => expect(await textOf(teacher, 'share-state')).toContain('Replays shared'));
    await ana.reload();
    await ana.getByTestId('replay-desk').waitFor();
    expect(await ana.getByLabel('Team', { exact: true }).locator('option').allInnerTexts()).toEqual([
      'Team 1',
      'Team 2',
    ]);

    // The teacher's replay: a suggestion (or why none) for each team, with its figures.
    await teacher.getByTestId('open-replay').click();
    const teacherCoach = teacher.getByTestId('coach');
    await teacherCoach.waitFor({ timeout: 20_000 });
    expect(await teacherCoach.locator('li').count()).toBe(2);
    const team2 = teacherCoach.locator('li').nth(1);
    expect(await team2.locator('h3').innerText()).toBe('Team 2');
    expect(await team2.getAttribute('data-kind')).not.toBe('none');
    const team2Says = await team2.innerText();
    expect(team2Says).toMatch(/Servers to \d+ at minute \d+/);
    expect(await team2.getByTestId('coach-figures').innerText()).toMatch(FIGURES);
    await screenshot(teacher, 'replay-coach');

    // (9) Opened as a what-if: the new room's team is Team 2's, on its dashboard, its desk and the legend.
    const button = team2.getByTestId('coach-open');
    const forkMinute = Number(/minute (\d+)/.exec(await button.innerText())![1]);
    await button.click();
    const made = teacher.getByTestId('coach-panel').getByTestId('fork-made');
    await made.waitFor();
    const forkCode = /room ([2-9A-HJKMNP-Z]{6})/.exec(await made.innerText())![1];
    const whatIf = `Team 2 — what-if from minute ${forkMinute}`;
    await made.getByRole('link', { name: 'Open its replay' }).click();
    await eventually(async () => expect(await textOf(teacher, 'compare-legend')).toContain('This what-if: Team 2'));
    await teacher.goto(`${server.url}/teacher/${forkCode}`);
    await eventually(async () => expect(await teacher.getByTestId('team-card').locator('h3').innerText()).toBe(whatIf));
    const { page: gus } = await newPage(browser, LAPTOP);
    await joinAsStudent(gus, server.url, forkCode, 'Gus');
    expect(await textOf(gus, 'team-name')).toBe(whatIf);
    // The coach's change is what the desk shows pending at the minute it opens — and when Team 2's own value follows.
    const suggested = /Servers to (\d+) at minute (\d+), until minute (\d+), when your own (\d+) applies/.exec(
      team2Says,
    );
    expect(suggested).not.toBeNull();
    const [, value, at, until, own] = suggested!;
    expect(Number(at)).toBe(forkMinute + 1);
    const pendingTag = await gus.locator('[data-control="servers"]').getByTestId('pending').innerText();
    expect(pendingTag).toMatch(
      new RegExp(`^Pending: ${value} from minute ${at}, by Coach\\s*· then ${own} from minute ${until}$`),
    );
    // The coach's changes wait there, pending, by the Coach.
    await showTab(gus, 'feed');
    await eventually(async () => expect(await textOf(gus, 'feed')).toMatch(/Coach set Servers to \d+/));
  });
});
