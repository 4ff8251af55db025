// What-if forks as new rooms (issue 13, item 2): they count against the teacher's room-creation
// limit, a teacher has a quota of live rooms, and a fork is only stored — loaded when someone opens
// it. Over the HTTP API of a real server on port 0 with a manual clock.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { parseTrustProxy } from '../../server/http/client-address.ts';
import { connect, createRoom, ok, sqliteOf, startServer, type TestServer } from './helpers.ts';

let server: TestServer;
afterEach(() => server?.close());

// Which turn of the event loop each room or what-if was built in (the build is the CPU part of making one).
const built = vi.hoisted(() => ({ turn: 0, at: [] as number[] }));
vi.mock('../../server/rooms/transitions/open.ts', async (importOriginal) => {
  const open = await importOriginal<typeof import('../../server/rooms/transitions/open.ts')>();
  return {
    ...open,
    openRoom: (...a: Parameters<typeof open.openRoom>) => {
      built.at.push(built.turn);
      return open.openRoom(...a);
    },
    forkRoom: (...a: Parameters<typeof open.forkRoom>) => {
      built.at.push(built.turn);
      return open.forkRoom(...a);
    },
  };
});

/** Counts turns of the event loop until `done` settles. */
async function countingTurns<T>(done: Promise<T>): Promise<T> {
  let over = false;
  const result = done.finally(() => (over = true));
  while (!over) {
    await new Promise((r) => setImmediate(r));
    built.turn++;
  }
  return result;
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

/** A room of two teams whose round of 20 minutes has been played through. */
async function playedRound() {
  const { code, teacherKey } = await createRoom(server, { teamCount: 2, minutes: 20, tempo: 1, seed: 9 });
  const teacher = await connect(server);
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  for (const name of ['Ana', 'Bo']) await ok(await connect(server), 'student:join', { code, name });
  await ok(teacher, 'teacher:clock', { action: 'start' });
  for (let m = 0; m < 20; m++) server.clock.advance(1000);
  await server.app.rooms.settled();
  const room = await server.app.rooms.get(code);
  expect(room.round.state).toBe('finished');
  return { code, teacherKey, roundId: room.round.id, teamIds: room.view('teacher').teams.map((t) => t.id) };
}

const fork = (roundId: number, key: string, body: object, remoteAddress = '127.0.0.1') =>
  server.app.inject({
    method: 'POST',
    url: `/api/rounds/${roundId}/fork`,
    headers: auth(key),
    payload: body,
    remoteAddress,
  });

describe('forks', () => {
  test('refused past the allowance before the body is read: 350 changes, or no JSON at all, cost nothing', async () => {
    server = await startServer();
    const { teacherKey, roundId, teamIds } = await playedRound();
    const changes = Array.from({ length: 350 }, (_, i) => ({ minute: 11 + (i % 9), key: 'servers', value: 8 }));
    const answers = [];
    for (let i = 0; i < 40; i++)
      answers.push(await fork(roundId, teacherKey, { teamId: teamIds[0], minute: 10, changes }));
    // The address's 30 (the room forked from took one, one came back in the 20 s it was played).
    expect(answers.filter((a) => a.statusCode === 201)).toHaveLength(30);
    // Once spent, a body that would not even parse is refused for the allowance, not for its JSON.
    const garbage = await server.app.inject({
      method: 'POST',
      url: `/api/rounds/${roundId}/fork`,
      headers: { ...auth(teacherKey), 'content-type': 'application/json' },
      payload: '{"teamId": ',
    });
    expect(garbage.statusCode).toBe(429);
    expect(garbage.json()).toEqual({ error: { code: 'RATE_LIMITED', message: expect.stringMatching(/new rooms/) } });
    // And a request without a key is refused for its key, before anything else.
    const keyless = await server.app.inject({ method: 'POST', url: `/api/rounds/${roundId}/fork`, payload: '{' });
    expect(keyless.statusCode).toBe(401);
  });

  test('a burst of what-ifs and of new rooms is built a turn of the event loop each, letting the rooms’ minutes in', async () => {
    server = await startServer();
    const { teacherKey, roundId, teamIds } = await playedRound();
    built.at = [];
    const forks = await countingTurns(
      Promise.all(Array.from({ length: 6 }, () => fork(roundId, teacherKey, { teamId: teamIds[0], minute: 10 }))),
    );
    expect(forks.map((f) => f.statusCode)).toEqual(Array(6).fill(201));
    expect(new Set(built.at).size).toBe(6);
    built.at = [];
    const rooms = await countingTurns(
      Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          server.app.inject({
            method: 'POST',
            url: '/api/rooms',
            payload: { teamCount: 30 },
            remoteAddress: `10.0.0.${i}`,
          }),
        ),
      ),
    );
    expect(rooms.map((r) => r.statusCode)).toEqual(Array(6).fill(201));
    expect(new Set(built.at).size).toBe(6);
  });

  test('new rooms are limited per IPv6 /64, as the unknown-code limit counts them', async () => {
    server = await startServer({ trustProxy: parseTrustProxy('loopback') });
    const from = (ip: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/rooms',
        payload: { teamCount: 30 },
        headers: { 'x-forwarded-for': ip },
      });
    const statuses: number[] = [];
    // Thirty-one addresses of one /64, each a fresh one, as a host with 2^64 of them would use.
    for (let i = 1; i <= 31; i++) statuses.push((await from(`2001:db8:7:7::${i.toString(16)}`)).statusCode);
    expect(statuses.slice(0, 30).every((s) => s === 201)).toBe(true);
    expect(statuses[30]).toBe(429);
    // Another /64 is another household.
    expect((await from('2001:db8:7:8::1')).statusCode).toBe(201);
  });

  test('1,000 fork requests in a burst: refused past the creation limit, and memory holds none of them', async () => {
    server = await startServer();
    const { code, teacherKey, roundId, teamIds } = await playedRound();
    const db = sqliteOf(server);
    const roomsBefore = (db.prepare('select count(*) n from rooms').get() as { n: number }).n;
    const answers = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => fork(roundId, teacherKey, { teamId: teamIds[i % 2], minute: 10 })),
    );
    const made = answers.filter((a) => a.statusCode === 201);
    // The address's 30: the room forked from took one, and one came back in the 20 s it was played.
    expect(made).toHaveLength(30);
    expect(answers.filter((a) => a.statusCode === 429).map((a) => a.json().error.code)).toEqual(
      Array(970).fill('RATE_LIMITED'),
    );
    // Stored, not kept: the only room in memory is the one forked from.
    expect((db.prepare('select count(*) n from rooms').get() as { n: number }).n).toBe(roomsBefore + 30);
    expect(server.app.rooms.all().map((r) => r.code)).toEqual([code]);

    // A fork is loaded when someone opens it: paused at its minute, as the answer said.
    const first = made[0].json();
    expect(first.room.round).toMatchObject({ state: 'paused', minute: 10 });
    const teacher = await connect(server);
    const joined = await ok(teacher, 'teacher:join', { code: first.code, key: teacherKey });
    expect(joined.room).toEqual(first.room);
    expect(server.app.rooms.peek(first.code)?.round).toMatchObject({ state: 'paused', minute: 10 });
    expect(server.app.rooms.all()).toHaveLength(2);
  });

  test('forks count against the teacher’s room-creation limit, whatever address they come from', async () => {
    server = await startServer();
    const { teacherKey, roundId, teamIds } = await playedRound();
    // 30 for this teacher: 30 forks from as many addresses, then neither a fork nor a new room.
    for (let i = 0; i < 30; i++)
      expect((await fork(roundId, teacherKey, { teamId: teamIds[0], minute: 5 }, `10.0.0.${i + 1}`)).statusCode).toBe(
        201,
      );
    const refused = await fork(roundId, teacherKey, { teamId: teamIds[0], minute: 5 }, '10.0.1.1');
    expect([refused.statusCode, refused.json().error]).toEqual([
      429,
      { code: 'RATE_LIMITED', message: 'too many new rooms from this teacher: wait a little' },
    ]);
    const room = await server.app.inject({
      method: 'POST',
      url: '/api/rooms',
      headers: auth(teacherKey),
      payload: {},
      remoteAddress: '10.0.1.2',
    });
    expect(room.statusCode).toBe(429);
    // One more every 20 s.
    server.clock.advance(20_000);
    expect((await fork(roundId, teacherKey, { teamId: teamIds[0], minute: 5 }, '10.0.1.3')).statusCode).toBe(201);
    // A refused fork took nothing else: a bad one still answers for what is wrong with it once allowed.
    server.clock.advance(20_000);
    expect((await fork(roundId, teacherKey, { teamId: teamIds[0], minute: 99 }, '10.0.1.4')).json().error.code).toBe(
      'BAD_REQUEST',
    );
  });

  test('a teacher has a quota of live rooms: new rooms and forks are refused ROOM_QUOTA until a round ends', async () => {
    server = await startServer({ roomLimits: { creations: { capacity: 1000, refillPerSecond: 1000 }, liveRooms: 3 } });
    const { code, teacherKey, roundId, teamIds } = await playedRound();
    // The played room is finished: it does not count. Three rooms in the lobby do.
    for (let i = 0; i < 3; i++) await createRoom(server, {}, teacherKey);
    const quota = async (res: Promise<{ statusCode: number; json(): any }>) => {
      const r = await res;
      return [r.statusCode, r.json().error?.code];
    };
    expect(
      await quota(server.app.inject({ method: 'POST', url: '/api/rooms', headers: auth(teacherKey), payload: {} })),
    ).toEqual([409, 'ROOM_QUOTA']);
    expect(await quota(fork(roundId, teacherKey, { teamId: teamIds[1], minute: 3 }))).toEqual([409, 'ROOM_QUOTA']);
    // Another teacher is not held up.
    await createRoom(server, {});
    // One of the three played and ended: a slot for a fork (paused, so live).
    const busy = (await server.app.inject({ method: 'GET', url: '/api/teacher/rooms', headers: auth(teacherKey) }))
      .json()
      .rooms.find((r: any) => r.code !== code);
    const t = await connect(server);
    await ok(t, 'teacher:join', { code: busy.code, key: teacherKey });
    await ok(t, 'teacher:clock', { action: 'start' });
    await ok(t, 'teacher:clock', { action: 'end' });
    expect((await fork(roundId, teacherKey, { teamId: teamIds[1], minute: 3 })).statusCode).toBe(201);
    expect(await quota(fork(roundId, teacherKey, { teamId: teamIds[1], minute: 3 }))).toEqual([409, 'ROOM_QUOTA']);
    // A day on, rooms left unfinished no longer count.
    server.clock.advance(24 * 3600_000 + 1000);
    expect((await fork(roundId, teacherKey, { teamId: teamIds[1], minute: 3 })).statusCode).toBe(201);
  });
});
