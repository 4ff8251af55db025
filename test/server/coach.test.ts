// The hindsight coach over HTTP: after the round, the teacher reads every team's suggestion and a student
// their own team's; the search runs on the coach's thread; the suggestion opens as a what-if whose team
// starts with the suggested changes pending and, played on, ends with the figures the coach claimed.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { CoachReport, RoomView } from '../../shared/protocol/types.ts';
import { Coach, type CoachDone, type CoachJob, DEFAULT_COACH_LIMITS, WorkerRunner } from '../../server/replay/coach.ts';
import { inlineRunner } from '../../server/replay/coach-job.ts';
import { connect, createRoom, ok, startServer, type TestServer } from './helpers.ts';

let server: TestServer;
const auth = (secret: string) => ({ authorization: `Bearer ${secret}` });
const get = (url: string, secret?: string) =>
  server.app.inject({ method: 'GET', url, headers: secret ? auth(secret) : {} });
const post = (url: string, secret: string, payload: object) =>
  server.app.inject({ method: 'POST', url, headers: auth(secret), payload });

async function minutes(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    server.clock.advance(1000);
    await server.app.rooms.settled();
  }
}

describe('the hindsight coach', () => {
  let teacherKey: string;
  let roundId: number;
  let t1: number;
  let t2: number;
  const tokens: Record<string, string> = {};
  let report: CoachReport;

  beforeAll(async () => {
    server = await startServer();
    // Bad deploy, seed 1: the deploy shows at minute 16. Ana (team 1, every role) rolls back as soon as she
    // sees it — her press applies at 17 — but p99 stays over its goal; Bo's team does nothing.
    const created = await createRoom(server, {
      simulator: 'web-service',
      scenario: 'bad-deploy',
      teamCount: 2,
      minutes: 60,
      tempo: 1,
      seed: 1,
    });
    teacherKey = created.teacherKey;
    const teacher = await connect(server);
    await ok(teacher, 'teacher:join', { code: created.code, key: teacherKey });
    const ana = await connect(server);
    const joined = await ok(ana, 'student:join', { code: created.code, name: 'Ana' });
    tokens.Ana = joined.token;
    tokens.Bo = (await ok(await connect(server), 'student:join', { code: created.code, name: 'Bo' })).token;
    const room: RoomView = (await ok(teacher, 'teacher:clock', { action: 'start' })).room;
    roundId = room.round.id;
    t1 = room.players.find((p) => p.name === 'Ana')!.teamId!;
    t2 = room.teams.find((t) => t.id !== t1)!.id;
    await minutes(16);
    // Received during minute 16: applies at the start of minute 17.
    expect((await ok(ana, 'student:control', { key: 'rollback', value: 'press' })).change.minute).toBe(17);
    await minutes(2);
    // Not while the round runs.
    const early = await get(`/api/rounds/${roundId}/coach`, teacherKey);
    expect([early.statusCode, early.json().error.code]).toEqual([409, 'BAD_STATE']);
    await minutes(42);
    expect(
      (await server.app.store.snapshotsOfRound(roundId, { teamId: t1, upToMinute: 16 })).map(
        (x) => JSON.parse(x.data).indicators.badBuildShare,
      ),
    ).toEqual([...Array(16).fill(0), 0.2]);
    expect((await server.app.store.roundById(roundId))?.state).toBe('finished');
  }, 30_000);
  afterAll(() => server.close());

  test('the teacher reads every team: p99 wanted low-priority traffic shed as well, from minute 17 to the end', async () => {
    const res = await get(`/api/rounds/${roundId}/coach`, teacherKey);
    expect(res.statusCode).toBe(200);
    report = res.json();
    expect(report.roundId).toBe(roundId);
    expect(report.teams.map((t) => t.teamId).sort()).toEqual([t1, t2].sort());
    const mine = report.teams.find((t) => t.teamId === t1)!;
    expect(mine.tried).toBeGreaterThan(100);
    expect(mine.searchedMs).toBeGreaterThan(0);
    expect(mine.suggestion).toMatchObject({
      kind: 'add',
      key: 'shedLowPriority',
      fromMinute: null,
      toMinute: 17,
      goalsNowMet: ['p99'],
      goalsNowMissed: [],
      until: null,
      unusual: null,
      forkMinute: 16,
    });
    // No press before the desk showed the deploy: the rollback stays where Ana could make it.
    expect(mine.suggestion!.changes.filter((c) => c.key === 'rollback')).toEqual([
      { minute: 17, key: 'rollback', value: 'press' },
    ]);
    expect(mine.suggestion!.after.score!).toBeGreaterThan(mine.suggestion!.before.score!);
    // Its "before" is the team's stored verdict.
    const stored = (await server.app.store.resultsOfRound(roundId)).find((r) => r.teamId === t1)!;
    expect(mine.suggestion!.before).toMatchObject({
      score: stored.score,
      goalsMet: stored.goals.filter((g) => g.met).length,
    });
    // Bo's team did nothing: one decision more.
    expect(report.teams.find((t) => t.teamId === t2)!.suggestion?.kind).toBe('add');
    // Asked again: the same answer, kept.
    expect((await get(`/api/rounds/${roundId}/coach`, teacherKey)).json()).toEqual(report);
  });

  test('a student reads their own team only; nobody else reads it', async () => {
    const ana: CoachReport = (await get(`/api/rounds/${roundId}/coach`, tokens.Ana)).json();
    expect(ana.teams).toEqual(report.teams.filter((t) => t.teamId === t1));
    const bo: CoachReport = (await get(`/api/rounds/${roundId}/coach`, tokens.Bo)).json();
    expect(bo.teams.map((t) => t.teamId)).toEqual([t2]);
    expect((await get(`/api/rounds/${roundId}/coach`)).statusCode).toBe(401);
    expect((await get(`/api/rounds/${roundId}/coach`, 'x'.repeat(40))).json().error.code).toBe('BAD_TOKEN');
    const other = await createRoom(server, { teamCount: 1 });
    const stranger = (await ok(await connect(server), 'student:join', { code: other.code, name: 'Cy' })).token;
    expect((await get(`/api/rounds/${roundId}/coach`, stranger)).json().error.code).toBe('ROUND_NOT_FOUND');
    expect((await get(`/api/rounds/${roundId}/coach`, other.teacherKey)).json().error.code).toBe('ROUND_NOT_FOUND');
  });

  test('the suggestion opens as a what-if with its changes pending — the coach’s by the Coach, the team’s by their authors; played on, it ends as claimed', async () => {
    const s = report.teams.find((t) => t.teamId === t1)!.suggestion!;
    const pending = s.changes.filter((c) => c.minute > s.forkMinute);
    const res = await post(`/api/rounds/${roundId}/fork`, teacherKey, {
      teamId: t1,
      minute: s.forkMinute,
      changes: pending,
    });
    expect(res.statusCode).toBe(201);
    const fork = res.json();
    const room = await server.app.rooms.get(fork.code);
    const team = room.view('teacher').teams[0].id;
    const history = (await room.historyOf(team))!;
    expect(history.snapshots.at(-1)!.minute).toBe(s.forkMinute);
    // The coach's own change is by the Coach; Ana's own rollback, pending too, is still hers.
    expect(history.changes.filter((c) => c.minute > s.forkMinute)).toEqual(
      pending.map((c) =>
        expect.objectContaining({
          minute: c.minute,
          key: c.key,
          value: c.value,
          author: { playerId: null, name: c.key === s.key ? 'Coach' : 'Ana' },
        }),
      ),
    );
    expect(pending.map((c) => c.key).sort()).toEqual(['rollback', 'shedLowPriority']);
    // The changes are stored with the fork.
    const stored = (await server.app.store.changesOfRound(fork.roundId)).filter((c) => c.minute > s.forkMinute);
    expect(stored.map((c) => c.author.name).sort()).toEqual(['Ana', 'Coach']);
    await room.dispatch({ type: 'clock', action: 'resume' });
    await minutes(60 - s.forkMinute);
    const scores = room.scores()!;
    expect(scores.teams[0].score).toBe(s.after.score);
    expect(scores.teams[0].goals.filter((g) => g.met)).toHaveLength(s.after.goalsMet);
  });

  test('a fork with bad changes is refused and makes nothing', async () => {
    const before = (await get('/api/teacher/rooms', teacherKey)).json().rooms.length;
    const bad = [
      { teamId: t1, minute: 14, changes: [{ minute: 14, key: 'rollback', value: 'press' }] },
      { teamId: t1, minute: 14, changes: [{ minute: 15, key: 'nope', value: 1 }] },
      { teamId: t1, minute: 14, changes: [{ minute: 15, key: 'minInstances', value: 999 }] },
      { teamId: t1, minute: 14, changes: [{ minute: 61, key: 'rollback', value: 'press' }] },
    ];
    for (const payload of bad) {
      const res = await post(`/api/rounds/${roundId}/fork`, teacherKey, payload);
      expect([res.statusCode, res.json().error.code]).toEqual([400, 'BAD_REQUEST']);
    }
    expect((await get('/api/teacher/rooms', teacherKey)).json().rooms.length).toBe(before);
  });
});

