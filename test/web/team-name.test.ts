// A team's name on every screen: the teacher's, else "Team n"; a what-if room's team after the one
// it was forked from (the server sends its place and name, never words).
import { expect, test } from 'vitest';
import { teamName } from '../../web/lib/i18n/index.ts';

test('a what-if team is named after its original team and minute, unless the teacher named it', () => {
  const whatIf = { roundId: 1, teamId: 8, idx: 1, name: '', minute: 10 };
  expect(teamName({ idx: 0, name: '', whatIf })).toBe('Team 2 — what-if from minute 10');
  expect(teamName({ idx: 0, name: '', whatIf: { ...whatIf, name: 'Night shift' } })).toBe('Night shift — what-if from minute 10');
  expect(teamName({ idx: 0, name: 'Second try', whatIf })).toBe('Second try');
  expect(teamName({ idx: 2, name: '', whatIf: null })).toBe('Team 3');
  expect(teamName({ idx: 2, name: '' })).toBe('Team 3');
});
