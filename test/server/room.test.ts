// The room on its own: manual clock, in-memory output, SQLite in memory.
import { beforeEach, describe, expect, test } from 'vitest';
import { dealRoles } from '../../shared/classroom/roles.ts';
import { normalizeCode, CODE_ALPHABET } from '../../shared/classroom/code.ts';
import { baselineRun, runRound } from '../../shared/sim/engine.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';
import { hashSecret } from '../../server/rooms/creation.ts';
import { roomEnv, type RoomEnv } from './rooms.ts';
import { gateOf, joinStudent } from './seats.ts';

describe('dealing roles', () => {
  const roles = ['scaling', 'shedding', 'fraud', 'standin'];
  test.each([
    [1, [['scaling', 'shedding', 'fraud', 'standin']]],
    [
      2,
      [
        ['scaling', 'fraud'],
        ['shedding', 'standin'],
      ],
    ],
    [3, [['scaling', 'standin'], ['shedding'], ['fraud']]],
    [4, [['scaling'], ['shedding'], ['fraud'], ['standin']]],
    [6, [['scaling'], ['shedding'], ['fraud'], ['standin'], [], []]],
  ])('a team of %i', (n, expected) => {
    const dealt = dealRoles(roles, n);
    expect(dealt).toEqual(expected);
    // Every role has exactly one owner.
    expect(dealt.flat().sort()).toEqual([...roles].sort());
  });
});

describe('room codes', () => {
  test('the alphabet has no look-alikes and typing is forgiving', () => {
    for (const c of '01OIL') expect(CODE_ALPHABET).not.toContain(c);
    expect(normalizeCode(' abc-def ')).toBe('ABCDEF');
    expect(normalizeCode('ABCDE0')).toBeNull();
    expect(normalizeCode('ABCDEFG')).toBeNull();
  });
  test('new rooms get distinct 6-character codes from the alphabet', async () => {
    const { manager } = roomEnv();
    const codes = new Set<string>();
    for (let i = 0; i < 50; i++) codes.add((await manager.create({})).room.code);
    expect(codes.size).toBe(50);
    for (const c of codes) expect(normalizeCode(c)).toBe(c);
  });
});

