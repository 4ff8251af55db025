// The replay's bookkeeping: the desk at a minute, the roster, chapters
// of all teams, the compare chart's lines, history links, the change markers' labels, and a chapter
// title for every event the models raise.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import type { ChangeRecord, HistoryRoom, HistoryRound, ReplayTeam, RoundReplay } from '../../shared/protocol/types.ts';
import { toColumns } from '../../shared/replay/columns.ts';
import type { Snapshot } from '../../shared/sim/types.ts';
import { placeFlags } from '../../web/lib/charts/flags.ts';
import { changeMarks } from '../../web/lib/state/desk-logic.ts';
import {
  changesUpTo,
  clampMinute,
  compareLines,
  filenameFrom,
  groupChapters,
  historyIndex,
  lastMinuteOf,
  rosterOf,
  linePoints,
  snapshotsUpTo,
  stateAt,
  teamForChapter,
  valueAt,
} from '../../web/lib/replay/logic.ts';

const snap = (minute: number, approval = 0.99): Snapshot => ({
  minute,
  indicators: { goodApproval: approval },
  status: {},
  controls: {},
  detail: {},
  events: [],
});
const change = (id: number, minute: number, key: string, name: string, teamId = 1): ChangeRecord => ({
  id,
  seq: id,
  roundId: 1,
  teamId,
  minute,
  key,
  value: 1,
  author: { playerId: null, name },
  actor: { kind: 'student' },
  at: 0,
});
const round = (id: number, extra: Partial<HistoryRound> = {}): HistoryRound => ({
  id,
  number: 1,
  simulator: 'payment-switch',
  scenario: 'sale-surge',
  seed: 7,
  state: 'finished',
  minutes: 12,
  tempo: 1,
  minute: 12,
  createdAt: 0,
  startedAt: 0,
  finishedAt: 0,
  forkOf: null,
  endedEarlyAt: null,
  teams: [],
  ...extra,
});
const team = (teamId: number, idx: number, minutes: number, extra: Partial<ReplayTeam> = {}): ReplayTeam => ({
  teamId,
  idx,
  name: '',
  whatIf: null,
  members: [],
  roleChanges: [],
  seatTurns: [],
  columns: toColumns(Array.from({ length: minutes + 1 }, (_, m) => snap(m, 0.99 - m / 100 - teamId / 1000))),
  changes: [],
  result: null,
  chapters: [],
  baseline: { total: [], calm: [] },
  ...extra,
});
const replayOf = (r: HistoryRound, teams: ReplayTeam[], more: Partial<RoundReplay> = {}): RoundReplay => ({
  roomCode: 'ABCDEF',
  round: r,
  teams,
  forks: [],
  origin: null,
  standing: { teams: teams.length, ranks: [] },
  ...more,
});

