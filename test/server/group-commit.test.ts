// Group commit: the rooms whose minute falls due in one turn share one transaction, and none of them is seen before
// that transaction is stored; a room takes every input waiting at once, in one commit; a failing write list fails
// its own room (or input) only.
import { expect, test } from 'vitest';
import { Committer } from '../../server/db/commit.ts';
import type { Write } from '../../server/db/writes.ts';
import { noMetrics } from '../../server/lib/metrics.ts';
import { RoomManager } from '../../server/rooms/manager.ts';
import { roomEnv } from './rooms.ts';
import { joinStudent } from './seats.ts';

const turn = () => new Promise((r) => setImmediate(r));

test('two rooms due in the same turn commit in one transaction, and neither is broadcast before it is stored', async () => {
  const env = roomEnv();
  const a = (await env.manager.create({ teamCount: 2, tempo: 1, seed: 1 })).room;
  const b = (await env.manager.create({ teamCount: 3, tempo: 1, seed: 2, simulator: 'web-service' })).room;
  await Promise.all([a.dispatch({ type: 'clock', action: 'start' }), b.dispatch({ type: 'clock', action: 'start' })]);
  const sentMinutes = () => env.out.of('minute').filter((m) => m.snapshot.minute === 1);
  const transactions = env.store.transactions.length;

  let release = () => {};
  env.store.hold = new Promise((r) => (release = r));
  env.clock.advance(1000);
  while (env.store.transactions.length === transactions) await turn();
  for (let i = 0; i < 5; i++) await turn();
  // One transaction holds both rooms' minute; it is not stored yet, so nobody has seen minute 1.
  expect(env.store.transactions.length).toBe(transactions + 1);
  const batch = env.store.transactions[transactions];
  const snapshotsOf = (roundId: number) =>
    batch.flat().filter((w) => w.op === 'insertSnapshots' && w.roundId === roundId);
  expect(batch).toHaveLength(2);
  expect(snapshotsOf(a.round.id)).toHaveLength(1);
  expect(snapshotsOf(b.round.id)).toHaveLength(1);
  expect(sentMinutes()).toEqual([]);
  expect([a.round.minute, b.round.minute]).toEqual([0, 0]);

  env.store.hold = null;
  release();
  await env.manager.settled();
  expect([a.round.minute, b.round.minute]).toEqual([1, 1]);
  expect(
    sentMinutes()
      .map((m) => m.roundId)
      .sort(),
  ).toEqual([a.round.id, a.round.id, b.round.id, b.round.id, b.round.id].sort());
  expect(env.store.transactions.length).toBe(transactions + 1);
  expect((await env.store.roundById(a.round.id))?.minute).toBe(1);
  expect((await env.store.roundById(b.round.id))?.minute).toBe(1);
});

test('a minute is measured from when it fell due to its broadcast: a late start and a slow disk both count', async () => {
  const delays: number[] = [];
  const env = roomEnv({ metrics: { ...noMetrics, minuteDelay: (ms) => void delays.push(ms) } });
  const a = (await env.manager.create({ teamCount: 2, tempo: 1, seed: 1 })).room;
  await a.dispatch({ type: 'clock', action: 'start' });
  // On time, on a quick disk: out when due.
  await env.advance(1000);
  expect(delays).toEqual([0]);

  // Minute 2 falls due at 2000; the clock is 40 ms on before the room gets to it, and its transaction then waits
  // 250 ms for the disk.
  let release = () => {};
  env.store.hold = new Promise((r) => (release = r));
  const transactions = env.store.transactions.length;
  env.clock.advance(1040);
  while (env.store.transactions.length === transactions) await turn();
  env.clock.advance(250);
  env.store.hold = null;
  release();
  await env.manager.settled();
  expect(a.round.minute).toBe(2);
  expect(delays).toEqual([0, 290]);

  // A beat that plays nothing (the round paused meanwhile) is not a minute, and is not measured.
  await a.dispatch({ type: 'clock', action: 'pause' });
  await env.advance(5000);
  expect(delays).toEqual([0, 290]);
});

test('inputs of one room in one turn are handled in order and stored in one commit', async () => {
  const env = roomEnv();
  const { room } = await env.manager.create({ teamCount: 1 });
  const transactions = env.store.transactions.length;
  const names = ['A', 'B', 'C'];
  const joined = await Promise.all(names.map((n) => joinStudent(env.manager, room.code, n)));
  expect(joined.map((j) => j.player.seq)).toEqual([1, 2, 3]);
  expect(env.store.transactions.length).toBe(transactions + 1);
  expect((await env.store.playersOfRoom(room.id)).map((p) => [p.name, p.roles])).toEqual(
    room.view('teacher').players.map((p) => [p.name, p.roles]),
  );
});

