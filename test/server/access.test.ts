// Who may come into a room, and what they see, over real socket.io clients on port 0: the teacher's
// lock and removal for good, new students per address per room (a class behind one NAT still joins),
// the teacher's messages, the seed kept from everyone but the teacher until the round ends, and rooms
// no longer shown to anonymous viewers an hour after their last round.
import { afterEach, describe, expect, test } from 'vitest';
import {
  collect,
  connect,
  createRoom,
  ok,
  openFeed,
  request,
  startServer,
  until,
  type Client,
  type TestServer,
} from './helpers.ts';

let server: TestServer;
afterEach(() => server?.close());

async function teacherOf(code: string, key: string): Promise<Client> {
  const t = await connect(server);
  await ok(t, 'teacher:join', { code, key });
  return t;
}
async function student(
  code: string,
  name: string,
): Promise<{ c: Client; token: string; playerId: number; joined: any }> {
  const c = await connect(server);
  const joined = await ok(c, 'student:join', { code, name });
  return { c, token: joined.token, playerId: joined.playerId, joined };
}

describe('the teacher locks the room and removes for good (issue 13, item 4)', () => {
  test('a locked room refuses new students with ROOM_LOCKED; a token still brings a student back', async () => {
    server = await startServer();
    const { code, teacherKey } = await createRoom(server, { teamCount: 2 });
    const teacher = await teacherOf(code, teacherKey);
    const ana = await student(code, 'Ana');
    const rooms = collect(ana.c, 'room');
    const { room } = await ok(teacher, 'teacher:lock', { locked: true });
    expect(room.locked).toBe(true);
    await until(() => rooms.some((r) => r.locked), 'the students to hear of the lock');

    const late = await connect(server);
    expect(await request(late, 'student:join', { code, name: 'Late' })).toMatchObject({
      ok: false,
      error: { code: 'ROOM_LOCKED' },
    });
    expect((await server.app.rooms.get(code)).view('teacher').players.map((p) => p.name)).toEqual(['Ana']);
    // The public look-up says so before anyone types a name.
    expect((await server.app.inject({ method: 'GET', url: `/api/rooms/${code}` })).json()).toMatchObject({
      locked: true,
      players: 1,
    });
    // Ana's page reloads: her token is not a new join.
    const again = await connect(server);
    expect(await ok(again, 'student:join', { code, token: ana.token })).toMatchObject({
      playerId: ana.playerId,
      room: { locked: true },
    });

    await ok(teacher, 'teacher:lock', { locked: false });
    expect(await ok(late, 'student:join', { code, name: 'Late' })).toMatchObject({ room: { locked: false } });
  });

  test('a removed student’s token stops working, and while the room is locked they cannot come back under a new name', async () => {
    server = await startServer();
    const { code, teacherKey } = await createRoom(server, { teamCount: 1 });
    const teacher = await teacherOf(code, teacherKey);
    const eve = await student(code, 'Eve');
    await ok(teacher, 'teacher:lock', { locked: true });
    await ok(teacher, 'teacher:remove', { playerId: eve.playerId });
    const back = await connect(server);
    expect(await request(back, 'student:join', { code, token: eve.token })).toMatchObject({
      ok: false,
      error: { code: 'BAD_TOKEN' },
    });
    expect(await request(back, 'student:join', { code, name: 'Not Eve' })).toMatchObject({
      ok: false,
      error: { code: 'ROOM_LOCKED' },
    });
    expect((await server.app.rooms.get(code)).view('teacher').players).toEqual([]);
    // Her token opens no replay either.
    const res = await server.app.inject({
      method: 'GET',
      url: '/api/student/rounds',
      headers: { authorization: `Bearer ${eve.token}` },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('BAD_TOKEN');
  });
});

describe('new students per address per room (issue 13, item 4)', () => {
  /** Takes a seat and opens the desk (a second join, with the token), retrying each refusal a second later on the manual clock. */
  async function classJoins(code: string, names: string[]): Promise<{ seconds: number; seated: number }> {
    const start = server.clock.now();
    const pending = names.map((name) => ({ name, token: '' as string, done: false }));
    const sockets = await Promise.all(names.map(() => connect(server)));
    for (let round = 0; round < 120 && pending.some((p) => !p.done); round++) {
      await Promise.all(
        pending.map(async (p, i) => {
          if (p.done) return;
          const r = await request(
            sockets[i],
            'student:join',
            p.token ? { code, token: p.token } : { code, name: p.name },
          );
          if (!r.ok) {
            expect(r.error.code).toBe('RATE_LIMITED');
            return;
          }
          if (p.token) p.done = true;
          else p.token = r.token;
        }),
      );
      if (pending.some((p) => !p.done)) server.clock.advance(1000);
    }
    return { seconds: (server.clock.now() - start) / 1000, seated: pending.filter((p) => p.done).length };
  }

  test('a class of 40 behind one school NAT takes its seats and opens its desks within a minute', async () => {
    server = await startServer();
    const { code } = await createRoom(server, { teamCount: 8 });
    const { seconds, seated } = await classJoins(
      code,
      Array.from({ length: 40 }, (_, i) => `Student ${i + 1}`),
    );
    expect(seated).toBe(40);
    expect(seconds).toBeLessThanOrEqual(60);
    expect((await server.app.rooms.get(code)).view('teacher').players).toHaveLength(40);
  });

  test('one address cannot fill a room: 50 seats at once, then one every 5 s; its seats in another room are its own', async () => {
    server = await startServer();
    const { code } = await createRoom(server, { teamCount: 10 });
    const other = (await createRoom(server, { teamCount: 1 })).code;
    const flooders = await Promise.all(Array.from({ length: 6 }, () => connect(server)));
    let seats = 0;
    let n = 0;
    const burst = async (count: number) => {
      const answers = await Promise.all(
        Array.from({ length: count }, (_, i) =>
          request(flooders[i % flooders.length], 'student:join', { code, name: `Bot ${n++}` }),
        ),
      );
      seats += answers.filter((a) => a.ok).length;
      return answers;
    };
    const first = await burst(55);
    expect(seats).toBe(50);
    expect(first.filter((a) => !a.ok).map((a) => a.error.message)).toEqual(
      Array(5).fill('too many new students from this address in this room: wait a little'),
    );
    // The same address still seats a student in another room.
    expect(await ok(flooders[0], 'student:join', { code: other, name: 'Real student' })).toMatchObject({
      room: { code: other },
    });
    // The flood goes on for the 31 s it took to fill a room before: six more seats, not seventy.
    for (let s = 0; s < 31; s++) {
      server.clock.advance(1000);
      await burst(5);
    }
    expect(seats).toBe(56);
    expect((await server.app.rooms.get(code)).view('teacher').players).toHaveLength(56);
  });
});

describe('teacher messages', () => {
  test('to one team or to all, as an event; kept for a reload of the desk until the round ends', async () => {
    server = await startServer();
    const { code, teacherKey } = await createRoom(server, { teamCount: 2, minutes: 5, tempo: 1 });
    const teacher = await teacherOf(code, teacherKey);
    const ana = await student(code, 'Ana');
    const bo = await student(code, 'Bo');
    const observer = await connect(server);
    await ok(observer, 'observer:join', { code });
    const [teamA, teamB] = [ana.joined.room.players[0].teamId, bo.joined.room.players[1].teamId];
    expect(teamA).not.toBe(teamB);
    const heard = {
      ana: collect(ana.c, 'message'),
      bo: collect(bo.c, 'message'),
      teacher: collect(teacher, 'message'),
      observer: collect(observer, 'message'),
    };

    const toA = (await ok(teacher, 'teacher:message', { teamId: teamA, text: '  Scale   out <b>now</b> ' })).message;
    // Whitespace is tidied; markup is kept as the text it is (the desks show text, never HTML).
    expect(toA).toMatchObject({ teamId: teamA, text: 'Scale out <b>now</b>', at: server.clock.now() });
    const toAll = (await ok(teacher, 'teacher:message', { teamId: null, text: 'Two minutes to the sale' })).message;
    await until(
      () =>
        heard.ana.length === 2 && heard.bo.length === 1 && heard.teacher.length === 2 && heard.observer.length === 1,
      'the messages',
    );
    expect(heard.ana).toEqual([toA, toAll]);
    expect(heard.bo).toEqual([toAll]);

    await ok(teacher, 'teacher:clock', { action: 'start' });
    server.clock.advance(2000);
    // A reload: each desk has its own team's and the ones to all, the teacher every one.
    expect((await ok(await connect(server), 'student:join', { code, token: ana.token })).messages).toEqual([
      toA,
      toAll,
    ]);
    expect((await ok(await connect(server), 'student:join', { code, token: bo.token })).messages).toEqual([toAll]);
    expect((await ok(await connect(server), 'teacher:join', { code, key: teacherKey })).messages).toEqual([toA, toAll]);
    // Once the round is over, a reload shows none of them.
    await ok(teacher, 'teacher:clock', { action: 'end' });
    expect((await ok(await connect(server), 'student:join', { code, token: ana.token })).messages).toEqual([]);
  });

  test('length-limited, for a team of this room, and from the teacher only; a refused one is sent to nobody', async () => {
    server = await startServer();
    const { code, teacherKey } = await createRoom(server, { teamCount: 1 });
    const teacher = await teacherOf(code, teacherKey);
    const ana = await student(code, 'Ana');
    const heard = collect(ana.c, 'message');
    expect(await request(teacher, 'teacher:message', { teamId: null, text: 'x'.repeat(201) })).toMatchObject({
      ok: false,
      error: { code: 'BAD_REQUEST' },
    });
    expect(await request(teacher, 'teacher:message', { teamId: null, text: '   ' })).toMatchObject({
      ok: false,
      error: { code: 'BAD_REQUEST' },
    });
    expect(await request(teacher, 'teacher:message', { teamId: null, text: 'bidi \u202Eevil' })).toMatchObject({
      ok: false,
      error: { code: 'BAD_REQUEST' },
    });
    expect(await request(teacher, 'teacher:message', { teamId: 99_999, text: 'Hello' })).toMatchObject({
      ok: false,
      error: { code: 'TEAM_NOT_FOUND' },
    });
    expect(await request(ana.c, 'teacher:message', { teamId: null, text: 'I am the teacher now' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_TEACHER' },
    });
    expect(await ok(teacher, 'teacher:message', { teamId: null, text: 'x'.repeat(200) })).toMatchObject({
      message: { text: 'x'.repeat(200) },
    });
    await until(() => heard.length === 1, 'the one message');
    expect(heard[0].text).toHaveLength(200);
  });
});

describe('the seed is the teacher’s until the round ends (issue 13, item 10)', () => {
  test('students, observers, the feed and the public look-up read seed: null while the round runs', async () => {
    server = await startServer();
    const {
      code,
      teacherKey,
      room: created,
    } = await createRoom(server, { teamCount: 1, minutes: 5, tempo: 1, seed: 4242 });
    expect(created.config.seed).toBe(4242);
    const teacher = await teacherOf(code, teacherKey);
    const ana = await student(code, 'Ana');
    expect(ana.joined.room.config.seed).toBeNull();
    const observer = await connect(server);
    expect((await ok(observer, 'observer:join', { code })).room.config.seed).toBeNull();
    const feed = await openFeed(server, code);
    const seen = {
      ana: collect(ana.c, 'room'),
      observer: collect(observer, 'room'),
      teacher: collect(teacher, 'room'),
    };

    const { room } = await ok(teacher, 'teacher:clock', { action: 'start' });
    expect(room.round.seed).toBe(4242);
    await until(
      () => seen.ana.length >= 1 && seen.observer.length >= 1 && seen.teacher.length >= 1,
      'the running room',
    );
    await until(() => feed.messages.some((m) => m.type === 'room' && m.room.round.state === 'running'), 'the feed');
    expect(seen.teacher.at(-1)?.round.seed).toBe(4242);
    for (const v of [
      seen.ana.at(-1)!,
      seen.observer.at(-1)!,
      feed.messages.find((m) => m.type === 'room').room,
      feed.messages[0].room,
    ]) {
      expect(v.round.seed).toBeNull();
      expect(v.config.seed).toBeNull();
    }
    expect((await ok(await connect(server), 'student:join', { code, token: ana.token })).room.round.seed).toBeNull();
    const lookup = (await server.app.inject({ method: 'GET', url: `/api/rooms/${code}` })).json();
    expect(lookup).toMatchObject({ state: 'running', seed: null });
    expect(JSON.stringify(lookup)).not.toContain('4242');

    // Over: everyone may rerun it.
    for (let m = 0; m < 5; m++) server.clock.advance(1000);
    await until(() => seen.ana.at(-1)?.round.state === 'finished', 'the end');
    expect(seen.ana.at(-1)?.round.seed).toBe(4242);
    expect((await server.app.inject({ method: 'GET', url: `/api/rooms/${code}` })).json().seed).toBe(4242);
    feed.ws.close();
  });
});

describe('anonymous viewers an hour after the last round (issue 13, item 3)', () => {
  test('the observer join, the feed, the public look-up and new students are refused ROOM_CLOSED; the teacher and the class come back', async () => {
    server = await startServer();
    const { code, teacherKey } = await createRoom(server, { teamCount: 1, minutes: 5, tempo: 1 });
    const teacher = await teacherOf(code, teacherKey);
    const ana = await student(code, 'Ana');
    await ok(teacher, 'teacher:clock', { action: 'start' });
    await ok(teacher, 'teacher:clock', { action: 'end' });
    const viewer = await connect(server);
    server.clock.advance(59 * 60_000);
    await ok(viewer, 'observer:join', { code });
    server.clock.advance(60_000);

    const refused = async () => {
      expect(await request(await connect(server), 'observer:join', { code })).toMatchObject({
        ok: false,
        error: { code: 'ROOM_CLOSED' },
      });
      expect(await request(await connect(server), 'student:join', { code, name: 'Mallory' })).toMatchObject({
        ok: false,
        error: { code: 'ROOM_CLOSED' },
      });
      const res = await server.app.inject({ method: 'GET', url: `/api/rooms/${code}` });
      expect([res.statusCode, res.json().error.code]).toEqual([410, 'ROOM_CLOSED']);
      const feed = await openFeed(server, code);
      const closed = new Promise<number>((r) => feed.ws.once('close', (c) => r(c)));
      expect(await closed).toBe(4404);
      expect(feed.messages).toEqual([{ type: 'error', code: 'ROOM_CLOSED', message: expect.any(String) }]);
    };
    await refused();
    // Out of memory, it is refused without being loaded.
    server.app.io.local.disconnectSockets(true);
    await until(() => server.app.rooms.sweep(-1) === 1, 'the room out of memory once nobody is connected');
    expect(server.app.rooms.peek(code)).toBeUndefined();
    await refused();
    expect(server.app.rooms.peek(code)).toBeUndefined();

    // The teacher and the class still come back; the next round opens the room again.
    expect(await ok(await connect(server), 'student:join', { code, token: ana.token })).toMatchObject({
      playerId: ana.playerId,
    });
    const back = await teacherOf(code, teacherKey);
    await ok(back, 'teacher:clock', { action: 'next' });
    await ok(await connect(server), 'observer:join', { code });
  });
});
