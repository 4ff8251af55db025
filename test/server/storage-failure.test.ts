// A store that fails at every write site in turn: after each failure the room in memory, the room as
// the database has it, and what people were sent still agree — the failed command changed nothing.
import { describe, expect, test } from 'vitest';
import type { RoomState } from '../../server/rooms/state.ts';
import type { Room } from '../../server/rooms/room.ts';
import { loadRoom } from '../../server/rooms/load.ts';
import { RoomManager } from '../../server/rooms/manager.ts';
import { roomView, teamHistory } from '../../server/rooms/views.ts';
import { roomEnv, type RoomEnv } from './rooms.ts';
import { joinStudent } from './seats.ts';

/** What people can see of a room: its view and every playing team's history and name. */
function seen(s: RoomState) {
  const teams = [...s.round.teams.values()];
  const r = s.round;
  return {
    view: roomView(s, () => ({ connected: false, idle: false, free: false }), 'teacher'),
    // The room keeps each team's latest minute and its trends' numbers; the rest is in the database.
    histories: teams.map((t) => ({ ...teamHistory(r, t, [t.snapshot]), headlines: t.headlines.toArray() })),
    names: teams.map((t) => t.name),
    roleChanges: [...r.roleChanges],
    members: [...r.members.values()],
    messages: [...r.messages],
  };
}

/** The room as a fresh load from the database gives it. */
async function stored(env: RoomEnv, code: string) {
  const row = await env.store.roomByCode(code);
  if (!row) throw new Error(`room ${code} is not in the database`);
  return seen((await loadRoom(env.store, row)).state);
}

function sentCounts(env: RoomEnv) {
  return { sent: env.out.sent.length, placed: env.out.placed.length, dropped: env.out.dropped.length };
}

/** Runs `act` with every transaction failing: it must be refused with STORAGE_FAILED and change nothing anywhere. */
async function failsCleanly(env: RoomEnv, room: Room, act: () => Promise<unknown>): Promise<void> {
  const before = seen(room.state);
  expect(await stored(env, room.code)).toEqual(before);
  const sent = sentCounts(env);
  const timers = env.clock.pending;
  const transactions = env.store.transactions.length;
  env.store.failWhen = () => true;
  await expect(act()).rejects.toMatchObject({
    code: 'STORAGE_FAILED',
    message: expect.stringContaining('nothing changed'),
  });
  env.store.failWhen = null;
  expect(env.store.transactions.length).toBeGreaterThan(transactions);
  expect(seen(room.state)).toEqual(before);
  expect(await stored(env, room.code)).toEqual(before);
  expect(sentCounts(env)).toEqual(sent);
  expect(env.clock.pending).toBe(timers);
}

/** A room of two teams with four students, in the lobby; `started` runs it to minute 2. */
async function classroom(env: RoomEnv, opts: { started?: boolean; teamCount?: number; students?: number } = {}) {
  const { room } = await env.manager.create({ teamCount: opts.teamCount ?? 2, minutes: 10, tempo: 5, seed: 42 });
  const players = [];
  for (let i = 0; i < (opts.students ?? 4); i++) {
    const p = (await joinStudent(env.manager, room.code, `S${i}`)).player;
    room.connect(p.id);
    players.push(p);
  }
  if (opts.started) {
    await room.dispatch({ type: 'clock', action: 'start' });
    await env.advance(10_000);
    expect(room.round.minute).toBe(2);
  }
  return { room, players };
}

type Setup = (env: RoomEnv) => Promise<{ room: Room; act: () => Promise<unknown>; after?: () => Promise<void> }>;

