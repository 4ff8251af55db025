// A whole class on a real server: teacher + 8 students in 2 teams play sale-surge over socket.io.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { formatControlValue } from '../../shared/sim/controls.ts';
import { runCli } from '../../server/cli/sim-cli.ts';
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
import type { ChangeRecord, RoomView, TeamMinute } from '../../shared/protocol/types.ts';

const MINUTES = 20;
const SEED = 7;

describe('a class of 8 in 2 teams plays sale-surge', () => {
  let server: TestServer;
  let code: string;
  let teacher: Client;
  const students: { name: string; client: Client; playerId: number; minutes: TeamMinute[]; pending: ChangeRecord[] }[] =
    [];
  let room: RoomView;

  beforeAll(async () => {
    server = await startServer();
    const created = await createRoom(server, {
      simulator: 'payment-switch',
      scenario: 'sale-surge',
      teamCount: 2,
      minutes: MINUTES,
      tempo: 1,
      seed: SEED,
    });
    code = created.code;
    teacher = await connect(server);
    await ok(teacher, 'teacher:join', { code, key: created.teacherKey });
    for (let i = 0; i < 8; i++) {
      // Half the class on websocket only, half starting with long-polling.
      const client = await connect(server, i % 2 ? ['polling', 'websocket'] : ['websocket']);
      const name = `Student ${i + 1}`;
      const minutes = collect(client, 'minute');
      const pending = collect(client, 'pending');
      const joined = await ok(client, 'student:join', { code, name });
      students.push({ name, client, playerId: joined.playerId, minutes, pending });
      room = joined.room;
    }
    room = (await ok(teacher, 'teacher:clock', { action: 'start' })).room;
  });
  afterAll(() => server.close());

  const player = (s: { playerId: number }) => room.players.find((p) => p.id === s.playerId)!;
  const owner = (teamId: number, role: string) =>
    students.find((s) => player(s).teamId === teamId && player(s).roles.includes(role))!;
  const allAt = (minute: number) =>
    until(() => students.every((s) => s.minutes.length === minute + 1), `every student at minute ${minute}`);
  const tick = async () => {
    const next = students[0].minutes.length;
    server.clock.advance(1000);
    await allAt(next);
  };

  test('each student owns exactly one role and every team has all four', () => {
    expect(room.teams).toHaveLength(2);
    for (const t of room.teams) {
      const members = room.players.filter((p) => p.teamId === t.id);
      expect(members).toHaveLength(4);
      for (const p of members) expect(p.roles).toHaveLength(1);
      expect(members.flatMap((p) => p.roles).sort()).toEqual(['fraud', 'scaling', 'shedding', 'standin']);
    }
    expect(room.players.every((p) => p.connected)).toBe(true);
  });

  test('minute 0 is the opening screen for everyone', async () => {
    await allAt(0);
    for (const s of students) expect(s.minutes[0].snapshot.minute).toBe(0);
  });

  test("an owner's change is pending for the team at once and applies at the next minute, attributed", async () => {
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
      'pending change reaches the team',
    );
    // The other team hears nothing of it.
    expect(students.filter((s) => player(s).teamId !== t1).every((s) => s.pending.length === 0)).toBe(true);
    expect(team[0].minutes[1].snapshot.controls.servers).toBe(6);
    await tick(); // minute 2
    for (const s of team) {
      const snap = s.minutes[2].snapshot;
      expect(snap.controls.servers).toBe(10);
      expect(snap.events).toContainEqual({ kind: 'control', key: 'servers', value: 10 });
      expect(snap.indicators.serversBooting).toBe(4);
    }
    const other = students.find((s) => player(s).teamId !== t1)!;
    expect(other.minutes[2].snapshot.controls.servers).toBe(6);
  });

  test("a non-owner's change is refused with a clear error and changes nothing", async () => {
    const t2 = room.teams[1].id;
    const fraud = owner(t2, 'fraud');
    const before = students.map((s) => s.pending.length);
    const r = await request(fraud.client, 'student:control', { key: 'servers', value: 12 });
    expect(r).toMatchObject({ ok: false, error: { code: 'NOT_OWNER' } });
    if (!r.ok) expect(r.error.message).toMatch(/servers belongs to the scaling role/);
    const bad = await request(owner(t2, 'scaling').client, 'student:control', { key: 'servers', value: 30 });
    expect(bad).toMatchObject({
      ok: false,
      error: { code: 'OUT_OF_RANGE', key: 'servers', allowed: expect.stringContaining('2–24') },
    });
    await tick(); // minute 3
    expect(students.map((s) => s.pending.length)).toEqual(before);
    const t2Student = students.find((s) => player(s).teamId === t2)!;
    expect(t2Student.minutes[3].snapshot.controls.servers).toBe(6);
    expect(t2Student.minutes[3].snapshot.events.filter((e) => e.kind === 'control')).toEqual([]);
  });

  test('team 2 turns shedding on and switches to backoff; both apply at the next minute', async () => {
    const t2 = room.teams[1].id;
    const shed = owner(t2, 'shedding');
    await ok(shed.client, 'student:control', { key: 'shedding', value: true });
    await ok(shed.client, 'student:control', { key: 'retryPolicy', value: 'backoff' });
    await tick(); // minute 4
    const snap = shed.minutes[4].snapshot;
    expect(snap.controls).toMatchObject({ shedding: true, retryPolicy: 'backoff' });
  });

  test('the round runs to its end: every student got every minute once, in order', async () => {
    const scores = students.map((s) => collect(s.client, 'scores'));
    for (let m = 5; m <= MINUTES; m++) await tick();
    for (const s of students) {
      expect(s.minutes.map((x) => x.snapshot.minute)).toEqual(Array.from({ length: MINUTES + 1 }, (_, i) => i));
      expect(new Set(s.minutes.map((x) => x.roundId)).size).toBe(1);
    }
    await until(() => scores.every((x) => x.length === 1), 'scores to everyone');
    const r = await request(students[0].client, 'student:control', { key: 'servers', value: 8 });
    expect(r).toMatchObject({ ok: false });
  });

  test("the stored scores equal the CLI's result for the same seed and recorded changes", async () => {
    const store = server.app.store;
    const roundId = students[0].minutes[0].roundId;
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
      // Both score against doing nothing and a calm hour on the same seed and minutes.
      expect(res.score).toBe(cli.score);
      // The team's last minute carried the same ledger figures and score.
      const last = students.find((s) => player(s).teamId === res.teamId)!.minutes.at(-1)!;
      expect(last.score).toBe(cli.score);
      expect(last.ledger).toEqual({
        total: cli.ledger.total,
        baseline: cli.ledger.nothing,
        calm: cli.ledger.calm,
        saving: cli.ledger.saving,
      });
      const byId = new Map(res.goals.map((g) => [g.id, g]));
      for (const g of cli.goals) {
        expect(byId.get(g.id)).toMatchObject({ value: g.value, target: g.target, met: g.met });
      }
      // And every stored minute is the CLI's minute.
      const stored = (await store.snapshotsOfRound(roundId, { teamId: res.teamId })).map((s) => JSON.parse(s.data));
      expect(stored.map((s) => s.indicators)).toEqual(lines.slice(0, -1).map((l) => JSON.parse(l).indicators));
    }
  });
});
