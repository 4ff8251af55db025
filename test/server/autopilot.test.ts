// Seats that never freeze: a student whose page is gone passes their seat to the autopilot after the room's grace,
// the autopilot's changes are stored with their actor like anyone's, the student takes the seat back at once, and
// the round still re-simulates exactly. Idle, hold, "ask the team", the teacher's hand and what a student may not do.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { verifyRounds } from '../../server/replay/verify.ts';
import {
  advance,
  collect,
  connect,
  createRoom,
  ok,
  request,
  sqliteOf,
  startServer,
  until,
  type TestServer,
} from './helpers.ts';

let server: TestServer;
beforeEach(async () => {
  server = await startServer();
});
afterEach(() => server.close());

const TEMPO_MS = 5_000;

async function classOf(names: string[], config: object = {}) {
  const { code, teacherKey } = await createRoom(server, {
    simulator: 'payment-switch',
    scenario: 'sale-surge',
    teamCount: 1,
    tempo: 5,
    seed: 7,
    graceSeconds: 10,
    ...config,
  });
  const teacher = await connect(server);
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  const students = [];
  for (const name of names) {
    const c = await connect(server);
    const joined = await ok(c, 'student:join', { code, name });
    students.push({ c, ...joined });
  }
  return { code, teacherKey, teacher, students };
}

