// Split view: a teacher option that each scenario defaults; with it on, a student's minute and history
// keep only the headline figures, the ledger and what their roles see — checked on the sockets — while
// the teacher, the observers and the feed get everything. A team's minute is made once per set of roles
// in it, not once per student.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { sharedKeys, visibleKeys } from '../../shared/classroom/split.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';
import type { RoomMinute, TeamMinute } from '../../shared/protocol/types.ts';
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
import { roomEnv, type RoomEnv } from './rooms.ts';
import { joinStudent } from './seats.ts';

const keysOf = (m: TeamMinute) => Object.keys(m.snapshot.indicators).sort();
const visible = (roles: string[]) => [...visibleKeys(paymentSwitch, roles)].sort();
const every = paymentSwitch.indicators.map((i) => i.key).sort();

describe('the option', () => {
  let env: RoomEnv;
  beforeEach(() => {
    env = roomEnv();
  });

  test("picking a scenario brings its split view and length; the lobby changes them; old rooms read their scenario's default", async () => {
    const { room } = await env.manager.create({ scenario: 'sale-day' });
    expect(room.view('teacher').config).toMatchObject({ scenario: 'sale-day', splitView: true, minutes: 60 });
    await room.dispatch({ type: 'configure', patch: { scenario: 'sale-surge' } });
    expect(room.view('teacher').config).toMatchObject({ splitView: false, minutes: 60 });
    await room.dispatch({ type: 'configure', patch: { scenario: 'issuer-trouble', splitView: false, minutes: 30 } });
    expect(room.view('teacher').config).toMatchObject({ scenario: 'issuer-trouble', splitView: false, minutes: 30 });
    // Another setting leaves them as the teacher set them.
    await room.dispatch({ type: 'configure', patch: { teamCount: 3 } });
    expect(room.view('teacher').config).toMatchObject({ splitView: false, minutes: 30 });
    await room.dispatch({ type: 'configure', patch: { splitView: true } });
    expect(room.view('public').config.splitView).toBe(true);
    // Stored with the room's configuration.
    expect((await env.store.roomById(room.id))?.config.splitView).toBe(true);
    // Not once the round has started.
    await room.dispatch({ type: 'clock', action: 'start' });
    await expect(room.dispatch({ type: 'configure', patch: { splitView: false } })).rejects.toThrow(/only the tempo/);
    expect(room.view('teacher').config.splitView).toBe(true);
  });

  test('a minute is made once per set of roles in a team, not once per student', async () => {
    const { room } = await env.manager.create({ scenario: 'sale-day', teamCount: 1, seed: 4, tempo: 1 });
    for (const n of ['Ana', 'Bo', 'Cy', 'Di', 'Ed', 'Fe']) await joinStudent(env.manager, room.code, n);
    // Four owners and two analysts: five audiences.
    await room.dispatch({ type: 'clock', action: 'start' });
    await env.advance(1000);
    const minute1 = env.out.sent.filter((s) => s.event === 'minute' && (s.payload as TeamMinute).snapshot.minute === 1);
    expect(minute1.map((s) => s.to)).toEqual(
      ['scaling', 'shedding', 'fraud', 'standin', ''].map((view) => ({
        kind: 'view',
        teamId: room.view('teacher').teams[0].id,
        view,
      })),
    );
    // Nothing goes to the whole team's channel in split view.
    expect(env.out.sent.some((s) => s.event === 'minute' && s.to.kind === 'team')).toBe(false);
    // Each student's sockets were put in their view's channel.
    const ed = room.view('teacher').players.find((p) => p.name === 'Ed')!;
    expect(env.out.viewed.filter((v) => v.playerId === ed.id).at(-1)?.to).toEqual({
      kind: 'view',
      teamId: ed.teamId,
      view: '',
    });
  });
});

test('a student moved to another team mid-round gets its history split to the roles they take there', async () => {
  const env = roomEnv();
  const { room } = await env.manager.create({ scenario: 'sale-day', teamCount: 2, seed: 4, tempo: 1 });
  const names = ['Ana', 'Bo', 'Cy', 'Di', 'Ed', 'Fe', 'Gu', 'Hu'];
  for (const n of names) await joinStudent(env.manager, room.code, n);
  await room.dispatch({ type: 'clock', action: 'start' });
  await env.advance(2000);
  const cy = room.view('teacher').players.find((p) => p.name === 'Cy')!;
  const other = room.view('teacher').teams.find((t) => t.id !== cy.teamId)!.id;
  await room.dispatch({ type: 'move', playerId: cy.id, teamId: other });
  await room.settled();
  // Late in a round, a newcomer to a full team takes no role: an analyst's view.
  expect(room.view('teacher').players.find((p) => p.id === cy.id)!.roles).toEqual([]);
  const sent = env.out.sent
    .filter((x) => x.event === 'history' && x.to.kind === 'player' && x.to.playerId === cy.id)
    .at(-1)!;
  const h = sent.payload as { teamId: number; snapshots: { indicators: Record<string, number> }[] };
  expect(h.teamId).toBe(other);
  expect(h.snapshots).toHaveLength(3);
  for (const snap of h.snapshots) expect(Object.keys(snap.indicators).sort()).toEqual(visible([]));
  // And their sockets now follow the analysts' channel of that team.
  expect(env.out.viewed.filter((v) => v.playerId === cy.id).at(-1)).toMatchObject({
    from: { teamId: cy.teamId },
    to: { kind: 'view', teamId: other, view: '' },
  });
});

