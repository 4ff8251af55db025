// A room keeps each team's latest minute only; a desk's history is read back from the database, where every
// minute seen was stored first, and is whole up to the latest minute sent even when minutes fall due meanwhile.
import { beforeEach, describe, expect, test } from 'vitest';
import { runRound } from '../../shared/sim/engine.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';
import type { Snapshot } from '../../shared/sim/types.ts';
import { roomEnv, type RoomEnv } from './rooms.ts';
import { joinStudent } from './seats.ts';

/** Distinct objects with indicators (snapshots) reachable from `root`. */
function snapshotsIn(root: unknown): number {
  const seen = new Set<object>();
  let n = 0;
  const walk = (v: unknown): void => {
    if (typeof v !== 'object' || v === null || seen.has(v)) return;
    seen.add(v);
    if ('indicators' in v && 'minute' in v) n++;
    const values = v instanceof Map ? [...v.values()] : Array.isArray(v) ? v : Object.values(v);
    for (const x of values) walk(x);
    // AppendOnly keeps its items in a private array: walk its versions' items too.
    if (Symbol.iterator in v && !(v instanceof Map) && !Array.isArray(v) && typeof v !== 'string')
      for (const x of v as Iterable<unknown>) walk(x);
  };
  walk(root);
  return n;
}

describe('a team’s past minutes', () => {
  let env: RoomEnv;
  beforeEach(() => {
    env = roomEnv();
  });

  async function played(minutes: number) {
    const { room } = await env.manager.create({ teamCount: 2, tempo: 1, seed: 5 });
    const ana = (await joinStudent(env.manager, room.code, 'Ana')).player;
    await room.dispatch({ type: 'clock', action: 'start' });
    await env.advance(minutes * 1000);
    expect(room.round.minute).toBe(minutes);
    return { room, ana, teamId: ana.teamId! };
  }

  const clean = (room: { round: { seed: number | null } }, minutes: number): Snapshot[] =>
    runRound(paymentSwitch, { scenario: 'sale-surge', seed: room.round.seed!, noise: true, minutes }).snapshots;

  test('are not kept by the room: each team holds its latest minute, and its history is read back whole', async () => {
    const { room, ana, teamId } = await played(30);
    // Two teams, one minute each (the simulation's state holds the same snapshot as the team).
    expect(snapshotsIn(room.state.round.teams)).toBe(2);
    const history = await room.historyFor(ana.id);
    expect(history?.snapshots.map((s) => s.minute)).toEqual(Array.from({ length: 31 }, (_, i) => i));
    expect(history?.snapshots).toEqual(clean(room, 30));
    // The same minutes the team's channel carried, as they were sent.
    const sent = env.out.of('minute').filter((m) => m.teamId === teamId);
    expect(history?.snapshots).toEqual(sent.map((m) => m.snapshot));
    // The teacher's trends are kept as numbers: one per headline indicator and minute.
    const headline = paymentSwitch.indicators.filter((i) => i.headline).map((i) => i.key);
    expect(headline.length).toBeGreaterThan(1);
    const expected = Object.fromEntries(headline.map((k) => [k, clean(room, 30).map((s) => s.indicators[k])]));
    expect(room.trends()[teamId]).toEqual(expected);
  });

  test('a minute stored while the history is read is added to it; two or more, and it is read again', async () => {
    const { room, ana } = await played(10);
    for (const late of [1, 3]) {
      let release = () => {};
      env.store.slowReads = new Promise<void>((r) => {
        release = r;
      });
      const reading = room.historyFor(ana.id);
      await env.advance(late * 1000);
      env.store.slowReads = null;
      release();
      const history = await reading;
      const minute = room.round.minute;
      expect(history?.snapshots.map((s) => s.minute)).toEqual(Array.from({ length: minute + 1 }, (_, i) => i));
      expect(history?.snapshots).toEqual(clean(room, minute));
      expect(room.isLatest(history!)).toBe(true);
    }
  });

  test('a history read across the start of the next round is that round’s', async () => {
    const { room } = await env.manager.create({ teamCount: 1, tempo: 1, minutes: 3 });
    const ana = (await joinStudent(env.manager, room.code, 'Ana')).player;
    await room.dispatch({ type: 'clock', action: 'start' });
    await env.advance(3000);
    expect(room.round.state).toBe('finished');
    let release = () => {};
    env.store.slowReads = new Promise<void>((r) => {
      release = r;
    });
    const reading = room.historyFor(ana.id);
    await room.dispatch({ type: 'clock', action: 'next' });
    await room.dispatch({ type: 'clock', action: 'start' });
    env.store.slowReads = null;
    release();
    const history = await reading;
    expect(history?.roundId).toBe(room.round.id);
    expect(history?.snapshots.map((s) => s.minute)).toEqual([0]);
  });
});
