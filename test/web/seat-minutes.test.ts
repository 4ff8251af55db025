// Minutes others played a student's seat, as the teacher's scores show them and the seats CSV counts them.
import { expect, test } from 'vitest';
import { seatMinutes } from '../../shared/classroom/seats.ts';
import type { SeatPilot, SeatTurn } from '../../shared/protocol/types.ts';

const pilot = (kind: SeatPilot['kind'], reason: SeatPilot['reason'] = 'dropped'): SeatPilot => ({
  kind,
  skill: 'careful',
  reason,
  since: 0,
  minute: 0,
});
const turn = (teamId: number, playerId: number, name: string, minute: number, p: SeatPilot | null): SeatTurn => ({
  roundId: 1,
  teamId,
  playerId,
  name,
  roles: ['r'],
  minute,
  pilot: p,
  at: minute,
});

test('each student whose seat the autopilot or the teacher played, by team, with the minutes of each', () => {
  const turns = [
    turn(2, 7, 'Budi', 3, pilot('teacher', 'teacher')),
    turn(1, 5, 'Ana', 4, pilot('autopilot')),
    turn(2, 7, 'Budi', 5, null),
    turn(1, 5, 'Ana', 10, null),
    // Back on autopilot until the round's end (minute 20).
    turn(1, 5, 'Ana', 16, pilot('autopilot', 'self')),
    turn(1, 6, 'Cici', 8, pilot('autopilot')),
    // Taken back at once: no minute to show.
    turn(1, 6, 'Cici', 8, null),
    // A bot's seat is no student's.
    turn(3, 9, 'Bot 1', 0, pilot('autopilot', 'bot')),
    turn(3, 9, 'Bot 1', 6, pilot('teacher', 'teacher')),
    turn(3, 9, 'Bot 1', 9, pilot('autopilot', 'bot')),
  ];
  expect(seatMinutes(turns, 20)).toEqual([
    { teamId: 1, playerId: 5, name: 'Ana', autopilot: 10, teacher: 0 },
    { teamId: 2, playerId: 7, name: 'Budi', autopilot: 0, teacher: 2 },
  ]);
  // A round ended early counts to its last minute.
  expect(seatMinutes(turns, 12)).toEqual([
    { teamId: 1, playerId: 5, name: 'Ana', autopilot: 6, teacher: 0 },
    { teamId: 2, playerId: 7, name: 'Budi', autopilot: 0, teacher: 2 },
  ]);
  expect(seatMinutes([], 20)).toEqual([]);
});