const cases: [string, Setup][] = [
  [
    'join: a new student',
    async (env) => {
      const { room } = await classroom(env);
      return { room, act: () => joinStudent(env.manager, room.code, 'Zed') };
    },
  ],
  [
    'control: a student’s change',
    async (env) => {
      const { room } = await classroom(env, { started: true });
      const owner = room.view('teacher').players.find((p) => p.roles.includes('scaling'));
      if (!owner) throw new Error('nobody owns scaling');
      return { room, act: () => room.dispatch({ type: 'control', playerId: owner.id, key: 'servers', value: 10 }) };
    },
  ],
  [
    'configure: another simulator and more teams (lobby)',
    async (env) => {
      const { room } = await classroom(env);
      return {
        room,
        act: () => room.dispatch({ type: 'configure', patch: { simulator: 'web-service', teamCount: 3 } }),
      };
    },
  ],
  [
    'configure: fewer teams seat their students anew (lobby)',
    async (env) => {
      const { room } = await classroom(env, { teamCount: 3, students: 6 });
      return { room, act: () => room.dispatch({ type: 'configure', patch: { teamCount: 2 } }) };
    },
  ],
  [
    'tempo (issue 14: memory had the new tempo, the database the old) — the clock keeps the old one',
    async (env) => {
      const { room } = await classroom(env, { started: true });
      return {
        room,
        act: () => room.dispatch({ type: 'tempo', tempo: 1 }),
        async after() {
          await env.advance(4000);
          expect(room.round.minute).toBe(2);
          await env.advance(1000);
          expect(room.round.minute).toBe(3);
        },
      };
    },
  ],
  [
    'move (issue 14: memory had the new team, the database the old), in the lobby',
    async (env) => {
      const { room, players } = await classroom(env);
      const other = room.view('teacher').teams.find((t) => t.id !== players[0].teamId);
      if (!other) throw new Error('one team only');
      return { room, act: () => room.dispatch({ type: 'move', playerId: players[0].id, teamId: other.id }) };
    },
  ],
  [
    'move mid-round (the mover is sent the new team’s history)',
    async (env) => {
      const { room, players } = await classroom(env, { started: true });
      const other = room.view('teacher').teams.find((t) => t.id !== players[0].teamId);
      if (!other) throw new Error('one team only');
      return { room, act: () => room.dispatch({ type: 'move', playerId: players[0].id, teamId: other.id }) };
    },
  ],
  [
    'rename a team mid-round',
    async (env) => {
      const { room } = await classroom(env, { started: true });
      return {
        room,
        act: () => room.dispatch({ type: 'rename', teamId: room.view('teacher').teams[0].id, name: 'Night shift' }),
      };
    },
  ],
  [
    'assign a role mid-round',
    async (env) => {
      const { room, players } = await classroom(env, { started: true });
      const role = room.round.model.roles.map((x) => x.id).find((x) => !room.player(players[0].id)?.roles.includes(x))!;
      return { room, act: () => room.dispatch({ type: 'assign', playerId: players[0].id, role }) };
    },
  ],
  [
    'lock the room',
    async (env) => {
      const { room } = await classroom(env);
      return { room, act: () => room.dispatch({ type: 'lock', locked: true }) };
    },
  ],
  [
    'share the replays',
    async (env) => {
      const { room } = await classroom(env, { started: true });
      return { room, act: () => room.dispatch({ type: 'share', shared: true }) };
    },
  ],
  [
    'a message to one team',
    async (env) => {
      const { room } = await classroom(env, { started: true });
      return {
        room,
        act: () => room.dispatch({ type: 'message', teamId: room.view('teacher').teams[1].id, text: 'Scale out now' }),
      };
    },
  ],
  [
    'remove a student',
    async (env) => {
      const { room, players } = await classroom(env, { started: true });
      return { room, act: () => room.dispatch({ type: 'remove', playerId: players[1].id }) };
    },
  ],
  [
    'start',
    async (env) => {
      const { room } = await classroom(env);
      return { room, act: () => room.dispatch({ type: 'clock', action: 'start' }) };
    },
  ],
  [
    'pause — the round neither reads paused nor stops its clock',
    async (env) => {
      const { room } = await classroom(env, { started: true });
      return {
        room,
        act: () => room.dispatch({ type: 'clock', action: 'pause' }),
        async after() {
          expect(room.round.state).toBe('running');
          await env.advance(5000);
          expect(room.round.minute).toBe(3);
        },
      };
    },
  ],
  [
    'resume — the round stays paused, with no clock',
    async (env) => {
      const { room } = await classroom(env, { started: true });
      await room.dispatch({ type: 'clock', action: 'pause' });
      return {
        room,
        act: () => room.dispatch({ type: 'clock', action: 'resume' }),
        async after() {
          await env.advance(60_000);
          expect(room.round).toMatchObject({ state: 'paused', minute: 2 });
        },
      };
    },
  ],
  [
    'step',
    async (env) => {
      const { room } = await classroom(env, { started: true });
      await room.dispatch({ type: 'clock', action: 'pause' });
      return { room, act: () => room.dispatch({ type: 'clock', action: 'step' }) };
    },
  ],
  [
    'the last minute, which finishes the round and stores the scores',
    async (env) => {
      const { room } = await classroom(env, { started: true });
      await room.dispatch({ type: 'clock', action: 'pause' });
      for (let m = 3; m < 10; m++) await room.dispatch({ type: 'clock', action: 'step' });
      return { room, act: () => room.dispatch({ type: 'clock', action: 'step' }) };
    },
  ],
  [
    'end (finish early, with the scores)',
    async (env) => {
      const { room } = await classroom(env, { started: true });
      return { room, act: () => room.dispatch({ type: 'clock', action: 'end' }) };
    },
  ],
  [
    'next round',
    async (env) => {
      const { room } = await classroom(env, { started: true });
      await room.dispatch({ type: 'clock', action: 'end' });
      return { room, act: () => room.dispatch({ type: 'clock', action: 'next' }) };
    },
  ],
];

