// Bad input and abuse: every one is answered with an error or a limit, nothing changes, the server lives.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  collect,
  connect,
  createRoom,
  ok,
  request,
  startServer,
  until,
  type Client,
  type TestServer,
} from './helpers.ts';

describe('bad messages and forged identities', () => {
  let server: TestServer;
  let code: string;
  let otherCode: string;
  let teacherKey: string;
  let teacher: Client;
  let student: Client;
  let token: string;
  beforeAll(async () => {
    server = await startServer();
    ({ code, teacherKey } = await createRoom(server, { teamCount: 1, minutes: 10 }));
    otherCode = (await createRoom(server, { teamCount: 1 })).code;
    teacher = await connect(server);
    await ok(teacher, 'teacher:join', { code, key: teacherKey });
    student = await connect(server);
    token = (await ok(student, 'student:join', { code, name: 'Ann' })).token;
    await ok(teacher, 'teacher:clock', { action: 'start' });
  });
  afterAll(() => server.close());

  const state = async () => {
    const room = await server.app.rooms.get(code);
    const r = room.round;
    return JSON.stringify({
      view: room.view('teacher'),
      teams: [...r.teams.values()].map((t) => ({ changes: t.changes.length, minute: t.sim?.minute })),
      changes: (await server.app.store.changesOfRound(r.id)).length,
    });
  };

  test('malformed payloads get BAD_REQUEST and change nothing', async () => {
    const before = await state();
    const bad: [string, unknown][] = [
      ['student:join', { code: 123 }],
      ['student:join', { code, name: '' }],
      ['student:join', { code, name: 'x'.repeat(25) }],
      ['student:join', { code, name: 'Bob\u202Eevil' }],
      ['student:join', { code, name: 'Bob', extra: 1 }],
      ['student:join', 'just a string'],
      ['student:join', null],
      ['student:control', { key: 'servers' }],
      ['student:control', { key: 'servers', value: { $gt: 1 } }],
      ['student:control', { key: 'x'.repeat(100), value: 1 }],
      ['teacher:clock', { action: 'explode' }],
      ['teacher:configure', { minutes: 100000 }],
      ['teacher:tempo', { tempo: 3 }],
      ['teacher:move', { playerId: -1, teamId: 1 }],
      ['observer:join', {}],
    ];
    for (const [event, payload] of bad) {
      const r = await new Promise<any>((resolve) => (student.emit as any)(event, payload, resolve));
      expect(r, `${event} ${JSON.stringify(payload)}`).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    }
    expect(await state()).toBe(before);
  });

  test('unknown events and events without an acknowledgement are answered, not ignored', async () => {
    const notices = collect(student, 'notice');
    const r = await new Promise<any>((resolve) => (student.emit as any)('admin:drop-tables', {}, resolve));
    expect(r).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    (student.emit as any)('student:control', { key: 'servers', value: 8 });
    (student.emit as any)('nonsense');
    await until(() => notices.length === 2, 'two notices');
    expect(notices.every((n) => n.code === 'BAD_REQUEST')).toBe(true);
    expect(await server.app.store.changesOfRound((await server.app.rooms.get(code)).round.id)).toHaveLength(0);
  });

  test('unknown codes, forged tokens and forged keys are refused', async () => {
    const c = await connect(server);
    expect(await request(c, 'student:join', { code: 'ZZZZZZ', name: 'Eve' })).toMatchObject({
      ok: false,
      error: { code: 'ROOM_NOT_FOUND' },
    });
    expect(await request(c, 'student:join', { code: 'not a code!', name: 'Eve' })).toMatchObject({
      ok: false,
      error: { code: 'ROOM_NOT_FOUND' },
    });
    expect(await request(c, 'student:join', { code, token: 'A'.repeat(43) })).toMatchObject({
      ok: false,
      error: { code: 'BAD_TOKEN' },
    });
    // A real token used for another room.
    expect(await request(c, 'student:join', { code: otherCode, token })).toMatchObject({
      ok: false,
      error: { code: 'BAD_TOKEN' },
    });
    expect(await request(c, 'teacher:join', { code, key: 'B'.repeat(43) })).toMatchObject({
      ok: false,
      error: { code: 'BAD_KEY' },
    });
    // The right key for the wrong room.
    expect(await request(c, 'teacher:join', { code: otherCode, key: teacherKey })).toMatchObject({
      ok: false,
      error: { code: 'BAD_KEY' },
    });
    // Nothing happened to the room.
    expect((await server.app.rooms.get(code)).view('teacher').players).toHaveLength(1);
    const res = await server.app.inject({ method: 'GET', url: '/api/rooms/ZZZZZZ' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: { code: 'ROOM_NOT_FOUND' } });
  });

  test('students cannot drive the clock or act as the teacher', async () => {
    const before = await state();
    for (const action of ['pause', 'end', 'step', 'next'] as const) {
      expect(await request(student, 'teacher:clock', { action })).toMatchObject({
        ok: false,
        error: { code: 'NOT_TEACHER' },
      });
    }
    expect(await request(student, 'teacher:configure', { tempo: 1 })).toMatchObject({
      ok: false,
      error: { code: 'NOT_TEACHER' },
    });
    expect(await request(student, 'teacher:remove', { playerId: 1 })).toMatchObject({
      ok: false,
      error: { code: 'NOT_TEACHER' },
    });
    expect(await request(student, 'teacher:team', { teamId: 1 })).toMatchObject({
      ok: false,
      error: { code: 'NOT_TEACHER' },
    });
    // An observer has no controls either.
    const obs = await connect(server);
    await ok(obs, 'observer:join', { code });
    expect(await request(obs, 'student:control', { key: 'servers', value: 8 })).toMatchObject({
      ok: false,
      error: { code: 'NOT_JOINED' },
    });
    expect(await request(obs, 'teacher:clock', { action: 'pause' })).toMatchObject({
      ok: false,
      error: { code: 'NOT_TEACHER' },
    });
    expect(await state()).toBe(before);
  });

  test('an oversized message closes that connection only; the server and the room go on', async () => {
    const big = await connect(server);
    const closed = new Promise<string>((r) => big.once('disconnect', (reason) => r(reason)));
    (big.emit as any)('student:join', { code, name: 'x'.repeat(20_000) }, () => {});
    expect(await closed).toMatch(/transport (close|error)/);
    const mins = collect(student, 'minute');
    server.clock.advance(5000);
    await until(() => mins.length === 1, 'the next minute');
    expect(mins[0].snapshot.minute).toBe(1);
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/rooms',
      payload: { teamCount: 'x'.repeat(20_000) },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('TOO_LARGE');
  });

  test('HTTP room creation validates its body', async () => {
    for (const payload of [
      { tempo: 3 },
      { simulator: 'nuclear-plant' },
      { scenario: 'nope' },
      { teamCount: 0 },
      { seed: -1 },
      { evil: true },
    ]) {
      const res = await server.app.inject({ method: 'POST', url: '/api/rooms', payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error.code).toBe('BAD_REQUEST');
    }
  });
});

describe('limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  test('a join flood from one address is rate-limited and the server stays up', async () => {
    const { code } = await createRoom(server, { teamCount: 1 });
    const c = await connect(server);
    const answers = [];
    for (let i = 0; i < 150; i++) answers.push(await request(c, 'student:join', { code: 'ZZZZZZ', name: `Bot ${i}` }));
    const limited = answers.filter((a) => !a.ok && a.error.code === 'RATE_LIMITED').length;
    const notFound = answers.filter((a) => !a.ok && a.error.code === 'ROOM_NOT_FOUND').length;
    // The per-socket event limit (30) bites first, then the per-address join limit.
    expect(notFound).toBeGreaterThan(0);
    expect(notFound).toBeLessThanOrEqual(60);
    expect(limited).toBe(150 - notFound);
    // After a pause the address may join again.
    server.clock.advance(60_000);
    const fresh = await connect(server);
    expect(await request(fresh, 'student:join', { code, name: 'Real' })).toMatchObject({ ok: true });
  });

  test('a room holds at most 12 per team: the thirteenth student is refused', async () => {
    server.clock.advance(60_000);
    const { code } = await createRoom(server, { teamCount: 1 });
    const c = await connect(server);
    for (let i = 0; i < 12; i++) {
      server.clock.advance(1000);
      await ok(c, 'student:join', { code, name: `S${i}` });
    }
    const r = await request(c, 'student:join', { code, name: 'S13' });
    expect(r).toMatchObject({ ok: false, error: { code: 'ROOM_FULL' } });
    expect((await server.app.rooms.get(code)).view('teacher').players).toHaveLength(12);
  });

  test('room creation over HTTP is rate-limited per address', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 35; i++)
      codes.push((await server.app.inject({ method: 'POST', url: '/api/rooms', payload: {} })).statusCode);
    expect(codes.filter((s) => s === 201).length).toBeLessThanOrEqual(30);
    const last = await server.app.inject({ method: 'POST', url: '/api/rooms', payload: {} });
    expect(last.statusCode).toBe(429);
    expect(last.json().error.code).toBe('RATE_LIMITED');
  });
});