describe('the coach’s queue', () => {
  const job: CoachJob = {
    simulator: 'web-service',
    scenario: 'bad-deploy',
    seed: 1,
    noise: true,
    minutes: 20,
    minute: 20,
    changes: [],
    options: { maxPlays: 20 },
  };

  test('one search at a time; a team asked twice is searched once; past the queue it is busy, and nothing is lost', async () => {
    const coach = new Coach(inlineRunner, { queue: 2, perAsker: 2, perAddress: 2, cached: 10 });
    const a = coach.team(1, 1, job);
    expect(coach.team(1, 1, job)).toBe(a);
    const b = coach.team(1, 2, job);
    expect(() => coach.team(1, 3, job)).toThrow(/coach is busy/);
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra).toMatchObject({ teamId: 1, tried: 20 });
    expect({ ...rb, teamId: 1, searchedMs: ra.searchedMs }).toEqual(ra);
    // Once the queue has room again, the team refused before is searched.
    await expect(coach.team(1, 3, job)).resolves.toMatchObject({ teamId: 3, tried: 20 });
  });

  test('askers take turns: another teacher’s one team waits behind one search, not behind a whole class', async () => {
    const order: string[] = [];
    const pending: (() => void)[] = [];
    const runner = {
      run: (j: CoachJob) =>
        new Promise<CoachDone>((resolve) => {
          order.push(j.scenario);
          pending.push(() => resolve({ result: { before: null as never, tried: 0, suggestion: null }, ms: 1 }));
        }),
      close: async () => {},
    };
    const coach = new Coach(runner, DEFAULT_COACH_LIMITS);
    const asker = (n: string) => ({ asker: `teacher:${n}`, address: n });
    const theirs = Array.from({ length: 30 }, (_, t) => coach.team(1, t, { ...job, scenario: `a${t}` }, asker('a')));
    const mine = coach.team(2, 1, { ...job, scenario: 'b' }, asker('b'));
    // The first teacher's first team is being searched; the other teacher's comes right after it.
    pending.shift()?.();
    await new Promise((r) => setImmediate(r));
    pending.shift()?.();
    await expect(mine).resolves.toMatchObject({ teamId: 1 });
    expect(order.slice(0, 2)).toEqual(['a0', 'b']);
    while (order.length < 31 || pending.length) {
      pending.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(theirs);
    expect(order).toHaveLength(31);
  });

  test('counts teams, not requests: a teacher has 32 waiting, an address 64, everyone 256', async () => {
    const never = { run: () => new Promise<CoachDone>(() => {}), close: async () => {} };
    const coach = new Coach(never, DEFAULT_COACH_LIMITS);
    const ask = (round: number, teams: number, asker: string, address: string) =>
      Array.from({ length: teams }, (_, t) => {
        try {
          void coach.team(round, t, job, { asker, address });
          return 'queued';
        } catch (e) {
          return (e as Error).message;
        }
      });
    // One teacher's class of 30 teams is queued whole; a second class of theirs only up to their share.
    expect(ask(1, 30, 'teacher:1', 'x').every((r) => r === 'queued')).toBe(true);
    const second = ask(2, 30, 'teacher:1', 'x');
    expect(second.filter((r) => r === 'queued')).toHaveLength(2);
    expect(second.at(-1)).toMatch(/still searching the teams you asked for/);
    // Another teacher on the same address: the address's share (64) is what is left.
    expect(ask(3, 30, 'teacher:2', 'x').filter((r) => r === 'queued')).toHaveLength(30);
    expect(ask(4, 5, 'teacher:3', 'x').filter((r) => r === 'queued')).toHaveLength(2);
    // A teacher elsewhere is not held back.
    expect(ask(5, 30, 'teacher:4', 'y').every((r) => r === 'queued')).toBe(true);
  });

  test('a team that sent every control every minute for 240 minutes is searched within the thread’s limits', async () => {
    // 1,920 decisions, some 50,000 candidates: made one at a time, the search keeps to its plays and to a small heap
    // (made all at once, with each play's JSON as its key, it took a gigabyte).
    const changes = [];
    for (let m = 1; m <= 240; m++) {
      const v = m % 2;
      changes.push(
        { minute: m, key: 'minInstances', value: 5 + (m % 20) },
        { minute: m, key: 'autoscaling', value: v === 0 },
        { minute: m, key: 'targetUtilization', value: v ? 0.6 : 0.7 },
        { minute: m, key: 'cacheTtlS', value: 30 + m },
        { minute: m, key: 'warmUp', value: 'press' },
        { minute: m, key: 'shedLowPriority', value: (m % 10) / 10 },
        { minute: m, key: 'heavyFeature', value: v === 1 },
        { minute: m, key: 'rollback', value: 'press' },
      );
    }
    const runner = new WorkerRunner({ maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8, stackSizeMb: 4 });
    try {
      const done = await runner.run({
        simulator: 'web-service',
        scenario: 'launch-day',
        seed: 3,
        noise: true,
        minutes: 240,
        minute: 240,
        changes,
      });
      expect(done.result.tried).toBe(1000);
      expect(done.result.before.goals).toBeGreaterThan(0);
    } finally {
      await runner.close();
    }
  });
});