describe('the desk at a minute', () => {
  test('minutes and changes up to the minute; a change applied later is not there yet', () => {
    const snaps = [0, 1, 2, 3, 4].map((m) => snap(m));
    expect(snapshotsUpTo(snaps, 2).map((s) => s.minute)).toEqual([0, 1, 2]);
    const changes = [change(2, 5, 'shedding', 'Budi'), change(1, 3, 'servers', 'Ana')];
    expect(changesUpTo(changes, 4).map((c) => c.id)).toEqual([1]);
    expect(changesUpTo(changes, 5).map((c) => c.id)).toEqual([1, 2]);
  });

  test('running before the last minute; the round’s own state at it; minutes clamped', () => {
    expect(stateAt({ state: 'finished' }, 5, 12)).toBe('running');
    expect(stateAt({ state: 'finished' }, 12, 12)).toBe('finished');
    expect(stateAt({ state: 'paused' }, 7, 7)).toBe('paused');
    expect([clampMinute(-3, 12), clampMinute(99, 12), clampMinute(4.6, 12), clampMinute(NaN, 12)]).toEqual([
      0, 12, 5, 0,
    ]);
    expect(lastMinuteOf(replayOf(round(1), [team(1, 0, 12), team(2, 1, 8)]))).toBe(12);
  });

  test('the roster comes with the replay: members of every team with their roles, none connected', () => {
    const players = rosterOf([
      {
        teamId: 1,
        members: [
          { playerId: 3, name: 'Ana', roles: ['scaling', 'fraud'] },
          { playerId: 5, name: 'Csilla', roles: ['shedding', 'standin'] },
        ],
        seatTurns: [],
      },
      {
        teamId: 2,
        members: [{ playerId: 4, name: 'Budi', roles: ['scaling', 'shedding', 'fraud', 'standin'] }],
        seatTurns: [],
      },
    ]);
    expect(players.map((p) => [p.id, p.name, p.teamId, p.roles, p.connected])).toEqual([
      [3, 'Ana', 1, ['scaling', 'fraud'], false],
      [5, 'Csilla', 1, ['shedding', 'standin'], false],
      [4, 'Budi', 2, ['scaling', 'shedding', 'fraud', 'standin'], false],
    ]);
  });

  test('the roster at a minute names who played each seat then: the autopilot from its turn to the student’s return', () => {
    const pilot = { kind: 'autopilot', skill: 'careful', reason: 'dropped', since: 0, minute: 12 } as const;
    const turn = (minute: number, p: typeof pilot | null) => ({
      roundId: 1,
      teamId: 1,
      playerId: 3,
      name: 'Ana',
      roles: ['scaling'],
      minute,
      pilot: p,
      at: minute * 1000,
    });
    const teams = [
      {
        teamId: 1,
        members: [{ playerId: 3, name: 'Ana', roles: ['scaling'] }],
        seatTurns: [turn(12, pilot), turn(18, null)],
      },
    ];
    expect([5, 12, 17, 18, 30].map((m) => rosterOf(teams, m)[0].pilot?.kind ?? null)).toEqual([
      null,
      'autopilot',
      'autopilot',
      null,
      null,
    ]);
  });

  test('change markers: one per minute, each author once, in the order they acted', () => {
    const marks = changeMarks([
      change(3, 6, 'servers', 'Ana'),
      change(2, 2, 'shedding', 'Budi'),
      change(1, 2, 'servers', 'Ana'),
      change(4, 2, 'servers', 'Ana'),
    ]);
    expect(marks.map((g) => [g.minute, g.authors, g.changes.map((c) => c.id)])).toEqual([
      [2, ['Ana', 'Budi'], [1, 2, 4]],
      [6, ['Ana'], [3]],
    ]);
  });
});

describe('chapters', () => {
  const teams = [
    team(11, 0, 12, {
      chapters: [
        { minute: 5, kind: 'sale-start' },
        { minute: 9, kind: 'servers-ready', count: 4 },
      ],
    }),
    team(12, 1, 12, {
      chapters: [
        { minute: 5, kind: 'sale-start' },
        { minute: 8, kind: 'goal-lost', goal: 'approval' },
      ],
    }),
  ];
  test('a moment every team lived is listed once with all of them, in minute order', () => {
    const items = groupChapters(teams);
    expect(items.map((i) => [i.minute, i.chapter.kind, i.teamIds])).toEqual([
      [5, 'sale-start', [11, 12]],
      [8, 'goal-lost', [12]],
      [9, 'servers-ready', [11]],
    ]);
  });
  test('jumping keeps the team shown when it lived the moment', () => {
    const [sale, lost] = groupChapters(teams);
    expect(teamForChapter(sale, 12)).toBe(12);
    expect(teamForChapter(lost, 11)).toBe(12);
  });
  test('every event either model raises has a chapter title in English', () => {
    const en: Record<string, string> = JSON.parse(readFileSync('web/messages/en.json', 'utf8'));
    const kinds = Object.keys(en)
      .map((k) => /^(?:ps|ws)_evt_(.+)$/.exec(k)?.[1])
      .filter((k): k is string => !!k);
    expect(kinds.length).toBeGreaterThan(10);
    expect(kinds.filter((k) => !en[`chapter_${k}`])).toEqual([]);
    expect(en.chapter_lost_goal).toContain('{goal}');
    const source = readFileSync('web/lib/replay/chapter-text.ts', 'utf8');
    expect(kinds.filter((k) => !source.includes(`m.chapter_${k},`))).toEqual([]);
  });
});

