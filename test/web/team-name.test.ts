// A team's name on every screen: the teacher's, else "Team n"; a what-if room's team after the one
// it was forked from (the server sends its place and name, never words).
import { expect, test } from 'vitest';
import type { HistoryRound, ReplayTeam, RoundReplay, WhatIfOrigin } from '../../shared/protocol/types.ts';
import { toColumns } from '../../shared/replay/columns.ts';
import { teamName } from '../../web/lib/i18n/index.ts';
import { compareLines } from '../../web/lib/replay/logic.ts';

test('a what-if team is named after its original team and minute, unless the teacher named it', () => {
  const whatIf = { roundId: 1, teamId: 8, idx: 1, name: '', minute: 10 };
  expect(teamName({ idx: 0, name: '', whatIf })).toBe('Team 2 — what-if from minute 10');
  expect(teamName({ idx: 0, name: '', whatIf: { ...whatIf, name: 'Night shift' } })).toBe(
    'Night shift — what-if from minute 10',
  );
  expect(teamName({ idx: 0, name: 'Second try', whatIf })).toBe('Second try');
  expect(teamName({ idx: 2, name: '', whatIf: null })).toBe('Team 3');
  expect(teamName({ idx: 2, name: '' })).toBe('Team 3');
});

test('the compare legend names a what-if line after the team it comes from', () => {
  const cols = toColumns([]);
  const team = (teamId: number, idx: number, name = '', whatIf: WhatIfOrigin | null = null): ReplayTeam => ({
    ...{
      teamId,
      idx,
      name,
      whatIf,
      members: [],
      columns: cols,
      changes: [],
      roleChanges: [],
      seatTurns: [],
      result: null,
      chapters: [],
      baseline: { total: [], calm: [] },
    },
  });
  const round = (id: number): HistoryRound => ({
    ...{
      id,
      number: 1,
      simulator: 'payment-switch',
      scenario: 'free',
      seed: 1,
      state: 'finished',
      minutes: 5,
      tempo: 1,
      minute: 5,
    },
    ...{ createdAt: 0, startedAt: 0, finishedAt: 0, forkOf: null, endedEarlyAt: null, teams: [] },
  });
  const whatIf = { roundId: 1, teamId: 12, idx: 1, name: '', minute: 10 };
  const original: RoundReplay = {
    roomCode: 'ABCDEF',
    round: round(1),
    teams: [team(11, 0), team(12, 1)],
    forks: [{ roundId: 2, roomCode: 'XYZXYZ', teamId: 12, minute: 10 }],
    origin: null,
    standing: { teams: 2, ranks: [] },
  };
  const fork: RoundReplay = {
    roomCode: 'XYZXYZ',
    round: round(2),
    teams: [team(21, 0, '', whatIf)],
    forks: [],
    origin: { roundId: 1, roomCode: 'ABCDEF', teamId: 12, minute: 10 },
    standing: { teams: 1, ranks: [] },
  };
  expect(compareLines(original, [fork]).map((l) => [l.kind, teamName(l.team)])).toEqual([
    ['team', 'Team 1'],
    ['team', 'Team 2'],
    ['fork', 'Team 2'],
  ]);
  expect(compareLines(fork, [original]).map((l) => [l.kind, teamName(l.team)])).toEqual([
    ['this-fork', 'Team 2'],
    ['original', 'Team 2'],
  ]);
});
