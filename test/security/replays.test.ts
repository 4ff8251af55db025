// The replay of a round still going (before: ~190 ms of the event loop each, rebuilt on every request; 20 at once
// made a class minute 2.4 s late): its teams' minutes are read once per minute whatever the number of requests,
// a team at a time with the event loop free in between, while what changes within a minute (a role handed over)
// is never stale.
import { afterEach, expect, test, vi } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { DEFAULT_HTTP_LIMITS } from '../../server/http/rooms.ts';
import { advance, connect, createRoom, ok, startServer, type TestServer, turnsUntil } from '../server/helpers.ts';

let server: TestServer;
afterEach(async () => server?.close());

async function pausedRound(teams: number, minutes: number) {
  server = await startServer({
    httpLimits: { ...DEFAULT_HTTP_LIMITS, lookups: { max: 1000, timeWindow: '1 minute' } },
  });
  const { code, teacherKey } = await createRoom(server, { teamCount: teams, minutes: 240, tempo: 1 });
  const teacher = await connect(server);
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  const started = await ok(teacher, 'teacher:clock', { action: 'start' });
  for (let m = 0; m < minutes; m++) await advance(server, 1000);
  await ok(teacher, 'teacher:clock', { action: 'pause' });
  return { teacher, code, key: teacherKey, roundId: started.room.round.id as number };
}

const replay = async (roundId: number, key: string) => {
  const res = await server.app.inject({
    method: 'GET',
    url: `/api/rounds/${roundId}/replay`,
    headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'gzip' },
  });
  expect(res.statusCode).toBe(200);
  return JSON.parse(gunzipSync(res.rawPayload).toString());
};

test("a round still going: its teams' minutes are read once a minute, however many ask", async () => {
  const { teacher, roundId, key } = await pausedRound(4, 12);
  const reads = vi.spyOn(server.app.store, 'snapshotsOfRound');
  const twenty = await Promise.all(Array.from({ length: 20 }, () => replay(roundId, key)));
  // One read per team, shared by the twenty requests.
  expect(reads).toHaveBeenCalledTimes(4);
  for (const r of twenty) expect(r.teams.map((t: any) => t.columns.minutes.at(-1))).toEqual([12, 12, 12, 12]);
  await replay(roundId, key);
  expect(reads).toHaveBeenCalledTimes(4);
  // A minute later it is read again, and shows the new minute.
  await ok(teacher, 'teacher:clock', { action: 'step' });
  const next = await replay(roundId, key);
  expect(reads).toHaveBeenCalledTimes(8);
  expect(next.round.minute).toBe(13);
  expect(next.teams[0].columns.minutes).toHaveLength(14);
});

test('what changes within a minute is in the next replay: a role handed over, a team renamed', async () => {
  const { teacher, code, roundId, key } = await pausedRound(1, 5);
  await ok(await connect(server), 'student:join', { code, name: 'Ana' });
  const joined = await ok(await connect(server), 'student:join', { code, name: 'Ben' });
  const before = await replay(roundId, key);
  const team = before.teams[0];
  await ok(teacher, 'teacher:rename', { teamId: team.teamId, name: 'Owls' });
  await ok(teacher, 'teacher:assign', { playerId: joined.playerId, role: 'fraud' });
  const after = await replay(roundId, key);
  expect(after.round.minute).toBe(before.round.minute);
  const again = after.teams.find((t: any) => t.teamId === team.teamId);
  expect(again.name).toBe('Owls');
  expect(again.roleChanges.length).toBeGreaterThan(team.roleChanges.length);
  expect(again.columns).toEqual(team.columns);
});

test('building the replay of a large round gives the event loop a turn between teams', async () => {
  const { roundId, key } = await pausedRound(30, 20);
  const { value, turns } = await turnsUntil(replay(roundId, key));
  // Read in one go, the request would finish within a few turns: here at least one per team.
  expect(turns).toBeGreaterThanOrEqual(30);
  expect(value.teams).toHaveLength(30);
});