/** A room of one team of twelve, running, each student holding a control of their own where there are enough. */
async function classOfTwelve() {
  const env = roomEnv();
  const { room } = await env.manager.create({ teamCount: 1, tempo: 5, seed: 3, minutes: 30 });
  const students = [];
  for (let i = 0; i < 12; i++) students.push((await joinStudent(env.manager, room.code, `S${i}`)).player);
  await room.dispatch({ type: 'clock', action: 'start' });
  // The scaler, who owns `servers`.
  const scaler = students.find((p) => room.player(p.id)?.roles.includes('scaling'));
  if (!scaler) throw new Error('nobody holds the scaling role');
  return { env, room, scaler };
}

test('twelve changes sent at once are acknowledged together, after one commit', async () => {
  const { env, room, scaler } = await classOfTwelve();
  const transactions = env.store.transactions.length;
  const acked: number[] = [];
  const sends = Array.from({ length: 12 }, (_, i) =>
    room
      .dispatch({ type: 'control', playerId: scaler.id, key: 'servers', value: 5 + (i % 6) })
      .then(() => void acked.push(env.store.transactions.length - transactions)),
  );
  await Promise.all(sends);
  // One transaction for the twelve, and every acknowledgement after it.
  expect(env.store.transactions.length).toBe(transactions + 1);
  expect(acked).toEqual(Array(12).fill(1));
  const stored = await env.store.changesOfRound(room.round.id);
  expect(stored.map((c) => c.value)).toEqual(Array.from({ length: 12 }, (_, i) => 5 + (i % 6)));
  // In the order sent: the last one is the one in force.
  expect(env.out.of('pending', 'team').map((c) => c.value)).toEqual(stored.map((c) => c.value));
});