describe('compare chart', () => {
  test('this round’s teams, then the original of a what-if, then its forks', () => {
    const origin = replayOf(round(1), [team(11, 0, 12, { name: 'Falcons' }), team(12, 1, 12)]);
    const fork = replayOf(
      round(2, { forkOf: { roundId: 1, teamId: 11, minute: 5 } }),
      [team(21, 0, 12, { name: 'Falcons' })],
      {
        origin: { roundId: 1, roomCode: 'ABCDEF', teamId: 11, minute: 5 },
      },
    );
    expect(compareLines(fork, [origin]).map((l) => [l.kind, l.team.name])).toEqual([
      ['this-fork', 'Falcons'],
      ['original', 'Falcons'],
    ]);
    const withForks = { ...origin, forks: [{ roundId: 2, roomCode: 'XYZXYZ', teamId: 11, minute: 5 }] };
    expect(compareLines(withForks, [fork]).map((l) => [l.kind, l.code ?? '', l.minute ?? null])).toEqual([
      ['team', '', null],
      ['team', '', null],
      ['fork', 'XYZXYZ', 5],
    ]);
    // A related replay not loaded yet is simply not drawn.
    expect(compareLines(withForks, []).length).toBe(2);
  });
  test('points in display units; a value only where the line played', () => {
    const cols = toColumns([snap(0, 0.5), snap(1, 0.25)]);
    expect(linePoints(cols, 'goodApproval', 100)).toEqual([
      { x: 0, y: 50 },
      { x: 1, y: 25 },
    ]);
    expect(valueAt(cols, 'goodApproval', 1)).toBe(0.25);
    expect(valueAt(cols, 'goodApproval', 2)).toBeNull();
  });
});

describe('history', () => {
  test('rounds by id and the what-ifs of each, across rooms', () => {
    const rooms: HistoryRoom[] = [
      {
        code: 'FORKED',
        purpose: 'class',
        createdAt: 2,
        rounds: [round(5, { forkOf: { roundId: 1, teamId: 11, minute: 5 } })],
      },
      { code: 'ABCDEF', purpose: 'class', createdAt: 1, rounds: [round(1), round(2, { number: 2 })] },
    ];
    const { byId, forks } = historyIndex(rooms);
    expect(byId.get(5)?.code).toBe('FORKED');
    expect(forks.get(1)?.map((f) => [f.round.id, f.code])).toEqual([[5, 'FORKED']]);
    expect(forks.get(2)).toBeUndefined();
  });
  test('the download keeps the server’s file name', () => {
    expect(filenameFrom('attachment; filename="opsroom-ABCDEF-round1-minutes.csv"', 'x.csv')).toBe(
      'opsroom-ABCDEF-round1-minutes.csv',
    );
    expect(filenameFrom(null, 'x.csv')).toBe('x.csv');
    expect(filenameFrom('attachment; filename="../evil.csv"', 'x.csv')).toBe('.._evil.csv');
  });
});

describe('marker labels', () => {
  const layout = { left: 40, right: 340, min: 0, max: 60 };
  test('at the marker’s x; a label that would collide goes one row down', () => {
    const { flags, rows } = placeFlags(
      [
        { minute: 10, text: 'Ana', title: '' },
        { minute: 11, text: 'Budi', title: '' },
        { minute: 40, text: 'Csilla', title: '' },
      ],
      layout,
    );
    expect(flags.map((f) => [f.minute, f.x, f.row, f.anchor])).toEqual([
      [10, 90, 0, 'start'],
      [11, 95, 1, 'start'],
      [40, 240, 0, 'start'],
    ]);
    expect(rows).toBe(2);
  });
  test('near the right edge a label ends at its marker; off-axis markers are skipped', () => {
    const { flags } = placeFlags(
      [
        { minute: 60, text: 'Dario and Eka', title: '' },
        { minute: 75, text: 'Late', title: '' },
      ],
      layout,
    );
    expect(flags.map((f) => [f.minute, f.anchor])).toEqual([[60, 'end']]);
    expect(placeFlags([{ minute: 1, text: 'A', title: '' }], { ...layout, min: 5, max: 5 }).flags).toEqual([]);
  });
});
