// PostgreSQL goes away while a class runs on two processes. A restart while minutes are being committed must not
// crash the owner (it once did, 1 run in 3: an `error` on a client checked out for a transaction, which the pool's
// listener for idle clients does not cover). An outage: the round waits at its last stored minute and every page of
// the room is told once (not the teacher every second and the students nothing); readiness says no on every
// process while liveness says yes (a load balancer must not restart the whole pool); when the database is back
// the round goes on by itself.
import { beforeAll, expect, test } from 'vitest';
import type { ProtocolNotice, TeamMinute } from '../../shared/protocol/types.ts';
import { type Client, collect, ok, request, until } from '../server/helpers.ts';
import { type Node, testCluster } from './nodes.ts';

const TEMPO_MS = 1000;
const cluster = testCluster('pgout');
let a: Node;
let b: Node;
let services: Awaited<ReturnType<typeof cluster.services>>;

beforeAll(async () => {
  services = await cluster.services();
  [a, b] = await Promise.all([cluster.start('a'), cluster.start('b')]);
});

const get = async (n: Node, path: string) => {
  const r = await fetch(`${n.url}${path}`);
  return { status: r.status, body: await r.json() };
};

async function classOn(owner: Node, others: Node) {
  const res = await owner.post('/api/rooms', { teamCount: 1, minutes: 240, tempo: TEMPO_MS / 1000, seed: 9 });
  const { code, teacherKey } = await res.json();
  const teacher = await owner.connect();
  const teacherNotices = collect(teacher, 'notice');
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  const students: { client: Client; minutes: TeamMinute[]; notices: ProtocolNotice[]; joined: any }[] = [];
  for (const node of [owner, others]) {
    const client = await node.connect();
    const joined: any = await ok(client, 'student:join', { code, name: `S${students.length}` });
    students.push({ client, minutes: collect(client, 'minute'), notices: collect(client, 'notice'), joined });
  }
  const started = await ok(teacher, 'teacher:clock', { action: 'start' });
  return { code, teacher, teacherNotices, students, started };
}

test('PostgreSQL restarted three times while minutes are committed: the owner lives, the round goes on', async () => {
  const { students, started } = await classOn(a, b);
  const scaler = students.find((s) =>
    started.room.players.find((p: any) => p.id === s.joined.playerId).roles.includes('scaling'),
  );
  for (let restart = 0; restart < 3; restart++) {
    // Minutes and changes on their way to the database while it is shut down (fast: sessions ended at once).
    let busy = true;
    const load = (async () => {
      let v = 0;
      while (busy) {
        await Promise.all([
          a.advance(TEMPO_MS).catch(() => undefined),
          scaler ? request(scaler.client, 'student:control', { key: 'servers', value: 4 + (v++ % 10) }) : null,
        ]);
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    await services.postgres.down();
    await new Promise((r) => setTimeout(r, 500));
    await services.postgres.up();
    busy = false;
    await load;
    expect(a.alive() && b.alive()).toBe(true);
  }
  // The round goes on: the next minute is stored and reaches both processes' students.
  const before = students.map((s) => s.minutes.length);
  await a.advance(TEMPO_MS);
  await until(() => students.every((s, i) => s.minutes.length > before[i]), 'a minute after the restarts', 15_000);
  const { logs } = await a.rooms();
  expect(logs.filter((l) => l.level >= 60)).toEqual([]);
}, 120_000);

test('a PostgreSQL outage: the room waits and says so once to everyone, readiness says no, then it goes on', async () => {
  const { code, students, teacherNotices, started } = await classOn(a, b);
  const roundId = started.room.round.id;
  await a.advance(TEMPO_MS);
  await until(() => students.every((s) => s.minutes.length === 2), 'minute 1');
  expect((await get(a, '/api/ready')).status).toBe(200);

  await services.postgres.down();
  // Three beats fail: one notice to every page of the room, on both processes; the teacher is not told each second.
  for (let i = 0; i < 3; i++) await a.advance(TEMPO_MS);
  await until(() => students.every((s) => s.notices.length === 1), 'every student told');
  for (const s of students) expect(s.notices[0]).toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
  expect(teacherNotices.map((n) => n.code)).toEqual(['STORAGE_UNAVAILABLE']);
  expect(students[0].minutes).toHaveLength(2);
  // A change is refused with nothing changed.
  const scaler = students.find((s) =>
    started.room.players.find((p: any) => p.id === s.joined.playerId).roles.includes('scaling'),
  )!;
  const refused = await request(scaler.client, 'student:control', { key: 'servers', value: 9 });
  expect(refused.ok).toBe(false);
  expect(refused.error.code).toMatch(/STORAGE_FAILED|UNAVAILABLE/);
  // Readiness no on both processes (their probes are each 5 s of their own clock apart), liveness yes.
  for (const node of [a, b]) {
    await node.advance(5000);
    const ready = await get(node, '/api/ready');
    expect(ready).toMatchObject({
      status: 503,
      body: { ready: false, reasons: ['the database cannot be written'], database: { writable: false } },
    });
    expect(await get(node, '/api/health')).toMatchObject({ status: 200, body: { ok: true } });
  }

  await services.postgres.up();
  // The next beat stores the next minute: everyone is told the round goes on, and gets it.
  // The pool finds its connections broken and opens new ones: a beat or two may still fail.
  for (let i = 0; i < 10 && !students.every((s) => s.minutes.length > 2); i++) {
    await a.advance(TEMPO_MS);
    await new Promise((r) => setTimeout(r, 200));
  }
  await until(() => students.every((s) => s.minutes.length > 2), 'a minute after the outage');
  await until(() => students.every((s) => s.notices.some((n) => n.code === 'RESUMED')), 'told it goes on');
  expect(students[0].minutes.at(-1)?.snapshot.minute).toBe(2);
  for (const node of [a, b]) {
    await node.advance(5000);
    expect((await get(node, '/api/ready')).status).toBe(200);
  }
  // Said once, not once a beat: the failure when it began (its change refused meanwhile included), the return.
  const logs = (await a.rooms()).logs.filter((l) => l.room === code);
  expect(logs.filter((l) => l.msg === 'could not store a change of the room')).toHaveLength(1);
  expect(logs.filter((l) => l.msg === 'the room stores again')).toHaveLength(1);
  expect((await get(a, `/api/rooms/${code}`)).body).toMatchObject({ state: 'running' });
  expect(roundId).toBeGreaterThan(0);
}, 120_000);
