// Rounds cannot be made without bound (before: one anonymous address made 3,247 finished rounds in 40 s and a
// history of 8.7 MB): rounds started per teacher and per address, rounds per room, the team-minutes a teacher's
// rooms keep, and the teacher's history a page at a time behind a limit of its own.
import { io as ioClient } from 'socket.io-client';
import { afterEach, describe, expect, test } from 'vitest';
import { LIMITS } from '../../shared/protocol/types.ts';
import { parseTrustProxy } from '../../server/http/client-address.ts';
import { DEFAULT_ROUND_LIMITS, type RoundLimits } from '../../server/rooms/quotas.ts';
import { type Client, createRoom, ok, refusals, request, startServer, type TestServer } from '../server/helpers.ts';

let server: TestServer;
afterEach(async () => server?.close());

/** A socket.io client whose address (behind the trusted proxy) is `ip`. */
function connectFrom(ip: string): Promise<Client> {
  const c: Client = ioClient(server.url, {
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    extraHeaders: { 'x-forwarded-for': ip },
  });
  server.clients.push(c);
  return new Promise((resolve, reject) => {
    c.once('connect', () => resolve(c));
    c.once('connect_error', reject);
  });
}

/** A server whose round limits are the defaults but for `rounds`; the other limits out of the way. */
async function serve(rounds: Partial<RoundLimits> = {}) {
  const many = { capacity: 100_000, refillPerSecond: 1000 };
  server = await startServer({
    trustProxy: parseTrustProxy('loopback'),
    roomLimits: { rounds: { ...DEFAULT_ROUND_LIMITS, ...rounds }, creations: many, liveRooms: 1000 },
    connectionLimits: { events: many, packets: many, addressPackets: many, heavyRequests: many },
    realtimeLimits: { join: many, seats: many },
  });
}
const UNLIMITED_STARTS = {
  starts: { teacher: { capacity: 1000, refillPerSecond: 1 }, address: { capacity: 1000, refillPerSecond: 1 } },
};

/** A room of `teams` teams with its teacher's socket joined, from `ip`. */
async function teacherRoom(ip: string, body: object = { teamCount: 1, minutes: 5 }, key?: string) {
  const room = await createRoom(server, body, key);
  const t = await connectFrom(ip);
  await ok(t, 'teacher:join', { code: room.code, key: room.teacherKey });
  return { ...room, t };
}

/** start, end, next: one round made and finished. */
async function cycle(t: Client): Promise<{ ok: boolean; error?: { code: string; message: string } }> {
  const started = await request(t, 'teacher:clock', { action: 'start' });
  if (!started.ok) return started;
  await ok(t, 'teacher:clock', { action: 'end' });
  await ok(t, 'teacher:clock', { action: 'next' });
  return started;
}

describe('rounds started', () => {
  test('a teacher starts 20 rounds in a burst, then one every 3 minutes; another teacher is not held back', async () => {
    await serve();
    const a = await teacherRoom('10.0.0.1');
    for (let i = 0; i < 20; i++) expect((await cycle(a.t)).ok).toBe(true);
    const refused = await cycle(a.t);
    expect(refused).toMatchObject({ ok: false, error: { code: 'RATE_LIMITED' } });
    expect(refused.error?.message).toMatch(/started many rounds/);
    // Nothing was started: the round still waits in the lobby.
    const { room } = await ok(a.t, 'teacher:join', { code: a.code, key: a.teacherKey });
    expect(room.round).toMatchObject({ state: 'lobby', number: 21 });
    // Another teacher from another address starts at once.
    const b = await teacherRoom('10.0.0.2');
    expect((await cycle(b.t)).ok).toBe(true);
    expect(await refusals(server, 'rounds:teacher')).toBe(1);
    // Three minutes on, one more.
    server.clock.advance(180_000);
    expect((await cycle(a.t)).ok).toBe(true);
    expect((await cycle(a.t)).ok).toBe(false);
  });

  test('the teachers of one address share 30 starts in a burst, then one a minute', async () => {
    await serve({
      starts: { teacher: { capacity: 1000, refillPerSecond: 1 }, address: { capacity: 30, refillPerSecond: 1 / 60 } },
    });
    let made = 0;
    let refused: { code: string; message: string } | undefined;
    // New rooms, each with a teacher of its own, all from one address.
    for (let i = 0; i < 8 && !refused; i++) {
      const r = await teacherRoom('10.0.0.3');
      for (let k = 0; k < 5 && !refused; k++) {
        const c = await cycle(r.t);
        if (c.ok) made++;
        else refused = c.error;
      }
    }
    expect(made).toBe(30);
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/from this address/) });
    // Another address is not held back; a minute later this one starts once more.
    expect((await cycle((await teacherRoom('10.0.0.4')).t)).ok).toBe(true);
    server.clock.advance(60_000);
    expect((await cycle((await teacherRoom('10.0.0.3')).t)).ok).toBe(true);
  });

  test('an IPv6 address counts by its /64', async () => {
    await serve({
      starts: { teacher: { capacity: 1000, refillPerSecond: 1 }, address: { capacity: 3, refillPerSecond: 0.001 } },
    });
    const addrs = ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::9'];
    for (const ip of addrs) expect((await cycle((await teacherRoom(ip)).t)).ok).toBe(true);
    expect((await cycle((await teacherRoom('2001:db8:1:2::77')).t)).error?.code).toBe('RATE_LIMITED');
    expect((await cycle((await teacherRoom('2001:db8:1:3::1')).t)).ok).toBe(true);
  });
});