test('a refused input in a batch changes nothing; the others of the batch are stored', async () => {
  const { env, room, scaler } = await classOfTwelve();
  const results = await Promise.allSettled([
    room.dispatch({ type: 'control', playerId: scaler.id, key: 'servers', value: 7 }),
    room.dispatch({ type: 'control', playerId: scaler.id, key: 'servers', value: 7.5 }),
    room.dispatch({ type: 'control', playerId: scaler.id, key: 'servers', value: 9 }),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect((await env.store.changesOfRound(room.round.id)).map((c) => c.value)).toEqual([7, 9]);
});

test('when a batch cannot be stored, each input is tried alone: only the one whose write fails fails', async () => {
  const { env, room, scaler } = await classOfTwelve();
  const transactions = env.store.transactions.length;
  env.store.failWhen = (lists) =>
    lists.flat().some((w) => w.op === 'insertChanges' && w.changes.some((c) => c.value === 8));
  const results = await Promise.allSettled(
    [7, 8, 9].map((value) => room.dispatch({ type: 'control', playerId: scaler.id, key: 'servers', value })),
  );
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  // The batch, then each alone.
  expect(env.store.transactions.length).toBe(transactions + 4);
  expect((await env.store.changesOfRound(room.round.id)).map((c) => c.value)).toEqual([7, 9]);
  expect(env.out.of('pending', 'team').map((c) => c.value)).toEqual([7, 9]);
});

test('changes waiting when a minute falls due go with it: the minute is not held behind them', async () => {
  const delays: number[] = [];
  const env = roomEnv({ metrics: { ...noMetrics, minuteDelay: (ms) => void delays.push(ms) } });
  const { room } = await env.manager.create({ teamCount: 1, tempo: 1, seed: 4, minutes: 30 });
  const scaler = (await joinStudent(env.manager, room.code, 'Solo')).player;
  await room.dispatch({ type: 'clock', action: 'start' });
  // A slow disk holds one commit while ninety changes and the minute pile up behind it.
  let release = () => {};
  env.store.hold = new Promise((r) => (release = r));
  const transactions = env.store.transactions.length;
  const first = room.dispatch({ type: 'control', playerId: scaler.id, key: 'servers', value: 6 });
  while (env.store.transactions.length === transactions) await turn();
  const queued = Array.from({ length: 90 }, (_, i) =>
    room.dispatch({ type: 'control', playerId: scaler.id, key: 'servers', value: 5 + (i % 8) }),
  );
  env.clock.advance(1000);
  env.store.hold = null;
  release();
  await Promise.all([first, ...queued]);
  await env.manager.settled();
  // Two commits: the one held, then the ninety and the minute together.
  expect(env.store.transactions.length).toBe(transactions + 2);
  expect(room.round.minute).toBe(1);
  expect(delays).toEqual([0]);
});

test('when the shared transaction fails, each list is tried alone: only the bad one fails', async () => {
  const env = roomEnv();
  const committer = new Committer(env.store);
  const teacher = (id: number, keyHash: string): Write[] => [{ op: 'insertTeacher', id, keyHash, createdAt: 0 }];
  // The second list repeats the first's key: the unique index refuses it.
  const results = await Promise.allSettled([
    committer.commit(teacher(1, 'k1')),
    committer.commit(teacher(2, 'k1')),
    committer.commit(teacher(3, 'k3')),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  // One shared attempt, then one per list.
  expect(env.store.transactions.map((t) => t.length)).toEqual([3, 1, 1, 1]);
  expect(env.store.sqlite.prepare('select id, key_hash from teachers order by id').all()).toEqual([
    { id: 1, key_hash: 'k1' },
    { id: 3, key_hash: 'k3' },
  ]);
  // Nothing asked, nothing written; a flush waits for the one before it.
  await committer.commit([]);
  await committer.idle();
  expect(env.store.transactions).toHaveLength(4);
});

test('after a restart, the pauses of every interrupted room share one transaction, whatever their sizes', async () => {
  const env = roomEnv();
  const rooms = [];
  for (const teamCount of [1, 4, 9]) {
    const { room } = await env.manager.create({ teamCount, tempo: 1, minutes: 30 });
    await room.dispatch({ type: 'clock', action: 'start' });
    rooms.push(room);
  }
  await env.advance(3000);
  // The process stops (its timers with it); another starts on the same database.
  await env.manager.close();
  const restarted = new RoomManager(env.manager.deps);
  const transactions = env.store.transactions.length;
  const back = await restarted.recover();
  expect(back.map((r) => r.code).sort()).toEqual(rooms.map((r) => r.code).sort());
  expect(back.every((r) => r.round.state === 'paused')).toBe(true);
  expect(env.store.transactions.length).toBe(transactions + 1);
  expect(env.store.transactions[transactions]).toHaveLength(3);
});

test('a round whose start took long to store still plays minute 1 one tempo after minute 0 was sent', async () => {
  const env = roomEnv();
  const { room } = await env.manager.create({ teamCount: 1, tempo: 1, seed: 1 });
  const t0 = env.clock.now();
  let release = () => {};
  env.store.hold = new Promise((r) => (release = r));
  const started = room.dispatch({ type: 'clock', action: 'start' });
  for (let i = 0; i < 5; i++) await turn();
  env.clock.advance(400); // the disk is slow: the start is stored 400 ms later
  env.store.hold = null;
  release();
  await started;
  const minutes = () => env.out.of('minute').map((m) => [m.snapshot.minute, m.sentAt - t0]);
  expect(minutes()).toEqual([[0, 0]]);
  env.clock.advance(600);
  await env.manager.settled();
  expect(minutes()).toEqual([
    [0, 0],
    [1, 1000],
  ]);
});

test('a pause and a resume taken in one batch plan the next minute from the resume', async () => {
  const env = roomEnv();
  const { room } = await env.manager.create({ teamCount: 1, tempo: 2, seed: 1 });
  await room.dispatch({ type: 'clock', action: 'start' });
  const t0 = env.clock.now();
  env.clock.advance(1500);
  await Promise.all([
    room.dispatch({ type: 'clock', action: 'pause' }),
    room.dispatch({ type: 'clock', action: 'resume' }),
  ]);
  expect(room.round.state).toBe('running');
  // Due two seconds after the resume, not at the first plan's t0 + 2000.
  await env.advance(1999);
  expect(room.round.minute).toBe(0);
  await env.advance(1);
  expect(room.round.minute).toBe(1);
  expect(env.out.of('minute').at(-1)?.sentAt).toBe(t0 + 3500);
});

test('a burst of large write lists is stored a few hundred rows a transaction, with turns of the event loop between', async () => {
  const env = roomEnv();
  const committer = new Committer(env.store);
  // Lists of 250 rows each (a what-if's copied minutes are of this size): two fit in a transaction, not three.
  const list = (id: number): Write[] => [
    { op: 'insertTeacher', id, keyHash: `k${id}`, createdAt: 0 },
    { op: 'insertRoleChanges', changes: [] },
    {
      op: 'insertSnapshots',
      roundId: 0,
      rows: Array.from({ length: 248 }, (_, minute) => ({ teamId: 0, minute, data: '{}' })),
    },
  ];
  const lists = [1, 2, 3, 4, 5].map(list);
  const seen: string[] = [];
  const real = env.store.commit.bind(env.store);
  env.store.commit = async (batch) => {
    seen.push(`transaction of ${batch.length}`);
    // The snapshots themselves are left out: their round does not exist; the weighing is what is tested.
    return real(batch.map((l) => l.filter((w) => w.op === 'insertTeacher')));
  };
  const done = Promise.all(lists.map((l) => committer.commit(l)));
  // Something else that waits for a turn of the event loop, like a room's due minute.
  const other = (async () => {
    for (let i = 0; i < 3; i++) {
      await turn();
      seen.push('turn');
    }
  })();
  await Promise.all([done, other]);
  const transactions = seen.filter((s) => s.startsWith('transaction'));
  expect(transactions).toEqual(['transaction of 2', 'transaction of 2', 'transaction of 1']);
  // The other work ran between the transactions, not after all of them.
  expect(seen.indexOf('turn')).toBeLessThan(seen.lastIndexOf('transaction of 2'));
  expect(env.store.sqlite.prepare('select count(*) as n from teachers').get()).toEqual({ n: 5 });
});
