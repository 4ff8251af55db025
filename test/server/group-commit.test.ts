// Group commit: the rooms whose minute falls due in one turn share one transaction, and none of them
// is seen before that transaction is stored; a failing write list fails its own room only.
import { expect, test } from 'vitest';
import { Committer, RELEASE_CHUNK, RELEASE_SHARE } from '../../server/db/commit.ts';
import type { Write } from '../../server/db/writes.ts';
import { noMetrics } from '../../server/ops/metrics.ts';
import { RoomManager } from '../../server/rooms/manager.ts';
import type { Room } from '../../server/rooms/room.ts';
import { roomEnv } from './rooms.ts';

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

test('commands of one room in one turn are handled in order, each stored before the next starts', async () => {
  const env = roomEnv();
  const { room } = await env.manager.create({ teamCount: 1 });
  const transactions = env.store.transactions.length;
  const names = ['A', 'B', 'C'];
  const joined = await Promise.all(names.map((n) => env.manager.joinStudent(room.code, n)));
  expect(joined.map((j) => j.player.seq)).toEqual([1, 2, 3]);
  expect(env.store.transactions.length).toBe(transactions + 3);
  expect((await env.store.playersOfRoom(room.id)).map((p) => [p.name, p.roles])).toEqual(
    room.view('teacher').players.map((p) => [p.name, p.roles]),
  );
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
  expect(env.store.db.$client.prepare('select id, key_hash from teachers order by id').all()).toEqual([
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

test('minutes due within one beat slot are played together at its end, in one transaction, without drifting', async () => {
  const env = roomEnv();
  const manager = new RoomManager({ ...env.manager.deps, beatSlotMs: 20 });
  const t0 = env.clock.now(); // a multiple of 20 ms
  const started: Room[] = [];
  // Two rooms started 8 ms apart share a slot; a third, 25 ms after the first, falls in the next one.
  for (const offset of [3, 11, 25]) {
    env.clock.advance(t0 + offset - env.clock.now());
    const { room } = await manager.create({ teamCount: 1, tempo: 1, seed: offset });
    await room.dispatch({ type: 'clock', action: 'start' });
    started.push(room);
  }
  const minutesSent = () => started.map((r) => env.out.of('minute').filter((m) => m.roundId === r.round.id).length);
  const transactions = env.store.transactions.length;
  expect(minutesSent()).toEqual([1, 1, 1]);

  env.clock.advance(t0 + 1019 - env.clock.now());
  await manager.settled();
  expect(minutesSent()).toEqual([1, 1, 1]); // due at +1003 and +1011, not played before the slot ends
  env.clock.advance(1);
  await manager.settled();
  expect(minutesSent()).toEqual([2, 2, 1]);
  expect(env.store.transactions.length).toBe(transactions + 1);
  expect(
    env.store.transactions
      .at(-1)!
      .flat()
      .filter((w) => w.op === 'insertSnapshots'),
  ).toHaveLength(2);
  env.clock.advance(20);
  await manager.settled();
  expect(minutesSent()).toEqual([2, 2, 2]);

  // Ten minutes on, each room has played one minute a second: the slots delay, they do not add up.
  env.clock.advance(t0 + 11_040 - env.clock.now());
  await manager.settled();
  expect(minutesSent()).toEqual([12, 12, 12]);
  expect(started.map((r) => r.round.minute)).toEqual([11, 11, 11]);
  expect(
    env.out
      .of('minute')
      .filter((m) => m.roundId === started[0].round.id)
      .map((m) => m.sentAt - t0),
  ).toEqual([3, 1020, 2020, 3020, 4020, 5020, 6020, 7020, 8020, 9020, 10020, 11020]);
  await manager.close();
});

test('with commit slots, what is asked after a slot’s transaction waits for the next slot and goes in one', async () => {
  const env = roomEnv();
  const committer = new Committer(env.store, undefined, 20, env.clock);
  const teacher = (id: number): Write[] => [{ op: 'insertTeacher', id, keyHash: `k${id}`, createdAt: 0 }];
  const start = env.store.transactions.length;
  const done: number[] = [];
  const ask = (id: number) => committer.commit(teacher(id)).then(() => void done.push(id));
  await ask(1); // the slot's first: stored at once
  expect(env.store.transactions.length).toBe(start + 1);

  env.clock.advance(7);
  const later = [ask(2), ask(3)];
  for (let i = 0; i < 5; i++) await turn();
  env.clock.advance(5);
  later.push(ask(4));
  for (let i = 0; i < 5; i++) await turn();
  expect(done).toEqual([1]); // still in the first slot: held
  expect(env.store.transactions.length).toBe(start + 1);

  env.clock.advance(8); // the next slot starts
  await Promise.all(later);
  expect(done).toEqual([1, 2, 3, 4]);
  expect(env.store.transactions.length).toBe(start + 2);
  expect(env.store.transactions.at(-1)!.map((l) => (l[0] as { id: number }).id)).toEqual([2, 3, 4]);
  // A slot with no transaction yet stores at once.
  env.clock.advance(40);
  await ask(5);
  expect(env.store.transactions.length).toBe(start + 3);
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

/**
 * Commits `callers` lists at once (one transaction) and returns, for each turn of the event loop in which some
 * heard theirs, which callers did; `then(i)` runs as caller i hears.
 */
async function toldByTurn(
  committer: Committer,
  env: ReturnType<typeof roomEnv>,
  callers: number,
  then = (_i: number) => {},
) {
  const heard: number[][] = [];
  let turn = 0;
  const asked = Array.from({ length: callers }, (_, i) =>
    committer.commit([{ op: 'insertTeacher', id: 100 + i, keyHash: `chunk${i}`, createdAt: 0 }]).then(async () => {
      // Stored before heard: every caller finds its row.
      expect(await env.store.teacherByKeyHash(`chunk${i}`)).toBe(100 + i);
      heard[turn] ??= [];
      heard[turn].push(i);
      then(i);
    }),
  );
  // Count the turns of the event loop while they are told.
  let counting = true;
  const tick = (): void =>
    void setImmediate(() => {
      turn++;
      if (counting) tick();
    });
  tick();
  await Promise.all(asked);
  await committer.idle();
  counting = false;
  return heard.filter((h) => h?.length);
}

test('the callers of a large stored transaction hear it a few at a time, one turn each, after it is stored', async () => {
  const env = roomEnv();
  const committer = new Committer(env.store);
  const start = env.store.transactions.length;
  // Few enough that a quarter of them is less than a chunk.
  const callers = 3 * RELEASE_CHUNK + 1;
  expect(Math.ceil(callers * RELEASE_SHARE)).toBeLessThanOrEqual(RELEASE_CHUNK);
  const told = await toldByTurn(committer, env, callers);
  expect(env.store.transactions.length).toBe(start + 1);
  expect(told.map((h) => h.length)).toEqual([RELEASE_CHUNK, RELEASE_CHUNK, RELEASE_CHUNK, 1]);
  expect(told.flat()).toEqual(Array.from({ length: callers }, (_, i) => i));
});

test('a backlog of callers is told faster, a share of it a turn, and a later transaction waits its turn', async () => {
  const env = roomEnv();
  const committer = new Committer(env.store);
  const callers = 40;
  let late: Promise<void> | null = null;
  const order: string[] = [];
  const start = env.store.transactions.length;
  let storedWhenLastHeard = 0;
  const told = await toldByTurn(committer, env, callers, (i) => {
    order.push(`first ${i}`);
    if (i === callers - 1) storedWhenLastHeard = env.store.transactions.length - start;
    // A list asked for as the first callers hear theirs: its own transaction, stored while the rest are told.
    late ??= committer
      .commit([{ op: 'insertTeacher', id: 999, keyHash: 'late', createdAt: 0 }])
      .then(() => void order.push('late'));
  });
  await late;
  const sizes = told.map((h) => h.length);
  // A quarter of what is still to be told, never fewer than a chunk: 10 of 40 at once, then fewer as it clears.
  expect(sizes[0]).toBe(Math.ceil(callers * RELEASE_SHARE));
  for (let k = 1; k < sizes.length; k++) {
    expect(sizes[k]).toBeLessThanOrEqual(sizes[k - 1]);
    expect(sizes[k]).toBeGreaterThanOrEqual(
      Math.min(RELEASE_CHUNK, callers - sizes.slice(0, k).reduce((a, b) => a + b)),
    );
  }
  expect(sizes.reduce((a, b) => a + b)).toBe(callers);
  expect(sizes.length).toBeLessThan(callers / RELEASE_CHUNK);
  // The later transaction was stored before the first one's callers had all heard, and still heard after them.
  expect(storedWhenLastHeard).toBe(2);
  expect(order.at(-1)).toBe('late');
  expect(order.filter((o) => o !== 'late')).toEqual(Array.from({ length: callers }, (_, i) => `first ${i}`));
});
