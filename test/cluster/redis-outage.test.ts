// Redis goes away (SIGKILL: connections drop at once) while a class runs on two processes, for longer than the
// 20 retries after which ioredis fails what waits (a process used to exit on an unhandled MaxRetriesPerRequestError
// some 30 s into such an outage, after answering every change INTERNAL with a stack in the log). Now: both
// processes live through it; the room holds its clock and refuses changes with UNAVAILABLE, every page is told once,
// each process says it once in its log; when Redis is back — empty, as a restart without persistence — the owner
// takes its lease again (nobody else takes the room) and the round goes on where it was.
import { beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import type { ProtocolNotice, TeamMinute } from '../../shared/protocol/types.ts';
import { type Client, collect, ok, request, until } from '../server/helpers.ts';
import { type Node, testCluster } from './nodes.ts';

const TEMPO_MS = 2000;
const cluster = testCluster('redisout');
let a: Node;
let b: Node;
let services: Awaited<ReturnType<typeof cluster.services>>;

beforeAll(async () => {
  services = await cluster.services();
  [a, b] = await Promise.all([cluster.start('a'), cluster.start('b')]);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a Redis outage of 40 s: both processes live, the room waits with a clear word, then goes on where it was', async () => {
  const res = await a.post('/api/rooms', { teamCount: 1, minutes: 30, tempo: TEMPO_MS / 1000, seed: 5 });
  const { code, teacherKey } = await res.json();
  const teacher = await a.connect();
  const teacherNotices = collect(teacher, 'notice');
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  // Four students, owning the four roles: two on the owner, two on the other process.
  const students: { node: Node; client: Client; minutes: TeamMinute[]; notices: ProtocolNotice[]; playerId: number }[] =
    [];
  for (const node of [a, b, a, b]) {
    const client = await node.connect();
    const minutes = collect(client, 'minute');
    const notices = collect(client, 'notice');
    const joined: any = await ok(client, 'student:join', { code, name: `S${students.length}` });
    students.push({ node, client, minutes, notices, playerId: joined.playerId as number });
  }
  const started = await ok(teacher, 'teacher:clock', { action: 'start' });
  const scaler = students.find((s) =>
    started.room.players.find((p: any) => p.id === s.playerId).roles.includes('scaling'),
  )!;
  await a.advance(TEMPO_MS);
  await until(() => students.every((s) => s.minutes.length === 2), 'minute 1 everywhere');

  // ── Redis goes ──
  await services.redis.down();
  await until(() => students.every((s) => s.notices.length === 1), 'every student told', 10_000);
  for (const s of students) expect(s.notices[0]).toMatchObject({ code: 'CLUSTER_UNAVAILABLE' });
  // A change, through either process: refused at once, in the one error shape, nothing changed.
  for (const s of students) {
    const t0 = Date.now();
    const r = await request(s.client, 'student:control', { key: 'servers', value: 9 });
    expect(r).toMatchObject({
      ok: false,
      error: { code: 'UNAVAILABLE', message: expect.stringMatching(/nothing changed/) },
    });
    expect(Date.now() - t0).toBeLessThan(3000);
  }
  // The clock holds: no minute, whatever the time.
  await a.advance(TEMPO_MS * 3);
  // Pages come and go meanwhile: a student leaves from each process, a feed client tries to follow the room.
  students[2].client.disconnect();
  students[3].client.disconnect();
  const feed = new WebSocket(`${b.url.replace('http', 'ws')}/api/rooms/${code}/feed`);
  const feedSaid = await new Promise<string>((resolve) => {
    feed.once('message', (d) => resolve(String(d)));
    feed.once('close', () => resolve('closed'));
    feed.once('error', () => resolve('error'));
  });
  expect(feedSaid).toMatch(/UNAVAILABLE|closed/);
  // Longer than ioredis's 20 retries (about 10 s) and than the 30 s after which the processes used to exit.
  await sleep(40_000);
  expect(a.alive() && b.alive()).toBe(true);
  expect(students[0].minutes.length).toBe(2);
  expect(teacherNotices.filter((n) => n.code === 'TICK_FAILED')).toEqual([]);

  // ── Redis is back, empty ──
  await services.redis.up();
  await until(
    () => students.slice(0, 2).every((s) => s.notices.some((n) => n.code === 'RESUMED')),
    'told it goes on',
    15_000,
  );
  // The owner took its room back: the last minute once more, then the next one a tempo on, on both processes.
  await a.advance(TEMPO_MS);
  await until(
    () => students.slice(0, 2).every((s) => s.minutes.some((m: TeamMinute) => m.snapshot.minute === 2)),
    'minute 2 after the outage',
  );
  expect(await a.rooms()).toMatchObject({ held: [{ code, state: 'running', minute: 2 }] });
  expect((await b.rooms()).held).toEqual([]);
  const change = await ok(scaler.client, 'student:control', { key: 'servers', value: 11 });
  expect(change.change.minute).toBe(3);

  // Said once each way by each process; no internal error, no room lost, no lease "held by another process".
  for (const node of [a, b]) {
    const { logs, events } = await node.rooms();
    expect(logs.filter((l) => /lost the connection to Redis/.test(l.msg))).toHaveLength(1);
    expect(logs.filter((l) => /connected to Redis again/.test(l.msg))).toHaveLength(1);
    expect(logs.filter((l) => l.level >= 50)).toEqual([]);
    expect(events.filter((e) => e.msg === 'room lost to another process')).toEqual([]);
    expect(logs.length).toBeLessThan(10);
  }
}, 120_000);

test('Redis restarted in a moment: the lease is taken again, not said to be another process’s', async () => {
  const res = await a.post('/api/rooms', { teamCount: 1, minutes: 30, tempo: TEMPO_MS / 1000, seed: 6 });
  const { code, teacherKey } = await res.json();
  const teacher = await b.connect();
  const minutes = collect(teacher, 'room:minute');
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  await ok(teacher, 'teacher:clock', { action: 'start' });
  await services.redis.down();
  await services.redis.up();
  // A lease's renewal finds no lease: it is taken again, with a higher token stored as the fence.
  await sleep(5000);
  const before = minutes.length;
  await a.advance(TEMPO_MS);
  await until(() => minutes.length > before, 'the next minute', 10_000);
  expect(await a.rooms()).toMatchObject({ held: expect.arrayContaining([{ code, state: 'running', minute: 1 }]) });
  for (const node of [a, b]) {
    const { logs, events } = await node.rooms();
    expect(events.filter((e) => e.room === code && e.msg === 'room lost to another process')).toEqual([]);
    expect(logs.filter((l) => /another process holds the lease/.test(l.msg))).toEqual([]);
  }
}, 60_000);
