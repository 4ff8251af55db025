// A presence event changes one dot of the roster and nothing else.
import { expect, test } from 'vitest';
import type { RoomView } from '../../shared/protocol/types.ts';
import { withPresence } from '../../web/lib/state/presence.ts';

const room: RoomView = {
  code: 'ABCDEF',
  config: {
    simulator: 'payment-switch',
    scenario: 'free',
    minutes: 60,
    tempo: 5,
    seed: null,
    teamCount: 1,
    splitView: false,
    absence: 'autopilot',
    graceSeconds: 45,
    idleMinutes: 3,
    purpose: 'class',
  },
  round: {
    id: 1,
    number: 1,
    state: 'lobby',
    simulator: 'payment-switch',
    scenario: 'free',
    seed: null,
    minutes: 60,
    tempo: 5,
    minute: -1,
    forkOf: null,
    endedEarlyAt: null,
  },
  teams: [{ id: 1, idx: 0, name: '', whatIf: null }],
  players: [
    { id: 7, name: 'Ana', teamId: 1, roles: ['scaling'], connected: true, idle: false, free: false, pilot: null },
    { id: 8, name: 'Budi', teamId: 1, roles: ['shedding'], connected: true, idle: false, free: false, pilot: null },
  ],
  locked: false,
  replayShared: false,
};

test('a disconnect turns that student’s dot off, and a reconnect on again', () => {
  const off = withPresence(room, { playerId: 8, connected: false, idle: false, free: false });
  expect(off.players.map((p) => p.connected)).toEqual([true, false]);
  expect(off.players[0]).toBe(room.players[0]);
  expect(room.players[1].connected).toBe(true);
  expect(
    withPresence(off, { playerId: 8, connected: true, idle: false, free: false }).players.map((p) => p.connected),
  ).toEqual([true, true]);
});

test('an event that changes nothing keeps the same room (no redraw), and an unknown player is ignored', () => {
  expect(withPresence(room, { playerId: 7, connected: true, idle: false, free: false })).toBe(room);
  expect(withPresence(room, { playerId: 99, connected: false, idle: false, free: false })).toBe(room);
});

test('an idle seat and a seat offered to the team change that seat only', () => {
  const idle = withPresence(room, { playerId: 7, connected: true, idle: true, free: false });
  expect(idle.players.map((p) => p.idle)).toEqual([true, false]);
  expect(idle.players[1]).toBe(room.players[1]);
  const free = withPresence(idle, { playerId: 8, connected: false, idle: false, free: true });
  expect(free.players.map((p) => [p.connected, p.free])).toEqual([
    [true, false],
    [false, true],
  ]);
});
