// The Store on PostgreSQL answers every read as the SQLite Store does after the same class, draws ids that
// several processes never share, and refuses a commit whose fencing token is stale — alone, without its
// neighbours in the same group commit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresService } from '../../server/cluster/services.ts';
import { Committer } from '../../server/db/commit.ts';
import { openPostgres, openSqlite } from '../../server/db/open.ts';
import type { PgEngine } from '../../server/db/pg.ts';
import type { SqlStore, Store } from '../../server/db/store.ts';
import { FencedError, type Write } from '../../server/db/writes.ts';
import { ManualClock } from '../../server/lib/clock.ts';
import { hashSecret } from '../../server/rooms/creation.ts';
import { RoomManager } from '../../server/rooms/manager.ts';
import { MemoryOutput } from '../server/memory-output.ts';
import type { PlayerState } from '../../server/rooms/state.ts';
import { joinStudent } from '../server/seats.ts';

let server: PostgresService;
const opened: Store[] = [];

beforeAll(async () => {
  server = await startPostgres();
});
afterAll(async () => {
  for (const s of opened) await s.close();
  await server?.stop();
});

async function pgStore(url?: string): Promise<SqlStore> {
  const s = await openPostgres(url ?? (await server.createDatabase()));
  opened.push(s);
  return s;
}

const quiet = { info() {}, warn() {}, error() {} };

/**
 * One class on a store: a room of two teams, five students, a round with changes, a role handed over, messages,
 * the lock and sharing, played to its end; a what-if fork with a pending change; a next round, a student removed.
 */
async function playClass(store: Store) {
  const clock = new ManualClock();
  let seeds = 11;
  const manager = new RoomManager({
    store,
    committer: new Committer(store),
    out: new MemoryOutput(),
    clock,
    log: quiet,
    drawSeed: () => seeds++,
  });
  const { room, teacherKey } = await manager.create({ teamCount: 2, minutes: 8, tempo: 1, simulator: 'web-service' });
  const students: PlayerState[] = [];
  const tokens: string[] = [];
  for (let i = 0; i < 5; i++) {
    const joined = await joinStudent(manager, room.code, `S${i}`);
    students.push(joined.player);
    tokens.push(joined.token);
  }
  await room.dispatch({ type: 'rename', teamId: room.state.teams[0].id, name: 'Blue' });
  await room.dispatch({ type: 'clock', action: 'start' });
  const owner = (role: string) => students.find((p) => room.player(p.id)!.roles.includes(role))!;
  for (let m = 1; m <= 8; m++) {
    if (m === 2) await room.dispatch({ type: 'assign', playerId: students[4].id, role: 'fleet' });
    if (m === 3) await room.dispatch({ type: 'control', playerId: owner('fleet').id, key: 'minInstances', value: 14 });
    if (m === 4) {
      await room.dispatch({ type: 'message', teamId: room.state.teams[1].id, text: 'Watch the queue' });
      await room.dispatch({ type: 'message', teamId: null, text: 'Half way' });
      await room.dispatch({ type: 'lock', locked: true });
    }
    if (m === 5)
      await room.dispatch({ type: 'control', playerId: owner('traffic').id, key: 'heavyFeature', value: false });
    clock.advance(1000);
    await manager.settled();
  }
  await room.dispatch({ type: 'share', shared: true });
  const roundId = room.round.id;
  const fork = await manager.fork(room.teacherId, roundId, room.state.teams[0].id, 4, {}, [
    { minute: 6, key: 'minInstances', value: 12 },
  ]);
  await room.dispatch({ type: 'clock', action: 'next' });
  await room.dispatch({ type: 'remove', playerId: students[4].id });
  await manager.close();
  return { code: room.code, forkCode: fork.code, roomId: room.id, teacherKey, tokens };
}