test('a dropped seat goes to the autopilot after the grace, plays by the policy, and comes back with its student', async () => {
  const { code, teacherKey, teacher, students } = await classOf(['Ana']);
  const [ana] = students;
  const seats = collect(teacher, 'seat');
  const pending = collect(teacher, 'pending');
  const presence = collect(teacher, 'presence');
  await ok(teacher, 'teacher:clock', { action: 'start' });
  await advance(server, TEMPO_MS * 2);

  ana.c.disconnect();
  await until(() => presence.some((p) => p.playerId === ana.playerId && !p.connected), 'the drop');
  // Within the grace the seat waits for its student.
  await advance(server, 9_000);
  expect(seats).toEqual([]);
  await advance(server, 1_000);
  await until(() => seats.length === 1, 'the autopilot to take the seat');
  expect(seats[0]).toMatchObject({
    playerId: ana.playerId,
    pilot: { kind: 'autopilot', skill: 'careful', reason: 'dropped' },
  });
  const room = await server.app.rooms.get(code);
  expect(room.view('teacher').players[0].pilot).toMatchObject({ kind: 'autopilot' });

  // The surge comes; the careful policy answers it as a student would, through the same path.
  for (let i = 0; i < 12; i++) await advance(server, TEMPO_MS);
  const auto = pending.filter((c) => c.actor.kind === 'autopilot');
  expect(auto.length).toBeGreaterThan(0);
  for (const c of auto) {
    expect(c.actor).toEqual({ kind: 'autopilot', skill: 'careful', reason: 'dropped' });
    expect(c.author).toEqual({ playerId: ana.playerId, name: 'Ana' });
  }
  const minuteBefore = room.round.minute;
  const applied = room.round.teams.values().next().value?.snapshot.controls ?? {};
  const last = auto.at(-1);
  if (!last) throw new Error('no autopilot change');
  if (last.minute <= minuteBefore) expect(applied[last.key]).toEqual(last.value);

  // Stored with their actor: the database says who made each change.
  const rows = sqliteOf(server).prepare('SELECT actor FROM changes WHERE round_id = ?').all(room.round.id) as {
    actor: string;
  }[];
  expect(rows.map((r) => JSON.parse(r.actor).kind)).toContain('autopilot');

  // Back: the seat is the student's at once, and the turn is recorded.
  const back = await connect(server);
  const again = await ok(back, 'student:join', { code, token: ana.token });
  await until(() => seats.length === 2, 'the student to take the seat back');
  expect(seats[1]).toMatchObject({ playerId: ana.playerId, pilot: null });
  // The answer already holds the turn that ends the autopilot's: a slow page builds its summary from it.
  expect(again.history?.seatTurns.map((t: { pilot: unknown }) => t.pilot === null)).toEqual([false, true]);
  const after = pending.length;
  await advance(server, TEMPO_MS * 3);
  expect(pending.slice(after).filter((c) => c.actor.kind === 'autopilot')).toEqual([]);

  // The round re-simulates exactly from the recorded values, whoever made them.
  await ok(teacher, 'teacher:clock', { action: 'end' });
  const reports = await verifyRounds(server.app.store, ['finished']);
  expect(reports.find((r) => r.roomCode === code)?.mismatches).toEqual([]);

  // The CSV names every actor: each change's maker, and the student's minutes on autopilot.
  const csv = async (file: string) => {
    const res = await server.app.inject({
      url: `/api/rounds/${room.round.id}/export/${file}?lang=en`,
      headers: { authorization: `Bearer ${teacherKey}` },
    });
    const [head, ...lines] = res.body.trim().split(/\r?\n/);
    const cells = (line: string) =>
      [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((m) => m[1].replace(/^"|"$/g, '').replace(/""/g, '"'));
    const names = cells(head);
    return lines.map((l) => {
      const row = cells(l);
      return (key: string) => row[names.findIndex((n) => n.endsWith(`[${key}]`))];
    });
  };
  const made = (await csv('changes.csv')).map((row) => row('actor'));
  expect(made).toEqual(
    pending.map((c) =>
      c.actor.kind === 'autopilot' ? `autopilot (${c.actor.skill}, ${c.actor.reason})` : c.actor.kind,
    ),
  );
  expect(made).toContain('autopilot (careful, dropped)');
  const [seat] = await csv('seats.csv');
  expect(seat('student')).toBe('Ana');
  expect(seat('autopilot_changes')).toBe(String(auto.length));
  expect(seat('autopilot_minutes')).toBe(String(seats[1].minute - seats[0].minute));
  expect(seat('teacher_minutes')).toBe('0');
});

test('a student comes back to a seat on autopilot by changing a control; a student steps out of their own seat only', async () => {
  const { code, teacher, students } = await classOf(['Ana', 'Ben']);
  const [ana, ben] = students;
  await ok(teacher, 'teacher:clock', { action: 'start' });
  await advance(server, TEMPO_MS);
  const seats = collect(teacher, 'seat');
  await ok(ana.c, 'student:pilot', { autopilot: true });
  await until(() => seats.length === 1, 'the step out');
  expect(seats[0].pilot).toMatchObject({ kind: 'autopilot', reason: 'self' });
  // Reloading the page does not end a step out; a change of the student's own does.
  const room = await server.app.rooms.get(code);
  const tab = await connect(server);
  await ok(tab, 'student:join', { code, token: ana.token });
  expect(room.player(ana.playerId)?.pilot).toMatchObject({ reason: 'self' });
  const control = room.round.model.controls.find(
    (c) => room.player(ana.playerId)?.roles.includes(c.role) && c.kind === 'number',
  );
  if (control?.kind !== 'number') throw new Error('Ana has no number control');
  const change = await ok(ana.c, 'student:control', { key: control.key, value: control.min });
  expect(change.change.actor).toEqual({ kind: 'student' });
  expect(seats).toHaveLength(2);
  expect(room.player(ana.playerId)?.pilot).toBeNull();

  // Nobody hands away someone else's seat: the socket's own student is the only one it names.
  const bad = await request(ben.c, 'student:pilot', { autopilot: true, playerId: ana.playerId } as never);
  expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
  expect(room.player(ana.playerId)?.pilot).toBeNull();
  // Hidden pages make only their own seat idle.
  const presence = collect(teacher, 'presence');
  await ok(ben.c, 'student:presence', { hidden: true });
  await until(() => presence.length === 1, 'the idle seat');
  expect(presence[0]).toEqual({ playerId: ben.playerId, connected: true, idle: true, free: false });
  expect(room.view('teacher').players.find((p) => p.id === ana.playerId)?.idle).toBe(false);
  await ok(ben.c, 'student:presence', { hidden: false });
  await until(() => presence.length === 2, 'the seat back');
  expect(presence[1].idle).toBe(false);
});

test('the teacher plays a seat, hands it to the autopilot and back; a student cannot change a seat the teacher plays', async () => {
  const { code, teacher, students } = await classOf(['Ana']);
  const [ana] = students;
  await ok(teacher, 'teacher:clock', { action: 'start' });
  await advance(server, TEMPO_MS);
  const room = await server.app.rooms.get(code);
  const key = room.round.model.controls.find(
    (c) => c.role === room.round.model.roles[0].id && c.kind === 'number',
  )?.key;
  if (!key) throw new Error('no control');
  const refused = await request(teacher, 'teacher:control', { playerId: ana.playerId, key, value: 4 });
  expect(refused).toMatchObject({ ok: false, error: { code: 'BAD_STATE' } });

  const teamSeats = collect(ana.c, 'seat');
  await ok(teacher, 'teacher:pilot', { playerId: ana.playerId, pilot: 'teacher' });
  const def = room.round.model.controls.find((c) => c.key === key);
  const value = def?.kind === 'number' ? def.max : 0;
  const made = await ok(teacher, 'teacher:control', { playerId: ana.playerId, key, value });
  expect(made.change.actor).toEqual({ kind: 'teacher' });
  const blocked = await request(ana.c, 'student:control', { key, value });
  expect(blocked).toMatchObject({ ok: false, error: { code: 'NOT_OWNER' } });
  const stepOut = await request(ana.c, 'student:pilot', { autopilot: false });
  expect(stepOut).toMatchObject({ ok: false, error: { code: 'NOT_OWNER' } });

  await ok(teacher, 'teacher:pilot', { playerId: ana.playerId, pilot: 'autopilot', skill: 'late' });
  await ok(teacher, 'teacher:pilot', { playerId: ana.playerId, pilot: 'student' });
  await until(() => teamSeats.length === 3, 'the team to hear every turn');
  expect(teamSeats.map((t) => t.pilot?.kind ?? null)).toEqual(['teacher', 'autopilot', null]);
  const badSkill = await request(teacher, 'teacher:pilot', {
    playerId: ana.playerId,
    pilot: 'autopilot',
    skill: 'reckless',
  } as never);
  expect(badSkill).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
});

test('a student who changes nothing while banners show for the room’s idle minutes reads idle; their change ends it', async () => {
  const { code, teacher, students } = await classOf(['Ana', 'Ben'], { idleMinutes: 2 });
  const room = await server.app.rooms.get(code);
  const presence = collect(teacher, 'presence');
  await ok(teacher, 'teacher:clock', { action: 'start' });
  const seat = (id: number) => room.view('teacher').players.find((p) => p.id === id);
  const [scaler, other] = seat(students[0].playerId)?.roles.includes('scaling') ? students : [...students].reverse();
  // Minute by minute, until banners have shown for the idle minutes without a change of either.
  let bannerMinutes = 0;
  for (let i = 0; i < 30 && !seat(scaler.playerId)?.idle; i++) {
    await advance(server, TEMPO_MS);
    if ((room.round.teams.values().next().value?.snapshot.events.length ?? 0) > 0) bannerMinutes++;
  }
  expect(bannerMinutes).toBeGreaterThanOrEqual(2);
  for (const s of students) expect(seat(s.playerId)).toMatchObject({ connected: true, idle: true, pilot: null });
  // The teacher is told, seat by seat.
  const toldIdle = () => new Set(presence.filter((p) => p.idle).map((p) => p.playerId));
  await until(() => toldIdle().size === 2, 'the teacher to be told both seats are idle');
  // A change ends it at once, for its own seat only.
  await ok(scaler.c, 'student:control', { key: 'servers', value: 12 });
  await until(() => seat(scaler.playerId)?.idle === false, 'the scaler back from idle');
  expect(seat(other.playerId)?.idle).toBe(true);
});

test('hold keeps a dropped seat as it is; ask offers it to the team after the grace, and only then', async () => {
  const { code, teacher, students } = await classOf(['Ana', 'Ben', 'Cy'], { absence: 'hold' });
  const [ana, ben, cy] = students;
  await ok(teacher, 'teacher:clock', { action: 'start' });
  const seats = collect(teacher, 'seat');
  const seen = collect(teacher, 'presence');
  ana.c.disconnect();
  await until(() => seen.length === 1, 'the drop');
  await advance(server, 60_000);
  expect(seats).toEqual([]);
  const room = await server.app.rooms.get(code);
  expect(room.player(ana.playerId)?.pilot).toBeNull();
  const notOffered = await request(ben.c, 'student:take', { fromId: ana.playerId });
  expect(notOffered).toMatchObject({ ok: false, error: { code: 'BAD_STATE' } });

  // The teacher switches to "ask the team" mid-round: the seat gone past the grace is offered at once.
  const presence = collect(ben.c, 'presence');
  await ok(teacher, 'teacher:configure', { absence: 'ask' });
  await advance(server, 0);
  await until(() => presence.length === 1, 'the offer');
  expect(presence[0]).toEqual({ playerId: ana.playerId, connected: false, idle: false, free: true });
  // Within its grace a seat is not offered, and nobody takes a connected teammate's roles.
  cy.c.disconnect();
  await until(() => presence.length === 2, 'the second drop');
  const tooSoon = await request(ben.c, 'student:take', { fromId: cy.playerId });
  expect(tooSoon).toMatchObject({ ok: false, error: { code: 'BAD_STATE' } });
  const anaRoles = room.player(ana.playerId)?.roles ?? [];
  expect(anaRoles.length).toBeGreaterThan(0);
  await ok(ben.c, 'student:take', { fromId: ana.playerId });
  expect(room.player(ana.playerId)?.roles).toEqual([]);
  expect(room.player(ben.playerId)?.roles).toEqual(expect.arrayContaining([...anaRoles]));
  expect(
    room
      .roleChanges(null)
      .filter((c) => c.reason === 'take')
      .map((c) => c.role),
  ).toEqual(anaRoles);
  // The teacher's settings are checked.
  const bad = await request(teacher, 'teacher:configure', { graceSeconds: 1 });
  expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
  expect(room.state.config.graceSeconds).toBe(10);
});

describe('rehearsal with bot teams', () => {
  test('a rehearsal fills three teams with bots of three skills and plays as fast as it goes; a class may do neither', async () => {
    const { code, teacher } = await classOf([], { purpose: 'rehearsal', tempo: 0, minutes: 8 });
    const room = await server.app.rooms.get(code);
    const reply = await ok(teacher, 'teacher:bots', { teams: ['careful', 'late', 'careless'] });
    expect(reply.room.teams).toHaveLength(3);
    const bots = room.view('teacher').players;
    expect(bots).toHaveLength(12);
    expect(new Set(bots.map((p) => p.pilot?.reason))).toEqual(new Set(['bot']));
    expect(
      reply.room.teams.map((t: { id: number }) =>
        [...new Set(bots.filter((p) => p.teamId === t.id).map((p) => p.pilot?.skill))].join(),
      ),
    ).toEqual(['careful', 'late', 'careless']);
    // Nobody logs in as a bot: its seat has no token.
    const stranger = await connect(server);
    const guess = await request(stranger, 'student:join', {
      code,
      token: `bot:${room.id}:${bots[0].id}`.padEnd(20, '0'),
    });
    expect(guess).toMatchObject({ ok: false, error: { code: 'BAD_TOKEN' } });

    await ok(teacher, 'teacher:clock', { action: 'start' });
    // As fast as it goes: each minute is planned once the one before is stored.
    for (let i = 0; i < 8 && room.round.state === 'running'; i++) await advance(server, 0);
    expect(room.round.state).toBe('finished');
    expect(room.round.minute).toBe(8);
    const verified = await verifyRounds(server.app.store, ['finished']);
    expect(verified.find((v) => v.roomCode === code)?.mismatches).toEqual([]);
    // The teacher takes a bot's seat and gives it back: it is the bot's again.
    await ok(teacher, 'teacher:clock', { action: 'next' });
    await ok(teacher, 'teacher:pilot', { playerId: bots[0].id, pilot: 'teacher' });
    await ok(teacher, 'teacher:pilot', { playerId: bots[0].id, pilot: 'student' });
    expect(room.player(bots[0].id)?.pilot).toMatchObject({ kind: 'autopilot', reason: 'bot', skill: 'careful' });

    const klass = await classOf(['Ana']);
    const refused = await request(klass.teacher, 'teacher:bots', { teams: ['careful'] });
    expect(refused).toMatchObject({ ok: false, error: { code: 'BAD_STATE' } });
    const fast = await request(klass.teacher, 'teacher:tempo', { tempo: 0 });
    expect(fast).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    const made = await server.app.inject({ method: 'POST', url: '/api/rooms', payload: { tempo: 0 } });
    expect(made.statusCode).toBe(400);
  });
});
