// Roles are stable for a round: they change hands only when the teacher gives one, or when their
// owner leaves the team — and then each goes to a named teammate, announced and recorded. Names are
// unique in a team. Over the room API: manual clock, in-memory output, SQLite in memory.
import { beforeEach, describe, expect, test } from 'vitest';
import { ClassroomError } from '../../shared/protocol/errors.ts';
import type { RoleChanges } from '../../shared/protocol/types.ts';
import { loadRoom } from '../../server/rooms/load.ts';
import type { Room } from '../../server/rooms/room.ts';
import { buildReplay } from '../../server/replay/replay.ts';
import { roomEnv, type RoomEnv } from './rooms.ts';
import { joinStudent } from './seats.ts';

let env: RoomEnv;
beforeEach(() => {
  env = roomEnv();
});

const join = async (room: Room, name: string) => (await joinStudent(env.manager, room.code, name)).player;
const rolesOf = (room: Room) => Object.fromEntries(room.view('teacher').players.map((p) => [p.name, p.roles]));
/** The `roles` events sent to one team (and, as a check, that the teacher had the same ones). */
function announced(teamId: number): RoleChanges[] {
  const toTeam = env.out.sent
    .filter((s) => s.event === 'roles' && s.to.kind === 'team' && s.to.teamId === teamId)
    .map((s) => s.payload as RoleChanges);
  const toTeacher = env.out.of('roles', 'teacher').filter((r) => r.teamId === teamId);
  expect(toTeacher).toEqual(toTeam);
  return toTeam;
}
/** "role: from → to" lines, for reading. */
const moves = (r: RoleChanges[]) =>
  r.flatMap((e) => e.changes.map((c) => `${c.reason} ${c.role}: ${c.from?.name ?? '-'} → ${c.to?.name ?? '-'}`));

describe('roles in the lobby', () => {
  test('are dealt as people join, each change announced to the team and the teacher and stored', async () => {
    const { room } = await env.manager.create({ teamCount: 1 });
    const team = room.view('teacher').teams[0].id;
    for (const n of ['Ana', 'Bo', 'Cy', 'Di', 'Ed']) await join(room, n);
    // As dealt in join order, each newcomer taking their place's share from a teammate with more.
    expect(rolesOf(room)).toEqual({ Ana: ['scaling'], Bo: ['shedding'], Cy: ['fraud'], Di: ['standin'], Ed: [] });
    expect(moves(announced(team))).toEqual([
      'join scaling: - → Ana',
      'join shedding: - → Ana',
      'join fraud: - → Ana',
      'join standin: - → Ana',
      'join shedding: Ana → Bo',
      'join standin: Ana → Bo',
      'join fraud: Ana → Cy',
      'join standin: Bo → Di',
    ]);
    // Stored with the lobby round: a reload has them.
    const stored = await env.store.roleChangesOfRound(room.round.id);
    expect(stored).toEqual(room.roleChanges(team));
    expect(stored.every((c) => c.minute === 0)).toBe(true);
  });

  test('another simulator deals its own roles, announced as a deal', async () => {
    const { room } = await env.manager.create({ teamCount: 1 });
    await join(room, 'Ana');
    await join(room, 'Bo');
    await room.dispatch({ type: 'configure', patch: { simulator: 'web-service' } });
    expect(rolesOf(room)).toEqual({ Ana: ['fleet', 'traffic'], Bo: ['cache', 'release'] });
    const last = env.out.of('roles').at(-1)!;
    expect(last.changes.map((c) => [c.reason, c.role, c.to?.name])).toEqual([
      ['deal', 'fleet', 'Ana'],
      ['deal', 'traffic', 'Ana'],
      ['deal', 'cache', 'Bo'],
      ['deal', 'release', 'Bo'],
    ]);
  });
});