test(`a room keeps ${LIMITS.roundsPerRoom} rounds: the next one is refused with ROUND_LIMIT`, async () => {
  await serve(UNLIMITED_STARTS);
  const r = await teacherRoom('10.0.0.5');
  for (let i = 1; i < LIMITS.roundsPerRoom; i++) await cycle(r.t);
  await ok(r.t, 'teacher:clock', { action: 'start' });
  await ok(r.t, 'teacher:clock', { action: 'end' });
  const refused = await request(r.t, 'teacher:clock', { action: 'next' });
  expect(refused).toMatchObject({ ok: false, error: { code: 'ROUND_LIMIT' } });
  expect(refused.error.message).toMatch(/open a new room/);
  const { room } = await ok(r.t, 'teacher:join', { code: r.code, key: r.teacherKey });
  expect(room.round).toMatchObject({ number: LIMITS.roundsPerRoom, state: 'finished' });
});

test('a teacher whose rooms keep their quota of team-minutes starts no round and makes no what-if', async () => {
  // 183 team-minutes: three running rounds of one team × 60 minutes (61 each: their whole length, which they may
  // still reach) fill it.
  await serve({ teacherMinutes: 183 });
  const first = await teacherRoom('10.0.0.6', { teamCount: 1, minutes: 60 });
  const key = first.teacherKey;
  const rooms = [first, await teacherRoom('10.0.0.6', { teamCount: 1, minutes: 60 }, key)];
  rooms.push(await teacherRoom('10.0.0.6', { teamCount: 1, minutes: 60 }, key));
  const started = [];
  for (const r of rooms) started.push(await ok(r.t, 'teacher:clock', { action: 'start' }));
  const fourth = await teacherRoom('10.0.0.6', { teamCount: 1, minutes: 60 }, key);
  const refused = await request(fourth.t, 'teacher:clock', { action: 'start' });
  expect(refused).toMatchObject({ ok: false, error: { code: 'STORAGE_QUOTA' } });
  expect(refused.error.message).toMatch(/keep 183 team-minutes and this round needs 61.*183/);
  // A what-if stores minutes too: refused in the one error shape, nothing made.
  const round = started[0].room.round;
  const fork = await server.app.inject({
    method: 'POST',
    url: `/api/rounds/${round.id}/fork`,
    headers: { authorization: `Bearer ${key}` },
    payload: { teamId: started[0].room.teams[0].id, minute: 0 },
  });
  expect(fork.statusCode).toBe(409);
  expect(fork.json().error.code).toBe('STORAGE_QUOTA');
  // Ending rounds early frees what they will not use: each keeps its one minute of 61.
  await ok(rooms[0].t, 'teacher:clock', { action: 'end' });
  await ok(rooms[1].t, 'teacher:clock', { action: 'end' });
  expect((await request(fourth.t, 'teacher:clock', { action: 'start' })).ok).toBe(true);
  // Another teacher has a quota of their own.
  const other = await teacherRoom('10.0.0.7', { teamCount: 1, minutes: 60 });
  expect((await cycle(other.t)).ok).toBe(true);
  expect(await refusals(server, 'rounds:storage')).toBe(2);
});

describe('the teacher history', () => {
  test('comes a page at a time, newest first, every room once, pages bounded by their rounds', async () => {
    await serve(UNLIMITED_STARTS);
    const first = await teacherRoom('10.0.0.8');
    const key = first.teacherKey;
    const codes = [first.code];
    // 44 more rooms, one a millisecond apart; the fifth has 70 rounds.
    for (let i = 0; i < 44; i++) {
      server.clock.advance(1);
      const r = await teacherRoom('10.0.0.8', { teamCount: 2, minutes: 5 }, key);
      codes.push(r.code);
      if (i === 40) for (let k = 0; k < 69; k++) await cycle(r.t);
    }
    const get = (q = '') =>
      server.app.inject({ method: 'GET', url: `/api/teacher/rooms${q}`, headers: { authorization: `Bearer ${key}` } });
    const seen: string[] = [];
    const pages: { rooms: number; rounds: number }[] = [];
    let next: string | null = null;
    do {
      const res = await get(next ? `?before=${next}` : '');
      expect(res.statusCode).toBe(200);
      const page = res.json();
      pages.push({
        rooms: page.rooms.length,
        rounds: page.rooms.reduce((n: number, r: any) => n + r.rounds.length, 0),
      });
      seen.push(...page.rooms.map((r: { code: string }) => r.code));
      next = page.next;
    } while (next);
    expect(seen).toEqual([...codes].reverse());
    // 20 rooms a page at most; the room of 70 rounds on a page of its own, the rooms before it stopped short.
    expect(pages.every((p) => p.rooms <= 20)).toBe(true);
    expect(pages).toContainEqual({ rooms: 1, rounds: 70 });
    expect(pages.every((p) => p.rounds <= 60 || p.rooms === 1)).toBe(true);
    // A malformed place in the history is refused in the one error shape.
    const bad = await get('?before=yesterday');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/before/) });
  });

  test('60 pages a minute per address, then 429 in the one error shape', async () => {
    await serve();
    const { teacherKey } = await createRoom(server, { teamCount: 1 });
    const statuses: number[] = [];
    let last: any;
    for (let i = 0; i < 61; i++) {
      const res = await fetch(`${server.url}/api/teacher/rooms`, {
        headers: { authorization: `Bearer ${teacherKey}` },
      });
      statuses.push(res.status);
      last = await res.json();
    }
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
    expect(last).toEqual({ error: { code: 'RATE_LIMITED', message: expect.any(String) } });
  });
});