/** Everything the Store can say about the class. */
async function readBack(store: Store, code: string, tokens: string[], teacherKey: string) {
  const room = (await store.roomByCode(code))!;
  const rounds = await store.roundsOfRoom(room.id);
  const perRound = await Promise.all(
    rounds.map(async (r) => ({
      round: r,
      teams: await store.roundTeams(r.id),
      changes: await store.changesOfRound(r.id),
      snapshots: await store.snapshotsOfRound(r.id),
      results: await store.resultsOfRound(r.id),
      forks: await store.forksOf(r.id),
      roleChanges: await store.roleChangesOfRound(r.id),
      members: await store.roundMembers(r.id),
      messages: await store.messagesOfRound(r.id),
    })),
  );
  const forks = await Promise.all(
    perRound
      .flatMap((r) => r.forks)
      .map(async (f) => ({
        room: await store.roomById(f.roomId),
        teams: await store.teamsOfRoom(f.roomId),
        roundTeams: await store.roundTeams(f.id),
        changes: await store.changesOfRound(f.id),
      })),
  );
  const players = await store.playersOfRoom(room.id);
  return {
    room,
    byId: await store.roomById(room.id),
    teams: await store.teamsOfRoom(room.id),
    players,
    byToken: await Promise.all(tokens.map((t) => store.playerByTokenHash(hashSecret(t)))),
    teacher: await store.teacherByKeyHash(hashSecret(teacherKey)),
    latest: await store.latestRound(room.id),
    teacherRooms: await store.roomsOfTeacher(room.teacherId),
    perRound,
    finished: (await store.roundsInState(['finished'])).map((r) => r.id),
    inPlay: await store.roomsInPlay(),
    forkRooms: forks,
    playerRounds: await Promise.all(players.map((p) => store.roundsOfPlayer(p.id))),
    live: await store.liveRoomCount(room.teacherId, 0),
    liveSince: await store.liveRoomCount(room.teacherId, Date.now() + 3600_000),
  };
}

describe('the Store on PostgreSQL', () => {
  it('reads back the same class as the SQLite Store, row for row', async () => {
    const lite = openSqlite(':memory:');
    opened.push(lite);
    const pg = await pgStore();
    const a = await playClass(lite);
    const b = await playClass(pg);
    const [fromLite, fromPg] = [
      await readBack(lite, a.code, a.tokens, a.teacherKey),
      await readBack(pg, b.code, b.tokens, b.teacherKey),
    ];
    // Same ids too: one process draws its sequences in order, as SQLite counts.
    const sameCode = (x: typeof fromLite, codes: { code: string; forkCode: string }) =>
      JSON.parse(JSON.stringify(x).replaceAll(codes.code, 'CODE').replaceAll(codes.forkCode, 'FORK'));
    expect(sameCode(fromPg, b)).toEqual(sameCode(fromLite, a));
    expect(fromPg.byToken.map((p) => p?.name)).toEqual(['S0', 'S1', 'S2', 'S3', 'S4']);
    expect(fromPg.teacher).toBe(fromPg.room.teacherId);
    expect(fromPg.perRound[1].results.length).toBe(2);
    expect(fromPg.perRound[1].snapshots.length).toBe(2 * 9);
    expect(fromPg.perRound[1].changes.map((c) => c.key)).toEqual(['minInstances', 'heavyFeature']);
    // The classroom's own rows: a role handed over, messages, the lock and sharing, a fork's what-if, members.
    expect(
      fromPg.perRound[1].roleChanges.some((c) => c.role === 'fleet' && c.to?.name === 'S4' && c.minute === 2),
    ).toBe(true);
    expect(fromPg.perRound[1].messages.map((m) => m.text)).toEqual(['Watch the queue', 'Half way']);
    expect(fromPg.perRound[1].members.length).toBe(5);
    expect(fromPg.room).toMatchObject({ locked: true, replayShared: true });
    expect(fromPg.forkRooms).toHaveLength(1);
    expect(fromPg.forkRooms[0].teams[0].whatIf).toMatchObject({ roundId: fromPg.perRound[1].round.id, minute: 4 });
    expect(fromPg.forkRooms[0].roundTeams[0].whatIf).toEqual(fromPg.forkRooms[0].teams[0].whatIf);
    expect(fromPg.forkRooms[0].changes.map((c) => [c.key, c.minute])).toContainEqual(['minInstances', 6]);
    expect(fromPg.playerRounds[0].map((r) => r.roundId)).toContain(fromPg.perRound[1].round.id);
    // The class's room (its next round in the lobby) and the fork (paused) are live; none was made in the future.
    expect([fromPg.live, fromPg.liveSince]).toEqual([2, 0]);
    // The health probe writes on PostgreSQL as on SQLite.
    expect(pg.integrity).toEqual(['ok']);
    await pg.probe(1234);
    await pg.probe(5678);
    const pool = (pg.engine as PgEngine).pool;
    expect((await pool.query('SELECT id, at FROM health_probe')).rows).toEqual([{ id: 1, at: 5678 }]);
    expect(await pg.teacherByKeyHash('no such key')).toBeUndefined();
    expect(await pg.codeExists(b.code)).toBe(true);
    expect(await pg.codeExists('ZZZZZZ')).toBe(false);
  });

  it('hands out ids that two processes on one database never share', async () => {
    const url = await server.createDatabase();
    const [one, two] = [await pgStore(url), await pgStore(url)];
    await Promise.all([one.ids.ready(), two.ids.ready(), one.ids.ready()]);
    const drawn = new Set<number>();
    for (let i = 0; i < 300; i++) {
      drawn.add(one.ids.next('changes'));
      drawn.add(two.ids.next('changes'));
      if (i % 50 === 0) await Promise.all([one.ids.ready(), two.ids.ready()]);
    }
    expect(drawn.size).toBe(600);
    // A transition that did not wait for ready() is told so instead of getting a duplicate.
    const fresh = await pgStore(url);
    expect(() => fresh.ids.next('rooms')).toThrow(/await ids.ready/);
  });
});

