// A process whose lease was taken cannot commit a minute. A holds a running room and still believes so (its lease
// lives 60 s here, so its keeper does not notice in time); the lease is made to run out (PEXPIRE) and B takes the
// room. A's next minute is refused by the database (the fence B stored is higher than A's token): nothing stored,
// nothing sent, the room leaves A — and the round goes on at B, whose minute is the only one anyone receives.
import { beforeAll, expect, test } from 'vitest';
import type { SqlStore } from '../../server/db/store.ts';
import type { TeamMinute } from '../../shared/protocol/types.ts';
import { collect, ok, until, type Client } from '../server/helpers.ts';
import { testCluster, type Node } from './nodes.ts';

const cluster = testCluster('fence');
let a: Node;
let b: Node;
let store: SqlStore;

beforeAll(async () => {
  await cluster.services();
  const env = { LEASE_TTL_MS: '60000' };
  [a, b] = await Promise.all([cluster.start('a', env), cluster.start('b', env)]);
  store = await cluster.store();
});

test('the old owner’s minute is refused, nothing of it is stored or sent, and the new owner goes on', async () => {
  const res = await a.post('/api/rooms', {
    simulator: 'web-service',
    scenario: 'traffic-surge',
    teamCount: 2,
    minutes: 10,
    tempo: 1,
    seed: 99,
  });
  expect(res.status).toBe(201);
  const { code, teacherKey } = await res.json();
  const teacher = await a.connect();
  const teacherMinutes = collect(teacher, 'room:minute');
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  const students: { client: Client; minutes: TeamMinute[] }[] = [];
  for (const node of [a, b, b]) {
    const client = await node.connect();
    const minutes = collect(client, 'minute');
    await ok(client, 'student:join', { code, name: `On ${node === a ? 'A' : 'B'} ${students.length}` });
    students.push({ client, minutes });
  }
  await ok(teacher, 'teacher:clock', { action: 'start' });
  for (let m = 1; m <= 2; m++) {
    await a.advance(1000);
    await until(() => students.every((s) => s.minutes.length === m + 1), `minute ${m}`);
  }
  const roundId = students[0].minutes[0].roundId;

  // The lease runs out in Redis; B takes the room and stores its fence. A has not noticed.
  await cluster.redis().pexpire(`opsroom:lease:{${code}}`, 0);
  await b.scan();
  expect((await b.rooms()).held).toEqual([{ code, state: 'running', minute: 2 }]);
  // Taking over, B sends the last stored minute again (a dead owner might not have sent it).
  await until(
    () => students.every((s) => s.minutes.length === 4) && teacherMinutes.length === 4,
    'minute 2 again from B',
  );
  expect((await a.rooms()).held).toEqual([{ code, state: 'running', minute: 2 }]);
  expect(await store.roomByCode(code)).toMatchObject({ fence: 2 });

  // A's clock brings its minute 3: refused by the database, so not stored, not sent; A lets the room go.
  const notices = collect(teacher, 'notice');
  await a.advance(1000);
  const onA = await a.rooms();
  expect(onA.held).toEqual([]);
  expect(onA.events).toContainEqual({
    msg: 'room lost to another process',
    room: code,
    reason: 'a commit was refused: another process stored a newer fence',
  });
  expect(await store.roundById(roundId)).toMatchObject({ state: 'running', minute: 2 });
  expect(Math.max(...(await store.snapshotsOfRound(roundId)).map((s) => s.minute))).toBe(2);

  // B's minute 3 is the only one: had A sent its own, it would have arrived first.
  await b.advance(1000);
  await until(() => students.every((s) => s.minutes.length === 5) && teacherMinutes.length === 5, 'minute 3 from B');
  for (const s of students) expect(s.minutes.map((m) => m.snapshot.minute)).toEqual([0, 1, 2, 2, 3]);
  for (const s of students) expect(s.minutes[3].snapshot).toEqual(s.minutes[2].snapshot);
  expect(teacherMinutes.map((m) => m.minute)).toEqual([0, 1, 2, 2, 3]);
  // Nor was the teacher told of a failed minute: the room is simply somewhere else now.
  expect(notices).toEqual([]);
  const stored = await store.snapshotsOfRound(roundId, { teamId: students[0].minutes[4].teamId });
  expect(stored[3].data).toBe(JSON.stringify(students[0].minutes[4].snapshot));

  // The teacher, still connected to A, now drives the room through B.
  const after = await ok(teacher, 'teacher:clock', { action: 'pause' });
  expect(after.room.round).toMatchObject({ state: 'paused', minute: 3 });
  expect(await store.roundById(roundId)).toMatchObject({ state: 'paused', minute: 3 });
  expect((await a.rooms()).held).toEqual([]);
});