describe('roles during a round', () => {
  test('a late joiner takes no role that someone owns: Ana and Bo keep theirs (issue 12, item 1)', async () => {
    const { room } = await env.manager.create({ teamCount: 1, seed: 5 });
    await join(room, 'Ana');
    await join(room, 'Bo');
    await room.dispatch({ type: 'clock', action: 'start' });
    await env.advance(5000);
    const before = rolesOf(room);
    const sent = env.out.of('roles').length;
    const cy = await join(room, 'Cy');
    expect(cy.roles).toEqual([]);
    expect(rolesOf(room)).toEqual({ ...before, Cy: [] });
    expect(env.out.of('roles')).toHaveLength(sent);
  });

  test('a late joiner of a team nobody played in takes every role', async () => {
    const { room } = await env.manager.create({ teamCount: 2, seed: 5 });
    const ana = await join(room, 'Ana');
    await room.dispatch({ type: 'clock', action: 'start' });
    const empty = room.view('teacher').teams[1].id;
    const bo = await join(room, 'Bo');
    expect(bo).toMatchObject({ teamId: empty, roles: ['scaling', 'shedding', 'fraud', 'standin'] });
    expect(moves(announced(empty))).toEqual([
      'join scaling: - → Bo',
      'join shedding: - → Bo',
      'join fraud: - → Bo',
      'join standin: - → Bo',
    ]);
    expect(room.player(ana.id)?.roles).toEqual(['scaling', 'shedding', 'fraud', 'standin']);
  });

  test('a removed owner’s roles go to the connected teammate with the fewest roles; said at once, stored, and in the replay', async () => {
    const { room } = await env.manager.create({ teamCount: 1, seed: 5, minutes: 10, tempo: 1 });
    const team = room.view('teacher').teams[0].id;
    const [ana, bo, cy] = [await join(room, 'Ana'), await join(room, 'Bo'), await join(room, 'Cy')];
    // Ana: scaling; Bo: shedding, standin; Cy: fraud. Cy has gone away; Ana is on line.
    room.connect(ana.id);
    room.connect(bo.id);
    await room.dispatch({ type: 'clock', action: 'start' });
    await env.advance(3000);
    const sent = announced(team).length;
    await room.dispatch({ type: 'remove', playerId: bo.id });
    // Both to Ana (connected), though Cy held fewer before the first.
    expect(rolesOf(room)).toEqual({ Ana: ['scaling', 'shedding', 'standin'], Cy: ['fraud'] });
    const told = announced(team).slice(sent);
    expect(told).toHaveLength(1);
    expect(told[0].changes).toEqual([
      {
        roundId: room.round.id,
        teamId: team,
        minute: 4,
        role: 'shedding',
        from: { playerId: bo.id, name: 'Bo' },
        to: { playerId: ana.id, name: 'Ana' },
        reason: 'remove',
        at: env.clock.now(),
      },
      {
        roundId: room.round.id,
        teamId: team,
        minute: 4,
        role: 'standin',
        from: { playerId: bo.id, name: 'Bo' },
        to: { playerId: ana.id, name: 'Ana' },
        reason: 'remove',
        at: env.clock.now(),
      },
    ]);
    // Ana may now change what Bo owned; Bo's controls are nobody else's.
    await expect(
      room.dispatch({ type: 'control', playerId: ana.id, key: 'shedding', value: true }),
    ).resolves.toMatchObject({ key: 'shedding' });
    await expect(
      room.dispatch({ type: 'control', playerId: cy.id, key: 'issuerTimeoutS', value: 5 }),
    ).rejects.toMatchObject({ code: 'NOT_OWNER' });
    // A reload (a desk rejoining, a restarted server) has them, from the team's history.
    expect((await room.historyOf(team))?.roleChanges.filter((c) => c.reason === 'remove')).toEqual(told[0].changes);
    const row = await env.store.roomByCode(room.code);
    const reloaded = (await loadRoom(env.store, row!)).state;
    expect([...reloaded.round.roleChanges]).toEqual([...room.state.round.roleChanges]);
    expect([...reloaded.round.members.values()]).toEqual([...room.state.round.members.values()]);
    // The replay lists everyone who played, with every role they really held.
    await env.advance(10_000);
    expect(room.round.state).toBe('finished');
    const replay = await buildReplay(env.store, (await env.store.roundById(room.round.id))!, row!);
    expect(replay.teams[0].members).toEqual([
      { playerId: ana.id, name: 'Ana', roles: ['scaling', 'shedding', 'standin'] },
      { playerId: bo.id, name: 'Bo', roles: ['shedding', 'standin'] },
      { playerId: cy.id, name: 'Cy', roles: ['fraud'] },
    ]);
    // After the lobby's dealing (kept too): who held what at the start, and the hand-over.
    expect(
      replay.teams[0].roleChanges
        .filter((c) => c.reason !== 'join')
        .map((c) => `${c.reason} ${c.minute} ${c.role} ${c.to?.name}`),
    ).toEqual([
      'start 0 scaling Ana',
      'start 0 shedding Bo',
      'start 0 fraud Cy',
      'start 0 standin Bo',
      'remove 4 shedding Ana',
      'remove 4 standin Ana',
    ]);
  });

  test('nobody connected: the teammate with the fewest roles, the first to join on a tie', async () => {
    const { room } = await env.manager.create({ teamCount: 1, seed: 5 });
    const [ana, bo] = [await join(room, 'Ana'), await join(room, 'Bo'), await join(room, 'Cy')];
    await room.dispatch({ type: 'clock', action: 'start' });
    await room.dispatch({ type: 'remove', playerId: bo.id });
    // Bo's shedding and standin: one to Ana (1 role, before Cy), then one to Cy (1 role, Ana has 2).
    expect(rolesOf(room)).toEqual({ Ana: ['scaling', 'shedding'], Cy: ['fraud', 'standin'] });
    expect(room.player(ana.id)?.roles).toEqual(['scaling', 'shedding']);
  });

  test('a moved owner’s roles stay with the team they leave; in the new team they take what nobody owns', async () => {
    const { room } = await env.manager.create({ teamCount: 2, seed: 5 });
    const [ana, bo, cy] = [await join(room, 'Ana'), await join(room, 'Bo'), await join(room, 'Cy')];
    // Team 1: Ana, Cy; team 2: Bo.
    const [t1, t2] = room.view('teacher').teams.map((t) => t.id);
    await room.dispatch({ type: 'clock', action: 'start' });
    const before1 = announced(t1).length;
    await room.dispatch({ type: 'move', playerId: ana.id, teamId: t2 });
    await room.settled();
    expect(room.player(cy.id)?.roles).toEqual(['scaling', 'shedding', 'fraud', 'standin']);
    expect(room.player(ana.id)).toMatchObject({ teamId: t2, roles: [] });
    expect(room.player(bo.id)?.roles).toEqual(['scaling', 'shedding', 'fraud', 'standin']);
    expect(moves(announced(t1).slice(before1))).toEqual(['move scaling: Ana → Cy', 'move fraud: Ana → Cy']);
    // The mover's desk follows them, with the new team's minutes so far.
    expect(env.out.placed.at(-1)).toEqual({ code: room.code, playerId: ana.id, teamId: t2 });
    expect(env.out.sent.filter((m) => m.event === 'history').at(-1)).toMatchObject({
      to: { kind: 'player', playerId: ana.id },
      payload: { teamId: t2 },
    });
  });

  test('the last member leaving leaves the roles to nobody, until someone joins', async () => {
    const { room } = await env.manager.create({ teamCount: 1, seed: 5 });
    const ana = await join(room, 'Ana');
    await room.dispatch({ type: 'clock', action: 'start' });
    await room.dispatch({ type: 'remove', playerId: ana.id });
    expect(
      env.out
        .of('roles')
        .at(-1)
        ?.changes.map((c) => [c.role, c.from?.name, c.to]),
    ).toEqual([
      ['scaling', 'Ana', null],
      ['shedding', 'Ana', null],
      ['fraud', 'Ana', null],
      ['standin', 'Ana', null],
    ]);
    expect((await join(room, 'Bo')).roles).toEqual(['scaling', 'shedding', 'fraud', 'standin']);
  });
});

