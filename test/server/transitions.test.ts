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
import { roomSummary, roomView, teamHistory } from '../../server/rooms/views.ts';
import { getModel } from '../../shared/sim/registry.ts';
import { rngFromSeed, uniform } from '../../shared/sim/rng.ts';
import { evaluateRound, goalValue } from '../../shared/sim/score.ts';
import type { GoalDef, Snapshot } from '../../shared/sim/types.ts';

/** Ids counted from `from`, the same sequence every time. */
function ids(from: number): IdSource {
  let n = from;
  return { next: () => ++n, ready: async () => {} };
}
const ctx = (now: number): TransitionCtx => ({
  now,
  ids: ids(1000 + now),
  drawSeed: () => 4242,
  connected: () => false,
  absentFor: () => 0,
});

function seen(s: RoomState) {
  const teams = [...s.round.teams.values()];
  return {
    view: roomView(s, () => ({ connected: true, idle: false, free: false }), 'teacher'),
    // The room keeps each team's latest minute and its trends' numbers; the rest is in the database.
    histories: teams.map((t) => ({ ...teamHistory(s.round, t, [t.snapshot]), headlines: t.headlines.toArray() })),
    players: [...s.players.values()],
  };
}

/** Every team's minutes so far, as its desk receives them: the room itself keeps only the latest. */
function minutesOf(s: RoomState): Map<number, Snapshot[]> {
  return new Map([...s.round.teams.values()].map((t) => [t.teamId, [t.snapshot]]));
}
function addMinutes(played: Map<number, Snapshot[]>, s: RoomState): void {
  for (const t of s.round.teams.values()) {
    const list = played.get(t.teamId)!;
    if (t.snapshot.minute === list.length) list.push(t.snapshot);
  }
}