describe('fenced commits', () => {
  /** A stored room with one running round, its id and its round's id. */
  async function roomOn(store: Store) {
    const clock = new ManualClock();
    const manager = new RoomManager({
      store,
      committer: new Committer(store),
      out: new MemoryOutput(),
      clock,
      log: quiet,
      drawSeed: () => 5,
    });
    const { room } = await manager.create({ teamCount: 1, minutes: 10, tempo: 1 });
    await room.dispatch({ type: 'clock', action: 'start' });
    await manager.close();
    return { roomId: room.id, roundId: room.round.id };
  }
  const minute = (roundId: number, teamId: number, m: number): Write => ({
    op: 'insertSnapshots',
    roundId,
    rows: [{ teamId, minute: m, data: `{"m":${m}}` }],
  });

  it('a claim raises the fence; a commit below it is refused and stores nothing', async () => {
    const store = await pgStore();
    const { roomId, roundId } = await roomOn(store);
    const [{ teamId }] = await store.roundTeams(roundId);
    await store.commit([[minute(roundId, teamId, 1), { op: 'fence', roomId, token: 1, at: 1000 }]]);
    expect(await store.roomById(roomId)).toMatchObject({ fence: 1, fencedAt: 1000 });

    // Another process takes the room: token 2. The claim returns the room as the old owner left it.
    expect(await store.claimRoom(roomId, 2)).toMatchObject({ id: roomId, fence: 2, fencedAt: 1000 });
    expect(await store.claimRoom(roomId, 2)).toBeUndefined();
    expect(await store.claimRoom(roomId, 1)).toBeUndefined();

    // The old owner's next minute: refused as a whole.
    const stale = store.commit([
      [
        minute(roundId, teamId, 2),
        { op: 'updateRound', id: roundId, set: { minute: 2 } },
        { op: 'fence', roomId, token: 1, at: 2000 },
      ],
    ]);
    await expect(stale).rejects.toBeInstanceOf(FencedError);
    expect((await store.snapshotsOfRound(roundId)).map((s) => s.minute)).toEqual([0, 1]);
    expect(await store.roundById(roundId)).toMatchObject({ minute: 0 });
    // The new owner commits the same minute with its token.
    await store.commit([[minute(roundId, teamId, 2), { op: 'fence', roomId, token: 2, at: 3000 }]]);
    expect((await store.snapshotsOfRound(roundId)).map((s) => s.minute)).toEqual([0, 1, 2]);
    expect(await store.claimRoom(roomId + 1000, 9)).toBeUndefined();
  });

  it('in a group commit, only the room whose token is stale is refused', async () => {
    const store = await pgStore();
    const [a, b] = [await roomOn(store), await roomOn(store)];
    const [ta] = await store.roundTeams(a.roundId);
    const [tb] = await store.roundTeams(b.roundId);
    await store.claimRoom(a.roomId, 3);
    const committer = new Committer(store);
    const results = await Promise.allSettled([
      committer.commit([minute(a.roundId, ta.teamId, 1), { op: 'fence', roomId: a.roomId, token: 2, at: 1 }]),
      committer.commit([minute(b.roundId, tb.teamId, 1), { op: 'fence', roomId: b.roomId, token: 1, at: 1 }]),
    ]);
    expect(results[0]).toMatchObject({ status: 'rejected', reason: expect.any(FencedError) });
    expect(results[1]).toMatchObject({ status: 'fulfilled' });
    // One transaction with b's next minute and a room created (and fenced) in it: the new row is there to fence.
    await store.ids.ready();
    const [teacherId, roomId] = [store.ids.next('teachers'), store.ids.next('rooms')];
    await store.commit([
      [
        minute(b.roundId, tb.teamId, 2),
        { op: 'updateRound', id: b.roundId, set: { minute: 2 } },
        { op: 'fence', roomId: b.roomId, token: 1, at: 2 },
      ],
      [
        { op: 'insertTeacher', id: teacherId, keyHash: 'new-key', createdAt: 2 },
        {
          op: 'insertRoom',
          id: roomId,
          code: 'NEW123',
          teacherId,
          config: {
            simulator: 'web-service',
            scenario: 'free',
            minutes: 5,
            tempo: 1,
            seed: null,
            teamCount: 1,
          } as never,
          createdAt: 2,
        },
        { op: 'fence', roomId, token: 1, at: 2 },
      ],
    ]);
    expect(await store.roomByCode('NEW123')).toMatchObject({ id: roomId, fence: 1, fencedAt: 2 });
    expect(await store.roundById(b.roundId)).toMatchObject({ minute: 2 });
    expect((await store.snapshotsOfRound(a.roundId)).map((s) => s.minute)).toEqual([0]);
    expect((await store.snapshotsOfRound(b.roundId)).map((s) => s.minute)).toEqual([0, 1, 2]);
    expect((await store.roomsInPlay()).map((r) => r.id).sort()).toEqual([a.roomId, b.roomId].sort());
  });

  it('SQLite applies the same fence (one process never writes it, but the Store is one contract)', async () => {
    const store = openSqlite(':memory:');
    opened.push(store);
    const clock = new ManualClock();
    const manager = new RoomManager({
      store,
      committer: new Committer(store),
      out: new MemoryOutput(),
      clock,
      log: quiet,
      drawSeed: () => 5,
    });
    const { room } = await manager.create({ teamCount: 1 });
    await manager.close();
    expect(await store.claimRoom(room.id, 4)).toMatchObject({ fence: 4, fencedAt: null });
    await expect(store.commit([[{ op: 'fence', roomId: room.id, token: 3, at: 1 }]])).rejects.toBeInstanceOf(
      FencedError,
    );
    await store.commit([[{ op: 'fence', roomId: room.id, token: 4, at: 7 }]]);
    expect(await store.roomById(room.id)).toMatchObject({ fence: 4, fencedAt: 7 });
  });
});
