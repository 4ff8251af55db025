// A minute started ahead of its due time (RoomDeps.minuteLeadMs): computed and stored early, seen at its time —
// not before, and with what was stored; a command that comes meanwhile waits for it; a slow disk still counts late.
import { expect, test } from 'vitest';
import { LEAD_COMMIT_SLOT_MS } from '../../server/app.ts';
import { Committer } from '../../server/db/commit.ts';
import type { Write } from '../../server/db/writes.ts';
import { noMetrics } from '../../server/ops/metrics.ts';
import { RoomManager } from '../../server/rooms/manager.ts';
import type { Room } from '../../server/rooms/room.ts';
import { roomEnv } from './rooms.ts';

const turn = () => new Promise((r) => setImmediate(r));
const LEAD = 100;

/** A room of one team at tempo 1 on a manager whose minutes start LEAD ms early, in slots of 20 ms. */
async function leadRoom() {
  const delays: number[] = [];
  const env = roomEnv({ metrics: { ...noMetrics, minuteDelay: (ms) => void delays.push(ms) } });
  const manager = new RoomManager({ ...env.manager.deps, beatSlotMs: 20, minuteLeadMs: LEAD });
  const { room } = await manager.create({ teamCount: 1, tempo: 1, seed: 5, minutes: 10 });
  const ana = (await manager.joinStudent(room.code, 'Ana')).player;
  const t0 = env.clock.now(); // a multiple of 20 ms: minute 1 is due at t0 + 1000, started at t0 + 900
  await room.dispatch({ type: 'clock', action: 'start' });
  const minutes = () => env.out.of('minute').filter((m) => m.roundId === room.round.id);
  const snapshotsStored = (minute: number) =>
    env.store.transactions.flat(2).filter((w: Write) => w.op === 'insertSnapshots' && w.rows[0].minute === minute)
      .length;
  /** Moves the clock to `t0 + ms` and lets the room work, without waiting for a minute it holds. */
  const at = async (ms: number) => {
    env.clock.advance(t0 + ms - env.clock.now());
    for (let i = 0; i < 10; i++) await turn();
  };
  return { env, manager, room, ana, t0, delays, minutes, snapshotsStored, at };
}

test('a minute is computed and stored ahead of its due time and sent at it, with its due time as sentAt', async () => {
  const { room, t0, delays, minutes, snapshotsStored, at } = await leadRoom();
  expect(minutes().map((m) => m.snapshot.minute)).toEqual([0]);

  await at(899);
  expect(snapshotsStored(1)).toBe(0); // not started before its lead
  await at(900);
  expect(snapshotsStored(1)).toBe(1); // stored…
  expect(minutes()).toHaveLength(1); // …but nobody has seen it
  expect(room.round.minute).toBe(0);
  await at(999);
  expect(minutes()).toHaveLength(1);

  await at(1000);
  expect(minutes().map((m) => m.snapshot.minute)).toEqual([0, 1]);
  expect(minutes()[1].sentAt).toBe(t0 + 1000);
  expect(room.round.minute).toBe(1);
  expect(delays).toEqual([0]);

  // The next one keeps the plan: started at +1900, seen at +2000.
  await at(1900);
  expect(snapshotsStored(2)).toBe(1);
  expect(minutes()).toHaveLength(2);
  await at(2000);
  expect(minutes().map((m) => [m.snapshot.minute, m.sentAt])).toEqual([
    [0, t0],
    [1, t0 + 1000],
    [2, t0 + 2000],
  ]);
  expect(delays).toEqual([0, 0]);
});

test('a change that comes while a minute is held waits for it, and takes effect a minute later', async () => {
  const { room, ana, minutes, at } = await leadRoom();
  await at(950); // minute 1 is stored and held
  let acked = false;
  const change = room.dispatch({ type: 'control', playerId: ana.id, key: 'servers', value: 14 }).then(() => {
    acked = true;
  });
  await at(990);
  expect(acked).toBe(false);
  expect(minutes()).toHaveLength(1);

  await at(1000);
  await change;
  const recorded = room.round.teams.values().next().value!.changes.toArray();
  // Handled once minute 1 was in place: recorded for minute 2, the one it takes effect at.
  expect(recorded.map((c) => [c.key, c.value, c.minute])).toEqual([['servers', 14, 2]]);
  // Minute 1 was played without it; minute 2 (started at +1900) with it.
  expect(minutes()[1].snapshot.controls.servers).not.toBe(14);
  await at(2000);
  expect(minutes()[2].snapshot.controls.servers).toBe(14);
});