describe('a failed commit changes nothing: memory, database and clients agree', () => {
  test.each(cases)('%s', async (_, setup) => {
    const env = roomEnv();
    const { room, act, after } = await setup(env);
    await failsCleanly(env, room, act);
    await after?.();
    // With the disk back, the same command goes through, and memory and database agree again.
    const n = env.out.sent.length;
    await act();
    expect(env.out.sent.length).toBeGreaterThan(n);
    expect(await stored(env, room.code)).toEqual(seen(room.state));
    expect(env.errors.length).toBeGreaterThan(0);
  });

  test('a tick: the round stays at its stored minute and running, everyone is told once, the next beat goes on', async () => {
    const env = roomEnv();
    const { room } = await classroom(env, { started: true });
    const before = seen(room.state);
    const sent = env.out.sent.length;
    env.store.failWhen = () => true;
    await env.advance(5000);
    env.store.failWhen = null;
    expect(seen(room.state)).toEqual(before);
    expect(await stored(env, room.code)).toEqual(before);
    expect(room.round.state).toBe('running');
    // One notice to the whole room (students, teacher, observers), however many beats failed.
    expect(env.out.sent.slice(sent)).toEqual([
      {
        code: room.code,
        to: { kind: 'all' },
        event: 'notice',
        payload: { code: 'STORAGE_UNAVAILABLE', message: expect.stringContaining('minute 3') },
      },
    ]);
    expect(env.clock.pending).toBe(1);
    const back = env.out.sent.length;
    await env.advance(5000);
    expect(room.round.minute).toBe(3);
    expect(await stored(env, room.code)).toEqual(seen(room.state));
    // The first minute stored says the round goes on, then comes.
    const after = env.out.sent.slice(back);
    expect(after[0]).toMatchObject({ to: { kind: 'all' }, event: 'notice', payload: { code: 'RESUMED' } });
    expect(after.some((m) => m.event === 'minute')).toBe(true);
  });

  test('a new room: refused, and nothing of it stored or kept', async () => {
    const env = roomEnv();
    env.store.failWhen = () => true;
    await expect(env.manager.create({ teamCount: 3 })).rejects.toMatchObject({ code: 'STORAGE_FAILED' });
    env.store.failWhen = null;
    expect(env.manager.all()).toEqual([]);
    expect(env.store.sqlite.prepare('select count(*) n from rooms').get()).toEqual({ n: 0 });
    expect(env.store.sqlite.prepare('select count(*) n from teachers').get()).toEqual({ n: 0 });
    const { room } = await env.manager.create({ teamCount: 3 });
    expect(await stored(env, room.code)).toEqual(seen(room.state));
  });

  test('a what-if fork: refused, and nothing of it stored or kept', async () => {
    const env = roomEnv();
    const { room } = await classroom(env, { started: true });
    const teamId = room.view('teacher').teams[1].id;
    const rooms = env.manager.all().length;
    env.store.failWhen = () => true;
    await expect(env.manager.fork(room.teacherId, room.round.id, teamId, 2)).rejects.toMatchObject({
      code: 'STORAGE_FAILED',
    });
    env.store.failWhen = null;
    expect(env.manager.all()).toHaveLength(rooms);
    expect(env.store.sqlite.prepare('select count(*) n from rooms').get()).toEqual({ n: 1 });
    expect(await env.store.forksOf(room.round.id)).toEqual([]);
    const fork = await env.manager.fork(room.teacherId, room.round.id, teamId, 2);
    // A fork is only stored: opened, it loads as it was made.
    const opened = await env.manager.get(fork.code);
    expect(await stored(env, fork.code)).toEqual(seen(opened.state));
    expect(opened.view('teacher')).toEqual(fork.room);
    expect(seen(opened.state).histories[0].snapshots).toEqual(seen(room.state).histories[1].snapshots);
  });

  test('recovery’s pause after a restart: the room is not loaded until the pause is stored', async () => {
    const env = roomEnv();
    const { room } = await classroom(env, { started: true });
    // The process stops (its timers with it); another starts on the same database.
    await env.manager.close();
    const restarted = new RoomManager(env.manager.deps);
    env.store.failWhen = () => true;
    const errors = env.errors.length;
    expect(await restarted.recover()).toEqual([]);
    expect(env.errors.length).toBeGreaterThan(errors);
    await expect(restarted.get(room.code)).rejects.toMatchObject({ code: 'STORAGE_FAILED' });
    env.store.failWhen = null;
    expect(restarted.peek(room.code)).toBeUndefined();
    expect(await env.store.roundById(room.round.id)).toMatchObject({ state: 'running', minute: 2 });
    expect(env.clock.pending).toBe(0);
    const [back] = await restarted.recover();
    expect(back.code).toBe(room.code);
    expect(await restarted.get(room.code)).toBe(back);
    expect(back.round).toMatchObject({ state: 'paused', minute: 2 });
    expect(await stored(env, room.code)).toEqual(seen(back.state));
  });
});