describe('the teacher assigns roles', () => {
  test('in the lobby and during a round: the role moves from its owner to the named student, announced and stored', async () => {
    const { room } = await env.manager.create({ teamCount: 1, seed: 5 });
    const team = room.view('teacher').teams[0].id;
    const [ana, bo] = [await join(room, 'Ana'), await join(room, 'Bo')];
    await room.dispatch({ type: 'assign', playerId: ana.id, role: 'standin' });
    expect(rolesOf(room)).toEqual({ Ana: ['scaling', 'fraud', 'standin'], Bo: ['shedding'] });
    await room.dispatch({ type: 'clock', action: 'start' });
    await env.advance(5000);
    await room.dispatch({ type: 'assign', playerId: bo.id, role: 'scaling' });
    expect(rolesOf(room)).toEqual({ Ana: ['fraud', 'standin'], Bo: ['scaling', 'shedding'] });
    expect(moves(announced(team)).slice(-2)).toEqual(['assign standin: Bo → Ana', 'assign scaling: Ana → Bo']);
    const stored = (await env.store.roleChangesOfRound(room.round.id)).filter((c) => c.reason === 'assign');
    expect(stored.map((c) => [c.minute, c.role, c.from?.playerId, c.to?.playerId])).toEqual([
      [0, 'standin', bo.id, ana.id],
      [2, 'scaling', ana.id, bo.id],
    ]);
    // The student's own players row says so too (a restart deals nothing again).
    expect((await env.store.playersOfRoom(room.id)).map((p) => p.roles)).toEqual([
      ['fraud', 'standin'],
      ['scaling', 'shedding'],
    ]);
  });

  test('refused with a clear code, and nothing changes: an unknown role, an unknown student; the owner already is a no-op', async () => {
    const { room } = await env.manager.create({ teamCount: 1 });
    const ana = await join(room, 'Ana');
    const before = JSON.stringify(room.view('teacher'));
    const transactions = env.store.transactions.length;
    await expect(room.dispatch({ type: 'assign', playerId: ana.id, role: 'fleet' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(room.dispatch({ type: 'assign', playerId: 999, role: 'fraud' })).rejects.toMatchObject({
      code: 'PLAYER_NOT_FOUND',
    });
    await room.dispatch({ type: 'assign', playerId: ana.id, role: 'fraud' });
    expect(JSON.stringify(room.view('teacher'))).toBe(before);
    expect(env.store.transactions).toHaveLength(transactions);
    const err = await room.dispatch({ type: 'assign', playerId: ana.id, role: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClassroomError);
    expect((err as ClassroomError).message).toMatch(/scaling, shedding, fraud, standin/);
  });
});

describe('names', () => {
  test('a name taken in the team gets a visible suffix (letter case aside); other teams may share it', async () => {
    const { room } = await env.manager.create({ teamCount: 2 });
    const names = [];
    for (const n of ['Ana', 'Ana', 'Ana', 'ana', 'Ana']) names.push((await join(room, n)).name);
    // Teams alternate: team 1 gets Ana, Ana 2, Ana 3; team 2 gets Ana, ana 2.
    expect(names).toEqual(['Ana', 'Ana', 'Ana 2', 'ana 2', 'Ana 3']);
    expect((await env.store.playersOfRoom(room.id)).map((p) => p.name)).toEqual(names);
  });

  test('a long name is cut to fit its suffix', async () => {
    const { room } = await env.manager.create({ teamCount: 1 });
    const long = 'Bartholomew Featherstone';
    expect(long).toHaveLength(24);
    await join(room, long);
    const second = await join(room, long);
    expect(second.name).toBe('Bartholomew Feathersto 2');
    expect(second.name).toHaveLength(24);
  });

  test('a student moved into a team where their name is taken takes a suffix there', async () => {
    const { room } = await env.manager.create({ teamCount: 2 });
    const ana = await join(room, 'Ana');
    await join(room, 'Ana');
    await join(room, 'Bo');
    const [, t2] = room.view('teacher').teams.map((t) => t.id);
    await room.dispatch({ type: 'move', playerId: ana.id, teamId: t2 });
    expect(
      room
        .view('teacher')
        .players.filter((p) => p.teamId === t2)
        .map((p) => p.name),
    ).toEqual(['Ana 2', 'Ana']);
    expect((await env.store.playersOfRoom(room.id)).find((p) => p.id === ana.id)?.name).toBe('Ana 2');
  });
});
