// A minute started ahead of its due time (RoomDeps.minuteLeadMs): computed and stored early, seen at its time —
// not before, and with what was stored; a command that comes meanwhile waits for it; a slow disk still counts late.
import { expect, test } from 'vitest';
import type { Write } from '../../server/db/writes.ts';
import { noMetrics } from '../../server/ops/metrics.ts';
import { RoomManager } from '../../server/rooms/manager.ts';
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