describe('transitions', () => {
  test('are deterministic and never change the state they start from', () => {
    let state = openRoom(
      { code: 'ABCDEF', teacherId: 1, config: { ...DEFAULT_CONFIG, teamCount: 3, minutes: 5, seed: null } },
      ctx(0),
    ).state;
    const player = (name: string) => [...state.players.values()].find((p) => p.name === name)?.id ?? -1;
    const owner = (role: string) => [...state.players.values()].find((p) => p.roles.includes(role))?.id ?? -1;
    const team = (i: number) => state.teams[i].id;
    const steps: (() => Command)[] = [
      () => ({ type: 'join', name: 'Ana', tokenHash: 'a' }),
      () => ({ type: 'join', name: 'Budi', tokenHash: 'b' }),
      () => ({ type: 'join', name: 'Cato', tokenHash: 'c' }),
      () => ({ type: 'join', name: 'Dewi', tokenHash: 'd' }),
      () => ({ type: 'configure', patch: { teamCount: 2 } }),
      () => ({ type: 'assign', playerId: player('Dewi'), role: 'fraud' }),
      () => ({ type: 'lock', locked: true }),
      () => ({ type: 'message', teamId: null, text: 'Read your controls' }),
      () => ({ type: 'move', playerId: player('Ana'), teamId: team(1) }),
      () => ({ type: 'rename', teamId: team(0), name: 'Night shift' }),
      () => ({ type: 'clock', action: 'start' }),
      () => ({ type: 'control', playerId: owner('scaling'), key: 'servers', value: 10 }),
      () => ({ type: 'tick', dueAt: 5000 }),
      () => ({ type: 'tempo', tempo: 1 }),
      () => ({ type: 'clock', action: 'pause' }),
      () => ({ type: 'tick', dueAt: 6000 }),
      () => ({ type: 'clock', action: 'step' }),
      () => ({ type: 'remove', playerId: player('Budi') }),
      () => ({ type: 'message', teamId: team(0), text: 'Look at the queue' }),
      () => ({ type: 'share', shared: true }),
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
    expect(() => transition(state, { type: 'clock', action: 'pause' }, ctx(1))).toThrow(
      /cannot pause: the round is lobby/,
    );
    expect(() => transition(state, { type: 'configure', patch: { simulator: 'nuclear-plant' } }, ctx(1))).toThrow(
      /unknown simulator/,
    );
    expect(() => transition(state, { type: 'move', playerId: 5, teamId: 6 }, ctx(1))).toThrow(/no player 5/);
    expect(JSON.stringify(seen(state))).toBe(before);
  });

  test('a control the story has taken away is refused as CONTROL_UNAVAILABLE, with the reason, and leaves no trace', () => {
    let state = openRoom(
      {
        code: 'ABCDEF',
        teacherId: 1,
        config: { ...DEFAULT_CONFIG, simulator: 'web-service', scenario: 'product-launch', teamCount: 1, seed: 7 },
      },
      ctx(0),
    ).state;
    for (const [i, name] of ['Ana', 'Budi', 'Cato', 'Dewi'].entries())
      state = transition(state, { type: 'join', name, tokenHash: name }, ctx(1 + i)).next;
    state = transition(state, { type: 'clock', action: 'start' }, ctx(10)).next;
    const fleet = [...state.players.values()].find((p) => p.roles.includes('fleet'))!.id;
    const before = JSON.stringify(seen(state));
    try {
      transition(state, { type: 'control', playerId: fleet, key: 'autoscaling', value: true }, ctx(11));
      expect.unreachable('an unavailable control was accepted');
    } catch (e) {
      expect((e as { code?: string }).code).toBe('CONTROL_UNAVAILABLE');
      expect((e as Error).message).toContain('autoscaler-away');
    }
    expect(JSON.stringify(seen(state))).toBe(before);
    // The same player's other control goes through.
    const ok = transition(state, { type: 'control', playerId: fleet, key: 'minInstances', value: 20 }, ctx(11));
    expect(ok.writes).toHaveLength(1);
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
    for (let m = 0; m < 240; m++) {
      list = list.append(m);
      versions.push(list);
    }
    expect(versions.map((v) => v.length)).toEqual(Array.from({ length: 241 }, (_, i) => i));
    expect(versions[100].toArray()).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });
});

describe('goals during a round', () => {
  test('tallied minute by minute, every team’s progress and score are those of its whole history', () => {
    for (const simulator of ['payment-switch', 'web-service'] as const) {
      const scenario = simulator === 'payment-switch' ? 'sale-surge' : 'traffic-surge';
      const config = { ...DEFAULT_CONFIG, simulator, scenario, teamCount: 2, minutes: 40, seed: 7 };
      let state = openRoom({ code: 'ABCDEF', teacherId: 1, config }, ctx(0)).state;
      for (const [i, name] of ['Ana', 'Budi', 'Cato', 'Dewi'].entries())
        state = transition(state, { type: 'join', name, tokenHash: name }, ctx(100 * (i + 1))).next;
      state = transition(state, { type: 'clock', action: 'start' }, ctx(500)).next;
      expect(state.players.size).toBe(4);
      const model = getModel(simulator);
      let checked = 0;
      const played = minutesOf(state);
      for (let m = 1; m <= 40; m++) {
        // Now and then a change, so that the minutes differ from the defaults' play.
        if (m % 7 === 0) {
          const p = [...state.players.values()][m % 4];
          const def = model.controls.find((c) => p.roles.includes(c.role) && c.kind === 'number');
          if (def && def.kind === 'number')
            state = transition(
              state,
              { type: 'control', playerId: p.id, key: def.key, value: def.max },
              ctx(1000 + m * 10),
            ).next;
        }
        // A renamed team keeps its tallies: its next minutes add to them.
        if (m === 20)
          state = transition(
            state,
            { type: 'rename', teamId: state.teams[0].id, name: 'Renamed' },
            ctx(1000 + m * 10 + 1),
          ).next;
        state = transition(state, { type: 'tick', dueAt: m * 1000 }, ctx(1000 + m * 10 + 2)).next;
        addMinutes(played, state);
        for (const t of state.round.teams.values()) {
          const whole = evaluateRound(state.round.scenarioDef, played.get(t.teamId)!, state.round.baseline!.run);
          expect([t.progress, t.score], `${simulator} minute ${m} team ${t.teamId}`).toEqual([
            whole.goals,
            whole.score,
          ]);
          checked++;
        }
      }
      expect(checked).toBe(80);
      expect(
        [...state.round.teams.values()].reduce((n, t) => n + t.changes.length, 0),
        'changes played',
      ).toBeGreaterThan(0);
      expect(state.round.state).toBe('finished');
    }
  });

  test('a change or a new name keeps the team’s tallies: its next minute adds to them', () => {
    const config = { ...DEFAULT_CONFIG, teamCount: 1, minutes: 40, seed: 9 };
    let state = openRoom({ code: 'ABCDEF', teacherId: 1, config }, ctx(0)).state;
    state = transition(state, { type: 'join', name: 'Ana', tokenHash: 'Ana' }, ctx(100)).next;
    state = transition(state, { type: 'clock', action: 'start' }, ctx(500)).next;
    const played = minutesOf(state);
    const ana = [...state.players.values()][0];
    for (let m = 1; m <= 20; m++) {
      state = transition(state, { type: 'tick', dueAt: m * 1000 }, ctx(1000 + m)).next;
      addMinutes(played, state);
    }
    state = transition(state, { type: 'control', playerId: ana.id, key: 'servers', value: 12 }, ctx(30_000)).next;
    state = transition(state, { type: 'rename', teamId: state.teams[0].id, name: 'Blue' }, ctx(30_001)).next;
    // The room keeps no minute but the latest: a team copied without its tallies could not step at all.
    state = transition(state, { type: 'tick', dueAt: 21_000 }, ctx(31_000)).next;
    addMinutes(played, state);
    const team = [...state.round.teams.values()][0];
    const minutes = played.get(team.teamId)!;
    expect(minutes.map((s) => s.minute)).toEqual(Array.from({ length: 22 }, (_, i) => i));
    expect(team.name).toBe('Blue');
    expect(team.snapshot.controls.servers).toBe(12);
    const whole = evaluateRound(state.round.scenarioDef, minutes, state.round.baseline!.run);
    expect([team.progress, team.score]).toEqual([whole.goals, whole.score]);
  });

  test('a goal’s value is the mean of its window, or the last minute (final, or a window not yet open)', () => {
    const snap = (minute: number, x: number) => ({ minute, indicators: { x } }) as unknown as Snapshot;
    const rng = rngFromSeed(3);
    const snaps = Array.from({ length: 30 }, (_, m) => snap(m, uniform(rng) * 1e3 - 200));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const goal = (g: Partial<GoalDef>) =>
      ({ id: 'g', indicator: 'x', op: '>=', target: 0, aggregate: 'mean', ...g }) as GoalDef;
    for (let n = 1; n <= 30; n++) {
      const seen = snaps.slice(0, n);
      expect(goalValue(goal({ from: 5 }), seen)).toBe(
        n > 5 ? mean(seen.slice(5).map((s) => s.indicators.x)) : seen[n - 1].indicators.x,
      );
      expect(goalValue(goal({}), seen)).toBe(
        n > 1 ? mean(seen.slice(1).map((s) => s.indicators.x)) : seen[0].indicators.x,
      );
      expect(goalValue(goal({ aggregate: 'final' }), seen)).toBe(seen[n - 1].indicators.x);
    }
    expect(() => goalValue(goal({}), [])).toThrow(RangeError);
  });
});

describe("the projector's summary", () => {
  test('a headline share with nothing under it is named in the team summary (shown "—"), and only then', () => {
    const config = {
      ...DEFAULT_CONFIG,
      simulator: 'payment-switch' as const,
      scenario: 'fraud-wave',
      teamCount: 1,
      minutes: 30,
      seed: 1,
      noise: false,
    };
    let state = openRoom({ code: 'ABCDEF', teacherId: 1, config }, ctx(0)).state;
    state = transition(state, { type: 'join', name: 'Ana', tokenHash: 'Ana' }, ctx(100)).next;
    state = transition(state, { type: 'clock', action: 'start' }, ctx(500)).next;
    const ana = [...state.players.values()][0];
    let withNa = 0;
    for (let m = 1; m <= 30; m++) {
      // Two servers from minute 10: the switch collapses and, some minutes, approves nothing.
      if (m === 10)
        state = transition(
          state,
          { type: 'control', playerId: ana.id, key: 'servers', value: 2 },
          ctx(1000 + m * 10),
        ).next;
      state = transition(state, { type: 'tick', dueAt: m * 1000 }, ctx(1000 + m * 10 + 1)).next;
      const team = [...state.round.teams.values()][0];
      const last = team.snapshot;
      const summary = roomSummary(state.round, m * 1000).teams[0];
      const headline = new Set(
        getModel('payment-switch')
          .indicators.filter((i) => i.headline)
          .map((i) => i.key),
      );
      expect(summary.na ?? [], `minute ${m}`).toEqual((last?.na ?? []).filter((k) => headline.has(k)));
      if (summary.na?.includes('fraudRateBp')) withNa++;
    }
    expect(withNa).toBeGreaterThan(0);
  });
});
