// A class across two processes of a cluster: the room is created on A (which owns its clock), the teacher is on
// A, the eight students on B. Everything a student does goes from B to A and back; every minute goes from A to B.
// The round plays to its end with the scores the CLI computes for the same seed and changes.
import { WebSocket } from 'ws';
import { beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../../server/cli/sim-cli.ts';
import type { SqlStore } from '../../server/db/store.ts';
import type { ChangeRecord, RoomView, TeamMinute } from '../../shared/protocol/types.ts';
import { formatControlValue } from '../../shared/sim/controls.ts';
import { collect, ok, request, until, type Client } from '../server/helpers.ts';
import { testCluster, type Node } from './nodes.ts';

const MINUTES = 20;
const SEED = 7;
const cluster = testCluster('class');

describe('a class of 8 in 2 teams, teacher on one process, students on the other', () => {
  let a: Node;
  let b: Node;
  let store: SqlStore;
  let code: string;
  let teacher: Client;
  const teacherMinutes: { minute: number }[] = [];
  const students: {
    name: string;
    client: Client;
    playerId: number;
    token: string;
    minutes: TeamMinute[];
    pending: ChangeRecord[];
  }[] = [];
  let room: RoomView;
  const feed: { type: string; minute?: number }[] = [];

  beforeAll(async () => {
    await cluster.services();
    [a, b] = await Promise.all([cluster.start('a'), cluster.start('b')]);
    store = await cluster.store();
    const res = await a.post('/api/rooms', {
      simulator: 'payment-switch',
      scenario: 'sale-surge',
      teamCount: 2,
      minutes: MINUTES,
      tempo: 1,
      seed: SEED,
    });
    expect(res.status).toBe(201);
    const created = await res.json();
    code = created.code;
    teacher = await a.connect();
    (teacher.on as (e: string, fn: (p: { minute: number }) => void) => void)('room:minute', (m) =>
      teacherMinutes.push(m),
    );
    await ok(teacher, 'teacher:join', { code, key: created.teacherKey });
    for (let i = 0; i < 8; i++) {
      const client = await b.connect();
      const name = `Student ${i + 1}`;
      const minutes = collect(client, 'minute');
      const pending = collect(client, 'pending');
      const joined = await ok(client, 'student:join', { code, name });
      students.push({ name, client, playerId: joined.playerId, token: joined.token, minutes, pending });
      room = joined.room;
    }
  });

  const player = (s: { playerId: number }) => room.players.find((p) => p.id === s.playerId)!;
  const owner = (teamId: number, role: string) =>
    students.find((s) => player(s).teamId === teamId && player(s).roles.includes(role))!;
  const allAt = (minute: number) =>
    until(() => students.every((s) => s.minutes.length === minute + 1), `every student at minute ${minute}`);
  const tick = async () => {
    const next = students[0].minutes.length;
    await a.advance(1000);
    await allAt(next);
  };

  test('only A holds the room; B answers for it through A', async () => {
    expect((await a.rooms()).held.map((r) => r.code)).toEqual([code]);
    expect((await b.rooms()).held).toEqual([]);
    // The joins went through B to A: every student is seated, connected, one role each.
    expect(room.players).toHaveLength(8);
    for (const t of room.teams)
      expect(
        room.players
          .filter((p) => p.teamId === t.id)
          .flatMap((p) => p.roles)
          .sort(),
      ).toEqual(['fraud', 'scaling', 'shedding', 'standin']);
    expect(room.players.every((p) => p.connected)).toBe(true);
    const look = await (await fetch(`${b.url}/api/rooms/${code}`)).json();
    expect(look).toMatchObject({ code, state: 'lobby', teams: 2, players: 8 });
  });

  test('a plain feed client on B hears A’s room', async () => {
    const ws = new WebSocket(`${b.url.replace('http', 'ws')}/api/rooms/${code}/feed`);
    ws.on('message', (data) => feed.push(JSON.parse(String(data))));
    await until(() => feed.length > 0, 'the hello');
    expect(feed[0]).toMatchObject({ type: 'hello', room: { code } });
  });

  test('the teacher on A starts; minute 0 reaches every student on B', async () => {
    room = (await ok(teacher, 'teacher:clock', { action: 'start' })).room;
    await allAt(0);
    for (const s of students) expect(s.minutes[0].snapshot.minute).toBe(0);
  });

  test("an owner's change on B is pending for the team at once and applies at the next minute", async () => {
    await tick(); // minute 1
    const t1 = room.teams[0].id;
    const scaler = owner(t1, 'scaling');
    const res = await ok(scaler.client, 'student:control', { key: 'servers', value: 10 });
    expect(res.change).toMatchObject({
      key: 'servers',
      value: 10,
      minute: 2,
      teamId: t1,
      author: { playerId: scaler.playerId, name: scaler.name },
    });
    const team = students.filter((s) => player(s).teamId === t1);
    await until(
      () => team.every((s) => s.pending.some((c) => c.id === res.change.id)),
      'the pending change reaches the team',
    );
    expect(students.filter((s) => player(s).teamId !== t1).every((s) => s.pending.length === 0)).toBe(true);
    await tick(); // minute 2
    for (const s of team) expect(s.minutes[2].snapshot.controls.servers).toBe(10);
  });

  test("a non-owner's change is refused across the processes with the owner's error, and changes nothing", async () => {
    const t2 = room.teams[1].id;
    const r = await request(owner(t2, 'fraud').client, 'student:control', { key: 'servers', value: 12 });
    expect(r).toMatchObject({ ok: false, error: { code: 'NOT_OWNER' } });
    const bad = await request(owner(t2, 'scaling').client, 'student:control', { key: 'servers', value: 30 });
    expect(bad).toMatchObject({
      ok: false,
      error: { code: 'OUT_OF_RANGE', key: 'servers', allowed: expect.stringContaining('2–24') },
    });
    await tick(); // minute 3
    expect(owner(t2, 'scaling').minutes[3].snapshot.controls.servers).toBe(6);
  });

  test('a student on B who leaves is shown as gone to the teacher on A, and is back on rejoining', async () => {
    const presence = collect(teacher, 'presence');
    const s = students[7];
    s.client.disconnect();
    await until(() => presence.length === 1, 'the leave');
    expect(presence[0]).toEqual({ playerId: s.playerId, connected: false, idle: false, free: false });
    const again = await b.connect();
    const back = await ok(again, 'student:join', { code, token: s.token });
    expect(back.playerId).toBe(s.playerId);
    expect(back.history.snapshots.map((x: { minute: number }) => x.minute)).toEqual([0, 1, 2, 3]);
    await until(() => presence.length === 2, 'the return');
    expect(presence[1]).toEqual({ playerId: s.playerId, connected: true, idle: false, free: false });
    // From now on this socket gets the minutes: the history's four, then the broadcasts.
    s.minutes.length = 0;
    s.minutes.push(...back.history.snapshots.map((snapshot: unknown) => ({ snapshot }) as TeamMinute));
    s.client = again;
    (again.on as (e: string, fn: (p: TeamMinute) => void) => void)('minute', (m) => s.minutes.push(m));
  });

  test('the teacher on A moves a student of B to the other team: the student follows it from the next minute', async () => {
    const mover = students.find((s) => player(s).teamId === room.teams[1].id && player(s).roles.includes('fraud'))!;
    const history = collect(mover.client, 'history');
    room = (await ok(teacher, 'teacher:move', { playerId: mover.playerId, teamId: room.teams[0].id })).room;
    await until(() => history.length === 1, 'the new team’s history');
    expect(history[0].teamId).toBe(room.teams[0].id);
    await tick(); // minute 4
    expect(mover.minutes[4].teamId).toBe(room.teams[0].id);
    for (const s of students) expect(s.minutes.filter((m) => m.snapshot.minute === 4)).toHaveLength(1);
  });

  test('the round runs to its end: every student got every minute once, in order, then the scores', async () => {
    const scores = students.map((s) => collect(s.client, 'scores'));
    for (let m = 5; m <= MINUTES; m++) await tick();
    for (const s of students)
      expect(s.minutes.map((x) => x.snapshot.minute)).toEqual(Array.from({ length: MINUTES + 1 }, (_, i) => i));
    await until(() => teacherMinutes.length === MINUTES + 1, 'the last minute to the teacher');
    expect(teacherMinutes.map((m) => m.minute)).toEqual(Array.from({ length: MINUTES + 1 }, (_, i) => i));
    await until(() => scores.every((x) => x.length === 1), 'scores to everyone');
    await until(() => feed.some((m) => m.type === 'scores'), 'the scores on the feed');
    expect(feed.filter((m) => m.type === 'summary').map((m) => m.minute)).toEqual(
      Array.from({ length: MINUTES + 1 }, (_, i) => i),
    );
  });

  test("the stored scores equal the CLI's for the same seed and recorded changes", async () => {
    const roundId = students[0].minutes[MINUTES].roundId;
    expect(await store.roundById(roundId)).toMatchObject({ state: 'finished', minute: MINUTES });
    const results = await store.resultsOfRound(roundId);
    expect(results).toHaveLength(2);
    for (const res of results) {
      const changes = (await store.changesOfRound(roundId)).filter((c) => c.teamId === res.teamId);
      const args = [
        '--model',
        'payment-switch',
        '--scenario',
        'sale-surge',
        '--seed',
        String(SEED),
        '--minutes',
        String(MINUTES),
      ];
      for (const c of changes) args.push('--set', `${c.key}=${formatControlValue(c.value)}@${c.minute}`);
      const out = runCli(args);
      expect(out.code).toBe(0);
      const lines = out.stdout.trim().split('\n');
      const cli = JSON.parse(lines[lines.length - 1]).result;
      expect(res.score).toBe(cli.score);
      const byId = new Map(res.goals.map((g) => [g.id, g]));
      for (const g of cli.goals) expect(byId.get(g.id)).toMatchObject({ value: g.value, target: g.target, met: g.met });
      const stored = (await store.snapshotsOfRound(roundId, { teamId: res.teamId })).map((s) => JSON.parse(s.data));
      expect(stored.map((s) => s.indicators)).toEqual(lines.slice(0, -1).map((l) => JSON.parse(l).indicators));
    }
    // Every commit of the room carried A's fencing token.
    const row = await store.roomByCode(code);
    expect(row!.fence).toBeGreaterThan(0);
  });
});