test('a minute whose transaction ends after its due time is sent when stored, and its delay counts', async () => {
  const { env, delays, minutes, at } = await leadRoom();
  let release = () => {};
  env.store.hold = new Promise((r) => (release = r));
  await at(1030);
  expect(minutes()).toHaveLength(1);
  env.store.hold = null;
  release();
  for (let i = 0; i < 10; i++) await turn();
  expect(minutes().map((m) => m.snapshot.minute)).toEqual([0, 1]);
  expect(delays).toEqual([30]);
});

test('a pause asked while a minute is held comes after it; a room disposed meanwhile sends nothing and keeps no timer', async () => {
  const { env, manager, room, minutes, snapshotsStored, at } = await leadRoom();
  await at(950);
  const paused = room.dispatch({ type: 'clock', action: 'pause' });
  await at(1000);
  await paused;
  expect(minutes().map((m) => m.snapshot.minute)).toEqual([0, 1]);
  expect(room.round.state).toBe('paused');
  await at(3000);
  expect(minutes()).toHaveLength(2);

  await room.dispatch({ type: 'clock', action: 'resume' }); // at +3000: minute 2 due at +4000, held from +3900
  await at(3950);
  expect(snapshotsStored(2)).toBe(1);
  const held = room.dispatch({ type: 'clock', action: 'pause' });
  await manager.close();
  await expect(held).rejects.toThrow();
  expect(env.clock.pending).toBe(0);
  await at(4100);
  expect(minutes()).toHaveLength(2); // stored, never sent from here: a restart resumes at minute 2
});

test('with the lead, two beat slots share one transaction (commit slots of 40 ms) and each minute is seen at its due time', async () => {
  const env = roomEnv();
  const committer = new Committer(env.store, undefined, LEAD_COMMIT_SLOT_MS, env.clock);
  const manager = new RoomManager({ ...env.manager.deps, committer, beatSlotMs: 20, minuteLeadMs: LEAD });
  /** Moves the clock to `t0 + ms` 10 ms at a time, letting the rooms work at each step (as a real loop would). */
  let t0 = env.clock.now();
  const at = async (ms: number) => {
    while (env.clock.now() < t0 + ms) {
      env.clock.advance(Math.min(10, t0 + ms - env.clock.now()));
      for (let i = 0; i < 10; i++) await turn();
    }
  };
  const rooms: Room[] = [];
  for (const seed of [1, 2, 3]) {
    await at(env.clock.now() - t0 + 40); // each creation in a commit slot of its own
    rooms.push((await manager.create({ teamCount: 1, tempo: 1, seed, minutes: 10 })).room);
  }
  t0 = (Math.floor(env.clock.now() / 1000) + 1) * 1000;
  // Started at +10, +1030 and +2050 (each in a free commit slot), minute 0 seen at the next step of this clock: their
  // minutes fall due at …020, …040 and …060 of every second, and start at …920, …940 and …960.
  for (const [i, offset] of [10, 1030, 2050].entries()) {
    await at(offset);
    const starting = rooms[i].dispatch({ type: 'clock', action: 'start' });
    await at(offset + 10);
    await starting;
  }
  const sent = (i: number) =>
    env.out
      .of('minute')
      .filter((m) => m.roundId === rooms[i].round.id)
      .map((m) => [m.snapshot.minute, m.sentAt - t0]);
  const snapshotsIn = (lists: readonly (readonly Write[])[]) =>
    lists.flat().flatMap((w) => (w.op === 'insertSnapshots' ? [[w.roundId, w.rows[0].minute]] : []));

  await at(2910);
  const before = env.store.transactions.length;
  await at(2920); // the first room's minute 3 opens the slot [2920, 2960): stored at once
  expect(env.store.transactions.slice(before).map(snapshotsIn)).toEqual([[[rooms[0].round.id, 3]]]);
  await at(2959); // the second room's minute 2 (started at 2940) waits for the next slot…
  expect(env.store.transactions.length).toBe(before + 1);
  await at(2960); // …and shares its transaction with the third room's minute 1
  expect(env.store.transactions.slice(before + 1).map(snapshotsIn)).toEqual([
    [
      [rooms[1].round.id, 2],
      [rooms[2].round.id, 1],
    ],
  ]);

  // Each is seen at its due time, not before.
  await at(3039);
  expect(sent(1).at(-1)).toEqual([1, 2040]);
  await at(3060);
  expect(sent(0).slice(-2)).toEqual([
    [2, 2020],
    [3, 3020],
  ]);
  expect(sent(1).at(-1)).toEqual([2, 3040]);
  expect(sent(2)).toEqual([
    [0, 2060],
    [1, 3060],
  ]);
  expect(sent(0)[0]).toEqual([0, 20]);
  await manager.close();
});
