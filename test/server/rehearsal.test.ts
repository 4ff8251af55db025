// A rehearsal (or a practice room) is deleted by its teacher with everything recorded in it and the what-ifs forked
// from it; whoever has it open is disconnected; a class's room is kept; and no id is ever given twice, even after
// a restart on the same database file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { advance, connect, createRoom, ok, sqliteOf, startServer, type TestServer } from './helpers.ts';

let dir: string;
let server: TestServer;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'opsroom-rehearsal-'));
  server = await startServer({ databasePath: join(dir, 'db.sqlite') });
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const TABLES = [
  'rooms',
  'teams',
  'players',
  'rounds',
  'round_teams',
  'changes',
  'snapshots',
  'scores',
  'goal_results',
  'role_changes',
  'round_members',
  'seat_turns',
  'messages',
];
const counts = (s: TestServer) =>
  Object.fromEntries(
    TABLES.map((t) => [t, (sqliteOf(s).prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]),
  );
const remove = (code: string, key?: string) =>
  server.app.inject({
    method: 'DELETE',
    url: `/api/teacher/rooms/${code}`,
    headers: key ? { authorization: `Bearer ${key}` } : {},
  });

/** A room of the teacher played to its end: a class with a student, or a rehearsal of bot teams. */
async function played(purpose: 'class' | 'rehearsal', key?: string) {
  const made = await createRoom(
    server,
    { simulator: 'payment-switch', scenario: 'sale-surge', teamCount: 2, minutes: 6, tempo: 1, seed: 3, purpose },
    key,
  );
  const teacher = await connect(server);
  await ok(teacher, 'teacher:join', { code: made.code, key: made.teacherKey });
  if (purpose === 'rehearsal') await ok(teacher, 'teacher:bots', { teams: ['careful', 'careless'] });
  else await ok(await connect(server), 'student:join', { code: made.code, name: 'Ana' });
  await ok(teacher, 'teacher:message', { text: 'Watch the queue', teamId: null });
  await ok(teacher, 'teacher:clock', { action: 'start' });
  for (let i = 0; i < 8; i++) await advance(server, 1_000);
  const room = await server.app.rooms.get(made.code);
  expect(room.round.state).toBe('finished');
  return { ...made, teacher, room };
}

test('a rehearsal is deleted with its rounds, records and what-ifs; a class is kept; ids are never given twice', async () => {
  const klass = await played('class');
  const stranger = await createRoom(server, { purpose: 'rehearsal' });
  const before = counts(server);
  const rehearsal = await played('rehearsal', klass.teacherKey);
  const roundId = rehearsal.room.round.id;
  const [teamId] = rehearsal.room.state.round.teams.keys();
  const fork = await server.app.inject({
    method: 'POST',
    url: `/api/rounds/${roundId}/fork`,
    headers: { authorization: `Bearer ${klass.teacherKey}` },
    payload: { teamId, minute: 3 },
  });
  expect(fork.statusCode).toBe(201);
  const grown = counts(server);
  for (const t of ['rooms', 'rounds', 'changes', 'snapshots', 'scores', 'seat_turns', 'messages', 'round_members'])
    expect(grown[t], t).toBeGreaterThan(before[t]);
  const lastRoom = (sqliteOf(server).prepare('SELECT max(id) AS n FROM rooms').get() as { n: number }).n;

  // Refused, changing nothing: without a key, with another teacher's, and a class's room.
  expect((await remove(rehearsal.code)).statusCode).toBe(401);
  expect((await remove(rehearsal.code, stranger.teacherKey)).json()).toMatchObject({
    error: { code: 'ROOM_NOT_FOUND' },
  });
  const kept = await remove(klass.code, klass.teacherKey);
  expect(kept.statusCode).toBe(403);
  expect(kept.json()).toMatchObject({ error: { code: 'NOT_ALLOWED' } });
  expect(counts(server)).toEqual(grown);

  // The teacher's dashboard has it open: it is disconnected when the room goes.
  const gone = new Promise<string>((r) => rehearsal.teacher.once('disconnect', (reason) => r(reason)));
  const deleted = await remove(rehearsal.code, klass.teacherKey);
  expect(deleted.statusCode).toBe(200);
  expect(deleted.json()).toEqual({ deleted: [rehearsal.code, fork.json().code] });
  expect(await gone).toBe('io server disconnect');

  // Every row of the rehearsal and of its what-if is gone; the class's and the stranger's rooms are as they were.
  expect(counts(server)).toEqual(before);
  await expect(server.app.rooms.get(rehearsal.code)).rejects.toMatchObject({ code: 'ROOM_NOT_FOUND' });
  const history = await server.app.inject({
    url: '/api/teacher/rooms',
    headers: { authorization: `Bearer ${klass.teacherKey}` },
  });
  expect(history.json().rooms.map((r: { code: string }) => r.code)).toEqual([klass.code]);
  const replay = await server.app.inject({
    url: `/api/rounds/${roundId}/replay`,
    headers: { authorization: `Bearer ${klass.teacherKey}` },
  });
  expect(replay.statusCode).toBe(404);
  expect((await remove(rehearsal.code, klass.teacherKey)).statusCode).toBe(404);
  // The class goes on.
  await ok(klass.teacher, 'teacher:clock', { action: 'next' });

  // Restarted on the same file: the deleted rows' ids are not handed out again.
  await server.close();
  server = await startServer({ databasePath: join(dir, 'db.sqlite') });
  const again = await createRoom(server, { purpose: 'rehearsal' });
  const row = sqliteOf(server).prepare('SELECT id FROM rooms WHERE code = ?').get(again.code) as { id: number };
  expect(row.id).toBe(lastRoom + 1);
});