describe('a room', () => {
  let env: RoomEnv;
  beforeEach(() => {
    env = roomEnv();
  });
  const join = async (code: string, name: string) => (await joinStudent(env.manager, code, name)).player;

  test('students are dealt into the smallest team; roles follow the team size', async () => {
    const { room } = await env.manager.create({ teamCount: 2 });
    const ids: number[] = [];
    for (const n of ['A', 'B', 'C', 'D', 'E']) ids.push((await join(room.code, n)).id);
    const v = room.view('teacher');
    const teamOf = (id: number) => v.players.find((p) => p.id === id)?.teamId;
    expect(teamOf(ids[0])).toBe(v.teams[0].id);
    expect(teamOf(ids[1])).toBe(v.teams[1].id);
    expect(teamOf(ids[2])).toBe(v.teams[0].id);
    // Team 1 has A, C, E: each newcomer took the share of their place in join order from a teammate
    // with more (C two of A's four, E one of A's two); nobody else's roles moved. Every role has one owner.
    const t1 = v.players.filter((p) => p.teamId === v.teams[0].id);
    expect(t1.map((p) => p.roles)).toEqual([['scaling'], ['shedding', 'standin'], ['fraud']]);
  });

  test('the teacher moves, renames and removes; roles change hands and are stored', async () => {
    const { room } = await env.manager.create({ teamCount: 2 });
    const { player: a, token } = await joinStudent(env.manager, room.code, 'A');
    const b = await join(room.code, 'B');
    const t2 = room.view('teacher').teams[1].id;
    await room.dispatch({ type: 'move', playerId: a.id, teamId: t2 });
    let v = room.view('teacher');
    // The one already there keeps the first deal; the newcomer takes what the second place is dealt.
    expect(v.players.find((p) => p.id === b.id)).toMatchObject({ teamId: t2, roles: ['scaling', 'fraud'] });
    expect(v.players.find((p) => p.id === a.id)).toMatchObject({ teamId: t2, roles: ['shedding', 'standin'] });
    await room.dispatch({ type: 'rename', teamId: t2, name: 'Night shift' });
    expect(room.view('teacher').teams[1].name).toBe('Night shift');
    await room.dispatch({ type: 'remove', playerId: a.id });
    v = room.view('teacher');
    expect(v.players.map((p) => p.id)).toEqual([b.id]);
    expect(v.players[0].roles).toEqual(['scaling', 'shedding', 'fraud', 'standin']);
    expect(env.out.dropped).toContainEqual({ code: room.code, playerId: a.id });
    // The stored roster says the same.
    const stored = (await env.store.playersOfRoom(room.id)).find((p) => p.id === b.id);
    expect(stored?.roles).toEqual(['scaling', 'shedding', 'fraud', 'standin']);
    // A removed student's token no longer opens the room.
    await expect(gateOf(env.manager).tokenSeat(hashSecret(token))).rejects.toThrow(/not valid/);
  });

  test('fewer teams in the lobby: their members are dealt into the others', async () => {
    const { room } = await env.manager.create({ teamCount: 3 });
    for (const n of ['A', 'B', 'C', 'D', 'E', 'F']) await join(room.code, n);
    await room.dispatch({ type: 'configure', patch: { teamCount: 2 } });
    const v = room.view('teacher');
    expect(v.teams).toHaveLength(2);
    expect(v.players.every((p) => v.teams.some((t) => t.id === p.teamId))).toBe(true);
    expect(v.players.filter((p) => p.teamId === v.teams[0].id)).toHaveLength(3);
  });

  test('changing the simulator deals that simulator’s roles', async () => {
    const { room } = await env.manager.create({ teamCount: 1 });
    await join(room.code, 'A');
    await join(room.code, 'B');
    await room.dispatch({ type: 'configure', patch: { simulator: 'web-service' } });
    expect(room.view('teacher').config.scenario).toBe('free');
    expect(room.view('teacher').players.map((p) => p.roles)).toEqual([
      ['fleet', 'traffic'],
      ['cache', 'release'],
    ]);
  });

  test('clock: only the allowed transitions; tempo, pause, step, resume, end', async () => {
    const { room } = await env.manager.create({ teamCount: 1, tempo: 5, minutes: 30, seed: 3 });
    await expect(room.dispatch({ type: 'clock', action: 'pause' })).rejects.toThrow(/cannot pause: the round is lobby/);
    await expect(room.dispatch({ type: 'clock', action: 'next' })).rejects.toThrow(/end the round first/);
    await room.dispatch({ type: 'clock', action: 'start' });
    await expect(room.dispatch({ type: 'configure', patch: { scenario: 'fraud-wave' } })).rejects.toThrow(
      /only the tempo/,
    );
    await env.advance(5000);
    expect(room.round.minute).toBe(1);
    await room.dispatch({ type: 'tempo', tempo: 1 });
    await env.advance(1000);
    expect(room.round.minute).toBe(2);
    await room.dispatch({ type: 'clock', action: 'pause' });
    await env.advance(60_000);
    expect(room.round.minute).toBe(2);
    await room.dispatch({ type: 'clock', action: 'step' });
    expect(room.round).toMatchObject({ minute: 3, state: 'paused' });
    await room.dispatch({ type: 'clock', action: 'resume' });
    await env.advance(3000);
    expect(room.round.minute).toBe(6);
    await room.dispatch({ type: 'clock', action: 'end' });
    expect(room.round.state).toBe('finished');
    await env.advance(10_000);
    expect(room.round.minute).toBe(6);
    expect(env.clock.pending).toBe(0);
    const scores = env.out.of('scores').at(-1);
    expect(scores?.teams[0].goals.map((g) => g.id)).toEqual(['approval', 'authTime', 'cost']);
    // Stored, and equal to the engine's verdict over the six played minutes against the round's baseline
    // at minute 6: this team did nothing, so it scores what doing nothing scores, 0.
    const baseline = baselineRun(paymentSwitch, 'sale-surge', 3, 60);
    const clean = runRound(paymentSwitch, { scenario: 'sale-surge', seed: 3, noise: true, minutes: 6, baseline });
    expect(clean.result.score).toBe(0);
    expect((await env.store.resultsOfRound(room.round.id))[0].score).toBe(clean.result.score);
    await room.dispatch({ type: 'clock', action: 'next' });
    expect(room.round).toMatchObject({ number: 2, state: 'lobby', minute: -1 });
    expect(room.view('teacher').players).toEqual([]);
    expect(await env.store.latestRound(room.id)).toMatchObject({ id: room.round.id, number: 2, state: 'lobby' });
  });

  test('a tick that cannot be stored leaves that room at its minute, running; its class is told and the next beat goes on', async () => {
    const a = (await env.manager.create({ teamCount: 1, tempo: 1 })).room;
    const b = (await env.manager.create({ teamCount: 1, tempo: 1 })).room;
    await a.dispatch({ type: 'clock', action: 'start' });
    await b.dispatch({ type: 'clock', action: 'start' });
    const aRound = a.round.id;
    env.store.failWhen = (lists) =>
      lists.some((l) => l.some((w) => w.op === 'insertSnapshots' && w.roundId === aRound));
    await env.advance(1000);
    expect(a.round).toMatchObject({ state: 'running', minute: 0 });
    expect(b.round).toMatchObject({ state: 'running', minute: 1 });
    expect(await env.store.roundById(aRound)).toMatchObject({ state: 'running', minute: 0 });
    expect(env.errors).toHaveLength(1);
    const notice = env.out.sent.find((s) => s.event === 'notice' && s.code === a.code);
    expect(notice).toMatchObject({ to: { kind: 'all' }, payload: { code: 'STORAGE_UNAVAILABLE' } });
    expect(env.out.sent.some((s) => s.event === 'notice' && s.code === b.code)).toBe(false);
    // Nothing of the failed minute was kept; the clock still runs, and once the disk is back the round goes on exactly.
    expect(
      env.out
        .of('minute')
        .filter((m) => m.roundId === aRound)
        .map((m) => m.snapshot.minute),
    ).toEqual([0]);
    env.store.failWhen = null;
    await env.advance(2000);
    expect(a.round.minute).toBe(2);
    const team = [...a.round.teams.values()][0];
    const clean = runRound(paymentSwitch, {
      scenario: 'sale-surge',
      seed: a.round.seed ?? -1,
      noise: true,
      minutes: 2,
    });
    expect((await a.historyOf(team.teamId))?.snapshots).toEqual(clean.snapshots);
  });

  test('teacher keys are kept as hashes and a key opens only its own rooms', async () => {
    const first = await env.manager.create({});
    const second = await env.manager.create({}, first.teacherKey);
    expect(second.teacherKey).toBe(first.teacherKey);
    expect(second.room.teacherId).toBe(first.room.teacherId);
    const stranger = await env.manager.create({});
    const gate = gateOf(env.manager);
    const asTeacher = (code: string, key: string) => gate.ask(code, { type: 'teacher', keyHash: hashSecret(key) });
    expect((await asTeacher(second.room.code, first.teacherKey)).code).toBe(second.room.code);
    await expect(asTeacher(stranger.room.code, first.teacherKey)).rejects.toThrow(/does not open/);
    // An unknown key makes a new teacher.
    const fresh = await env.manager.create({}, 'K'.repeat(43));
    expect(fresh.teacherKey).not.toBe('K'.repeat(43));
    expect(await env.store.teacherByKeyHash(hashSecret(first.teacherKey))).toBe(first.room.teacherId);
    expect(JSON.stringify(env.store.sqlite.prepare('select * from teachers').all())).not.toContain(first.teacherKey);
  });

  test('a room looked up twice at once is loaded once', async () => {
    const { room } = await env.manager.create({});
    env.manager.sweep(0);
    expect(env.manager.peek(room.code)).toBeUndefined();
    const [x, y] = await Promise.all([env.manager.get(room.code), env.manager.get(room.code.toLowerCase())]);
    expect(x).toBe(y);
    expect(x).not.toBe(room);
  });

  test('idle rooms leave memory and come back from the database as they were; running ones stay', async () => {
    const idle = (await env.manager.create({ teamCount: 2, seed: 4 })).room;
    const a = await join(idle.code, 'A');
    idle.connect(a.id);
    await idle.dispatch({ type: 'clock', action: 'start' });
    await env.advance(20_000);
    await idle.dispatch({ type: 'clock', action: 'pause' });
    const before = { view: idle.view('teacher'), history: await idle.historyOf(idle.view('teacher').teams[0].id) };
    const running = (await env.manager.create({ teamCount: 1, minutes: 240, tempo: 20 })).room;
    await running.dispatch({ type: 'clock', action: 'start' });
    await env.advance(40 * 60_000);
    // A connected student keeps the room.
    expect(env.manager.sweep(30 * 60_000)).toBe(0);
    idle.disconnect(a.id);
    await env.advance(31 * 60_000);
    expect(env.manager.sweep(30 * 60_000)).toBe(1);
    expect(env.manager.peek(idle.code)).toBeUndefined();
    expect(env.manager.peek(running.code)).toBe(running);
    // The old object takes no more commands: the room lives on in the new one.
    await expect(idle.dispatch({ type: 'rename', teamId: before.view.teams[0].id, name: 'Ghost' })).rejects.toThrow(
      /closed/,
    );
    const back = await env.manager.get(idle.code);
    expect(back).not.toBe(idle);
    expect(back.view('teacher')).toEqual({
      ...before.view,
      players: before.view.players.map((p) => ({ ...p, connected: false })),
    });
    expect(await back.historyOf(back.view('teacher').teams[0].id)).toEqual(before.history);
    expect(back.recoveryMismatches).toEqual([]);
  });
});
