// Transitions are pure: the same state, command and context give the same next state, writes and
// messages, and the state they start from is left as it was. No database, no clock, no sockets.
import { describe, expect, test } from 'vitest';
import type { IdSource } from '../../server/db/writes.ts';
import { AppendOnly } from '../../server/rooms/append-only.ts';
import type { Command, TransitionCtx } from '../../server/rooms/commands.ts';
import { DEFAULT_CONFIG } from '../../server/rooms/config.ts';
import type { RoomState } from '../../server/rooms/state.ts';
import { transition } from '../../server/rooms/transitions/index.ts';
import { openRoom } from '../../server/rooms/transitions/open.ts';
import { roomView, teamHistory } from '../../server/rooms/views.ts';

/** Ids counted from `from`, the same sequence every time. */
function ids(from: number): IdSource {
  let n = from;
  return { next: () => ++n, ready: async () => {} };
}
const ctx = (now: number): TransitionCtx => ({ now, ids: ids(1000 + now), drawSeed: () => 4242 });

function seen(s: RoomState) {
  const teams = [...s.round.teams.values()];
  return { view: roomView(s, () => true), histories: teams.map((t) => teamHistory(s.round.id, t)), players: [...s.players.values()] };
}

describe('transitions', () => {
  test('are deterministic and never change the state they start from', () => {
    let state = openRoom({ code: 'ABCDEF', teacherId: 1, config: { ...DEFAULT_CONFIG, teamCount: 3, minutes: 5, seed: null } }, ctx(0)).state;
    const player = (name: string) => [...state.players.values()].find((p) => p.name === name)?.id ?? -1;
    const owner = (role: string) => [...state.players.values()].find((p) => p.roles.includes(role))?.id ?? -1;
    const team = (i: number) => state.teams[i].id;
    const steps: (() => Command)[] = [
      () => ({ type: 'join', name: 'Ana', tokenHash: 'a' }),
      () => ({ type: 'join', name: 'Budi', tokenHash: 'b' }),
      () => ({ type: 'join', name: 'Cato', tokenHash: 'c' }),
      () => ({ type: 'join', name: 'Dewi', tokenHash: 'd' }),
      () => ({ type: 'configure', patch: { teamCount: 2 } }),
      () => ({ type: 'move', playerId: player('Ana'), teamId: team(1) }),
      () => ({ type: 'rename', teamId: team(0), name: 'Night shift' }),
      () => ({ type: 'clock', action: 'start' }),
      () => ({ type: 'control', playerId: owner('scaling'), key: 'servers', value: 10 }),
      () => ({ type: 'tick', firedAt: 5000 }),
      () => ({ type: 'tempo', tempo: 1 }),
      () => ({ type: 'clock', action: 'pause' }),
      () => ({ type: 'tick', firedAt: 6000 }),
      () => ({ type: 'clock', action: 'step' }),
      () => ({ type: 'remove', playerId: player('Budi') }),
      () => ({ type: 'clock', action: 'end' }),
      () => ({ type: 'clock', action: 'next' }),
    ];
    let now = 1;
    for (const step of steps) {
      const cmd = step();
      const before = JSON.stringify(seen(state));
      const a = transition(state, cmd, ctx(now));
      const b = transition(state, cmd, ctx(now));
      expect(JSON.stringify(seen(state)), cmd.type).toBe(before);
      expect(seen(b.next), cmd.type).toEqual(seen(a.next));
      expect(b.writes, cmd.type).toEqual(a.writes);
      expect(b.messages, cmd.type).toEqual(a.messages);
      expect(b.reply, cmd.type).toEqual(a.reply);
      state = a.next;
      now++;
    }
    // The round went where the commands took it, and nothing was stored or sent by the functions themselves.
    expect(state.round).toMatchObject({ number: 2, state: 'lobby' });
    expect(state.teams.map((t) => t.name)).toEqual(['Night shift', '', '']);
  });

  test('a refused command throws and leaves no trace', () => {
    const state = openRoom({ code: 'ABCDEF', teacherId: 1, config: DEFAULT_CONFIG }, ctx(0)).state;
    const before = JSON.stringify(seen(state));
    expect(() => transition(state, { type: 'clock', action: 'pause' }, ctx(1))).toThrow(/cannot pause: the round is lobby/);
    expect(() => transition(state, { type: 'configure', patch: { simulator: 'nuclear-plant' } }, ctx(1))).toThrow(/unknown simulator/);
    expect(() => transition(state, { type: 'move', playerId: 5, teamId: 6 }, ctx(1))).toThrow(/no player 5/);
    expect(JSON.stringify(seen(state))).toBe(before);
  });
});

describe('the append-only list under a round', () => {
  test('every version keeps exactly its own items, whichever version is appended to', () => {
    const v0 = AppendOnly.of([1, 2]);
    const v1 = v0.append(3);
    const fork = v0.append(30);
    const v2 = v1.append(4);
    expect([...v0]).toEqual([1, 2]);
    expect(v1.toArray()).toEqual([1, 2, 3]);
    expect(fork.toArray()).toEqual([1, 2, 30]);
    expect(v2.toArray()).toEqual([1, 2, 3, 4]);
    expect([v2.at(-1), v2.at(0), v2.at(4), fork.at(2)]).toEqual([4, 1, undefined, 30]);
    // A round's worth of minutes appended one by one: each version still sees its own length.
    let list = AppendOnly.of<number>();
    const versions = [list];
    for (let m = 0; m < 240; m++) versions.push((list = list.append(m)));
    expect(versions.map((v) => v.length)).toEqual(Array.from({ length: 241 }, (_, i) => i));
    expect(versions[100].toArray()).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });
});