describe('on the sockets', () => {
  let server: TestServer;
  let teacher: Client;
  let code: string;
  const students: { name: string; client: Client; playerId: number; token: string; minutes: TeamMinute[] }[] = [];
  let teacherMinutes: RoomMinute[];
  let feed: Awaited<ReturnType<typeof openFeed>>;
  // Every teacher command answers with the room as it stands: an idempotent one reads it.
  const rolesOf = async (playerId: number) =>
    (await ok(teacher, 'teacher:lock', { locked: false })).room.players.find((p: { id: number }) => p.id === playerId)
      .roles as string[];
  const tick = async () => {
    const n = teacherMinutes.length;
    server.clock.advance(1000);
    await until(
      () => teacherMinutes.length === n + 1 && students.every((s) => s.minutes.length === n + 1),
      `minute ${n}`,
    );
  };

  beforeAll(async () => {
    server = await startServer();
    const created = await createRoom(server, { scenario: 'sale-day', teamCount: 1, tempo: 1, seed: 11, minutes: 20 });
    code = created.code;
    expect(created.room.config.splitView).toBe(true);
    teacher = await connect(server);
    teacherMinutes = collect(teacher, 'room:minute');
    await ok(teacher, 'teacher:join', { code, key: created.teacherKey });
    for (const name of ['Ana', 'Bo', 'Cy', 'Di', 'Ed']) {
      const client = await connect(server);
      const minutes = collect(client, 'minute');
      const joined = await ok(client, 'student:join', { code, name });
      students.push({ name, client, playerId: joined.playerId, token: joined.token, minutes });
    }
    feed = await openFeed(server, code);
    await ok(teacher, 'teacher:clock', { action: 'start' });
    await until(() => students.every((s) => s.minutes.length === 1), 'minute 0');
  });
  afterAll(async () => {
    feed.ws.close();
    await server.close();
  });

  test('each student receives only what their roles see; the teacher and the feed everything', async () => {
    await tick();
    await tick();
    for (const s of students) {
      const roles = await rolesOf(s.playerId);
      for (const m of s.minutes) {
        expect(keysOf(m)).toEqual(visible(roles));
        expect(Object.keys(m.snapshot.status).every((k) => visible(roles).includes(k))).toBe(true);
        // The ledger and the score are the team's, whatever the view.
        expect(m.ledger).toEqual(teacherMinutes[m.snapshot.minute].teams[0].ledger);
      }
    }
    // The analyst (fifth) owns no control and sees every figure; the scaler does not see the fraud detail.
    expect(keysOf(students[4].minutes[2])).toEqual(every);
    expect(every.length).toBeGreaterThan(sharedKeys(paymentSwitch).size);
    expect(keysOf(students[0].minutes[2])).toContain('newTps');
    expect(keysOf(students[0].minutes[2])).not.toContain('fraudStopped');
    expect(keysOf(students[2].minutes[2])).toContain('fraudStopped');
    // The hidden values are the team's: the same numbers the teacher has.
    expect(students[2].minutes[2].snapshot.indicators.fraudStopped).toBe(
      teacherMinutes[2].teams[0].snapshot.indicators.fraudStopped,
    );
    expect(Object.keys(teacherMinutes[2].teams[0].snapshot.indicators).sort()).toEqual(every);
    await until(() => feed.messages.filter((m) => m.type === 'summary').length >= 3, 'feed summaries');
    const summary = feed.messages.filter((m) => m.type === 'summary').at(-1);
    expect(Object.keys(summary.teams[0].headline).sort()).toEqual(
      paymentSwitch.indicators
        .filter((i) => i.headline)
        .map((i) => i.key)
        .sort(),
    );
  });

  test('a role given to the analyst changes what both students receive from the next minute', async () => {
    const [, , cy, , ed] = students;
    await ok(teacher, 'teacher:assign', { playerId: ed.playerId, role: 'fraud' });
    expect(await rolesOf(ed.playerId)).toEqual(['fraud']);
    expect(await rolesOf(cy.playerId)).toEqual([]);
    await tick();
    expect(keysOf(ed.minutes.at(-1)!)).toEqual(visible(['fraud']));
    expect(keysOf(cy.minutes.at(-1)!)).toEqual(visible([]));
  });

  test('a reload gets the history split to the student’s view; the teacher’s team history is whole', async () => {
    const again = await connect(server);
    const joined = await ok(again, 'student:join', { code, token: students[1].token });
    expect(joined.history.snapshots).toHaveLength(teacherMinutes.length);
    for (const s of joined.history.snapshots) expect(Object.keys(s.indicators).sort()).toEqual(visible(['shedding']));
    // The references up to the latest minute only, while the round goes on.
    expect(joined.history.baseline.total).toHaveLength(teacherMinutes.length);
    const whole = await ok(teacher, 'teacher:team', { teamId: joined.history.teamId });
    expect(Object.keys(whole.history.snapshots[1].indicators).sort()).toEqual(every);
    again.disconnect();
  });

  test('without split view every student gets the whole snapshot', async () => {
    const other = await createRoom(server, { scenario: 'sale-surge', teamCount: 1, tempo: 1, seed: 3 });
    expect(other.room.config.splitView).toBe(false);
    const t = await connect(server);
    await ok(t, 'teacher:join', { code: other.code, key: other.teacherKey });
    const a = await connect(server);
    const b = await connect(server);
    const ma = collect(a, 'minute');
    const mb = collect(b, 'minute');
    await ok(a, 'student:join', { code: other.code, name: 'Ana' });
    await ok(b, 'student:join', { code: other.code, name: 'Bo' });
    await ok(t, 'teacher:clock', { action: 'start' });
    await until(() => ma.length === 1 && mb.length === 1, 'minute 0');
    expect(keysOf(ma[0])).toEqual(every);
    expect(keysOf(mb[0])).toEqual(every);
    // A refused patch changes nothing.
    const bad = await request(t, 'teacher:configure', { splitView: 'yes' as unknown as boolean });
    expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
  });
});
