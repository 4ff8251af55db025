// The room on its own: manual clock, in-memory output, SQLite in memory.
import { beforeEach, describe, expect, test } from 'vitest';
import { dealRoles } from '../../shared/classroom/roles.ts';
import { normalizeCode, CODE_ALPHABET } from '../../shared/classroom/code.ts';
import { runRound } from '../../shared/sim/engine.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';
import { openDatabase } from '../../server/db/index.ts';
import { Store } from '../../server/db/store.ts';
import { ManualClock } from '../../server/rooms/clock.ts';
import { hashSecret, RoomManager } from '../../server/rooms/manager.ts';
import { MemoryOutput } from '../../server/rooms/output.ts';

const quiet = { info() {}, warn() {}, error() {} };

function setup() {
  const { db } = openDatabase(':memory:');
  const store = new Store(db);
  const out = new MemoryOutput();
  const clock = new ManualClock();
  const errors: object[] = [];
  const manager = new RoomManager({ store, out, clock, log: { ...quiet, error: (o: object) => errors.push(o) } });
  return { store, out, clock, manager, errors };
}

describe('dealing roles', () => {
  const roles = ['scaling', 'shedding', 'fraud', 'standin'];
  test.each([
    [1, [['scaling', 'shedding', 'fraud', 'standin']]],
    [2, [['scaling', 'fraud'], ['shedding', 'standin']]],
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
  test('new rooms get distinct 6-character codes from the alphabet', () => {
    const { manager } = setup();
    const codes = new Set<string>();
    for (let i = 0; i < 50; i++) codes.add(manager.create({}).room.code);
    expect(codes.size).toBe(50);
    for (const c of codes) expect(normalizeCode(c)).toBe(c);
  });
});

describe('a room', () => {
  let env: ReturnType<typeof setup>;
  beforeEach(() => {
    env = setup();
  });
  const join = (code: string, name: string) => env.manager.joinStudent(code, name);

  test('students are dealt into the smallest team; roles follow the team size', () => {
    const { room } = env.manager.create({ teamCount: 2 });
    const ids = ['A', 'B', 'C', 'D', 'E'].map((n) => join(room.code, n).player.id);
    const v = room.view();
    const teamOf = (id: number) => v.players.find((p) => p.id === id)!.teamId;
    expect(teamOf(ids[0])).toBe(v.teams[0].id);
    expect(teamOf(ids[1])).toBe(v.teams[1].id);
    expect(teamOf(ids[2])).toBe(v.teams[0].id);
    // Team 1 has A, C, E: three members, one of them with two roles.
    const t1 = v.players.filter((p) => p.teamId === v.teams[0].id);
    expect(t1.map((p) => p.roles.length)).toEqual([2, 1, 1]);
  });

  test('the teacher moves, renames and removes; roles are dealt again and stored', () => {
    const { room } = env.manager.create({ teamCount: 2 });
    const a = join(room.code, 'A').player;
    const b = join(room.code, 'B').player;
    const t2 = room.view().teams[1].id;
    room.move(a.id, t2);
    let v = room.view();
    // The one already there keeps the first deal; the newcomer takes what is left.
    expect(v.players.find((p) => p.id === b.id)).toMatchObject({ teamId: t2, roles: ['scaling', 'fraud'] });
    expect(v.players.find((p) => p.id === a.id)).toMatchObject({ teamId: t2, roles: ['shedding', 'standin'] });
    room.rename(t2, 'Night shift');
    expect(room.view().teams[1].name).toBe('Night shift');
    room.remove(a.id);
    v = room.view();
    expect(v.players.map((p) => p.id)).toEqual([b.id]);
    expect(v.players[0].roles).toEqual(['scaling', 'shedding', 'fraud', 'standin']);
    expect(env.out.dropped).toContainEqual({ code: room.code, playerId: a.id });
    // The stored roster says the same.
    const stored = env.store.playersOfRoom(room.id).find((p) => p.id === b.id)!;
    expect(JSON.parse(stored.roles)).toEqual(['scaling', 'shedding', 'fraud', 'standin']);
    // A removed student's token no longer opens the room.
    expect(() => env.manager.rejoin('x'.repeat(43))).toThrow(/not valid/);
  });

  test('fewer teams in the lobby: their members are dealt into the others', () => {
    const { room } = env.manager.create({ teamCount: 3 });
    for (const n of ['A', 'B', 'C', 'D', 'E', 'F']) join(room.code, n);
    room.configure({ teamCount: 2 });
    const v = room.view();
    expect(v.teams).toHaveLength(2);
    expect(v.players.every((p) => v.teams.some((t) => t.id === p.teamId))).toBe(true);
    expect(v.players.filter((p) => p.teamId === v.teams[0].id)).toHaveLength(3);
  });

  test('changing the simulator deals that simulator’s roles', () => {
    const { room } = env.manager.create({ teamCount: 1 });
    join(room.code, 'A');
    join(room.code, 'B');
    room.configure({ simulator: 'web-service' });
    expect(room.view().config.scenario).toBe('free');
    expect(room.view().players.map((p) => p.roles)).toEqual([['fleet', 'traffic'], ['cache', 'release']]);
  });

  test('clock: only the allowed transitions; tempo, pause, step, resume, end', () => {
    const { room } = env.manager.create({ teamCount: 1, tempo: 5, minutes: 30, seed: 3 });
    expect(() => room.clock('pause')).toThrow(/cannot pause: the round is lobby/);
    expect(() => room.clock('next')).toThrow(/end the round first/);
    room.clock('start');
    expect(() => room.configure({ scenario: 'fraud-wave' })).toThrow(/only the tempo/);
    env.clock.advance(5000);
    expect(room.round.minute).toBe(1);
    room.setTempo(1);
    env.clock.advance(1000);
    expect(room.round.minute).toBe(2);
    room.clock('pause');
    env.clock.advance(60_000);
    expect(room.round.minute).toBe(2);
    room.clock('step');
    expect(room.round).toMatchObject({ minute: 3, state: 'paused' });
    room.clock('resume');
    env.clock.advance(3000);
    expect(room.round.minute).toBe(6);
    room.clock('end');
    expect(room.round.state).toBe('finished');
    env.clock.advance(10_000);
    expect(room.round.minute).toBe(6);
    expect(env.clock.pending).toBe(0);
    const scores = env.out.of('scores').at(-1)!;
    expect(scores.teams[0].goals.map((g) => g.id)).toEqual(['approval', 'authTime', 'cost']);
    // Stored, and equal to the engine's verdict over the six played minutes.
    const clean = runRound(paymentSwitch, { scenario: 'sale-surge', seed: 3, noise: true, minutes: 6 });
    expect(env.store.resultsOfRound(room.round.id)[0].score).toBe(clean.result.score);
    room.clock('next');
    expect(room.round).toMatchObject({ number: 2, state: 'lobby', minute: -1 });
    expect(room.view().players).toEqual([]);
  });

  test('a tick that throws pauses that room only and tells its teacher', () => {
    const a = env.manager.create({ teamCount: 1, tempo: 1 }).room;
    const b = env.manager.create({ teamCount: 1, tempo: 1 }).room;
    a.clock('start');
    b.clock('start');
    const save = env.store.saveMinute.bind(env.store);
    env.store.saveMinute = (roundId, ...rest) => {
      if (roundId === a.round.id) throw new Error('disk full');
      return save(roundId, ...rest);
    };
    env.clock.advance(1000);
    expect(a.round).toMatchObject({ state: 'paused', minute: 0 });
    expect(b.round).toMatchObject({ state: 'running', minute: 1 });
    expect(env.errors).toHaveLength(1);
    const notice = env.out.sent.find((s) => s.event === 'notice' && s.code === a.code);
    expect(notice).toMatchObject({ to: { kind: 'teacher' }, payload: { code: 'TICK_FAILED' } });
    expect(env.out.sent.some((s) => s.event === 'notice' && s.code === b.code)).toBe(false);
    // Nothing of the failed minute was kept in memory: once the disk is back, the round goes on exactly.
    env.store.saveMinute = save;
    a.clock('resume');
    env.clock.advance(2000);
    expect(a.round.minute).toBe(2);
    const team = [...a.round.teams.values()][0];
    const clean = runRound(paymentSwitch, { scenario: 'sale-surge', seed: a.round.seed!, noise: true, minutes: 2 });
    expect(team.snapshots).toEqual(clean.snapshots);
  });

  test('teacher keys are kept as hashes and a key opens only its own rooms', () => {
    const first = env.manager.create({});
    const second = env.manager.create({}, first.teacherKey);
    expect(second.teacherKey).toBe(first.teacherKey);
    expect(second.room.teacherId).toBe(first.room.teacherId);
    const stranger = env.manager.create({});
    expect(env.manager.teacherRoom(second.room.code, first.teacherKey)).toBe(second.room);
    expect(() => env.manager.teacherRoom(stranger.room.code, first.teacherKey)).toThrow(/does not open/);
    expect(env.store.teacherByKeyHash(hashSecret(first.teacherKey))).toBe(first.room.teacherId);
    expect(JSON.stringify(env.store.db.$client.prepare('select * from teachers').all())).not.toContain(first.teacherKey);
  });

  test('idle rooms leave memory and come back from the database as they were; running ones stay', () => {
    const idle = env.manager.create({ teamCount: 2, seed: 4 }).room;
    const a = join(idle.code, 'A').player;
    idle.connect(a.id);
    idle.clock('start');
    env.clock.advance(20_000);
    idle.clock('pause');
    const before = { view: idle.view(), history: idle.historyOf(idle.view().teams[0].id) };
    const running = env.manager.create({ teamCount: 1, minutes: 240, tempo: 20 }).room;
    running.clock('start');
    env.clock.advance(40 * 60_000);
    // A connected student keeps the room.
    expect(env.manager.sweep(30 * 60_000)).toBe(0);
    idle.disconnect(a.id);
    env.clock.advance(31 * 60_000);
    expect(env.manager.sweep(30 * 60_000)).toBe(1);
    expect(env.manager.peek(idle.code)).toBeUndefined();
    expect(env.manager.peek(running.code)).toBe(running);
    const back = env.manager.get(idle.code);
    expect(back).not.toBe(idle);
    expect(back.view()).toEqual({ ...before.view, players: before.view.players.map((p) => ({ ...p, connected: false })) });
    expect(back.historyOf(back.view().teams[0].id)).toEqual(before.history);
    expect(back.recoveryMismatches).toEqual([]);
  });
});
