// A teacher's own scenario in a room: picked in the lobby (its content read before the transition), played with the
// file's roles (deal order, split view, who owns which control), recorded by its content's hash — and after the
// scenario is edited and deleted, the round's replay, a what-if of it, its exports and verify-replays re-simulate
// from what it was played with, exactly.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RoundReplay } from '../../shared/protocol/types.ts';
import type { Store } from '../../server/db/store.ts';
import { verifyRounds } from '../../server/replay/verify.ts';
import { loadRound } from '../../server/rooms/load.ts';
import { hashSecret } from '../../server/rooms/creation.ts';
import type { Room } from '../../server/rooms/room.ts';
import { builtInContent, contentHash } from '../../server/rooms/scenario-content.ts';
import { sqliteOf, startServer, type TestServer } from './helpers.ts';
import { joinStudent } from './seats.ts';

const EXAMPLE = JSON.parse(readFileSync(new URL('../../docs/scenarios/late-sale.json', import.meta.url), 'utf8'));
/** The example with its roles dealt fraud first, and the scaling role seeing only new transactions in split view. */
const MINE = {
  ...EXAMPLE,
  id: 'my-sale',
  roles: [EXAMPLE.roles[2], { ...EXAMPLE.roles[0], sees: ['newTps'] }, EXAMPLE.roles[1], EXAMPLE.roles[3]],
};

let server: TestServer;
let key: string;
let room: Room;
const auth = () => ({ authorization: `Bearer ${key}` });
const save = (method: 'POST' | 'PUT' | 'DELETE', file?: object) =>
  server.app.inject({
    method,
    url: method === 'POST' ? '/api/teacher/scenarios' : `/api/teacher/scenarios/${MINE.id}`,
    headers: { ...auth(), ...(file ? { 'content-type': 'application/json' } : {}) },
    ...(file ? { payload: JSON.stringify(file) } : {}),
  });
const configure = (patch: object) =>
  server.app.gate.ask(room.code, { type: 'dispatch', command: { type: 'configure', patch }, view: true });
async function advance(ms: number) {
  server.clock.advance(ms);
  await server.app.rooms.settled();
}
async function replayOf(roundId: number): Promise<RoundReplay> {
  server.app.replayCache.clear();
  const res = await server.app.inject({
    url: `/api/rounds/${roundId}/replay`,
    headers: { ...auth(), 'accept-encoding': 'gzip' },
  });
  expect(res.statusCode).toBe(200);
  return JSON.parse(gunzipSync(res.rawPayload).toString('utf8'));
}

beforeAll(async () => {
  server = await startServer();
  const res = await server.app.inject({ method: 'POST', url: '/api/rooms', payload: { teamCount: 1, tempo: 1 } });
  key = res.json().teacherKey;
  room = await server.app.rooms.get(res.json().code);
  expect((await save('POST', MINE)).statusCode).toBe(201);
});
afterAll(() => server.close());

test('a new room opens with the teacher’s own scenario; without their key it is an unknown one', async () => {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/rooms',
    headers: auth(),
    payload: { scenario: 'my-sale', teamCount: 2 },
  });
  expect(res.statusCode).toBe(201);
  expect(res.json().room.config).toMatchObject({ simulator: 'payment-switch', scenario: 'my-sale', minutes: 45 });
  const opened = await server.app.rooms.get(res.json().code);
  expect(opened.round.scenarioDef.goals).toEqual(MINE.goals);
  const stranger = await server.app.inject({ method: 'POST', url: '/api/rooms', payload: { scenario: 'my-sale' } });
  expect(stranger.statusCode).toBe(400);
  expect(stranger.json().error.message).toContain('unknown scenario');
});

describe('a round of a teacher’s own scenario', () => {
  let roundId: number;
  let played: RoundReplay;
  const students: Awaited<ReturnType<typeof joinStudent>>['player'][] = [];

  test('picked in the lobby: the round plays its content and records its hash; a built-in records its own', async () => {
    const builtIn = builtInContent('payment-switch', 'sale-surge')!;
    const stored = () =>
      sqliteOf(server).prepare('SELECT scenario, scenario_hash FROM rounds WHERE id = ?').get(room.round.id);
    expect(stored()).toEqual({ scenario: 'sale-surge', scenario_hash: builtIn.hash });

    // The teacher's seat lists their own scenarios for the set-up.
    const seat = await server.app.gate.ask(room.code, { type: 'teacher', keyHash: hashSecret(key) });
    await server.app.gate.ask(room.code, { type: 'leave', role: 'teacher' });
    expect(seat.scenarios).toEqual([
      {
        id: 'my-sale',
        simulator: 'payment-switch',
        title: 'Late sale',
        source: 'mine',
        version: 1,
        updatedAt: server.clock.now(),
      },
    ]);
    const { room: view } = await configure({ scenario: 'my-sale', minutes: 20, seed: 7 });
    expect(view?.config).toMatchObject({ simulator: 'payment-switch', scenario: 'my-sale', minutes: 20 });
    const text = sqliteOf(server)
      .prepare('SELECT content FROM scenario_contents WHERE hash = ?')
      .get(room.round.content!.hash) as { content: string };
    expect(contentHash(text.content)).toBe(room.round.content!.hash);
    expect(JSON.parse(text.content)).toEqual(MINE);
    expect(stored()).toEqual({ scenario: 'my-sale', scenario_hash: room.round.content!.hash });
    expect(room.round.scenarioDef.shocks).toEqual(MINE.shocks);
    // The desks are sent its words, goals and roles; not its shocks nor its messages.
    const own = room.view('public').round.own!;
    expect(own).toMatchObject({ id: 'my-sale', goals: MINE.goals, roles: MINE.roles, briefs: MINE.briefs });
    expect(JSON.stringify(own)).not.toMatch(/shocks|episodes|Halfway/);

    // Another teacher's id, an unknown one, or the file's id under the other simulator: refused, nothing changed.
    for (const patch of [{ scenario: 'late-sale' }, { scenario: 'my-sale', simulator: 'web-service' }])
      await expect(configure(patch)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(stored()).toEqual({ scenario: 'my-sale', scenario_hash: room.round.content!.hash });
  });

  test('the file’s roles: dealt in its order, seen in split view as it says, owned controls only', async () => {
    for (let i = 0; i < 4; i++) students.push((await joinStudent(server.app.rooms, room.code, `S${i + 1}`)).player);
    // One role each, in the file's order: fraud first.
    expect(students.map((p) => room.player(p.id)!.roles)).toEqual([['fraud'], ['scaling'], ['shedding'], ['standin']]);
    await room.dispatch({ type: 'clock', action: 'start' });
    const scaling = (await room.historyFor(students[1].id))!.snapshots[0].indicators;
    expect(scaling).toHaveProperty('newTps');
    expect(scaling).not.toHaveProperty('serversBooting');
    const fraud = (await room.historyFor(students[0].id))!.snapshots[0].indicators;
    expect(fraud).toHaveProperty('goodDeclinedByRule');
    expect(fraud).not.toHaveProperty('newTps');
    await expect(
      room.dispatch({ type: 'control', playerId: students[1].id, key: 'fraudThreshold', value: 3 }),
    ).rejects.toMatchObject({ code: 'NOT_OWNER' });
  });

  test('played to its end', async () => {
    for (let m = 1; m <= 20; m++) {
      if (m === 3) await room.dispatch({ type: 'control', playerId: students[1].id, key: 'servers', value: 16 });
      if (m === 9) await room.dispatch({ type: 'control', playerId: students[0].id, key: 'fraudThreshold', value: 3 });
      await advance(1000);
    }
    expect(room.round.state).toBe('finished');
    roundId = room.round.id;
    played = await replayOf(roundId);
    expect(played.round.scenario).toBe('my-sale');
    expect(played.own).toMatchObject({ id: 'my-sale', goals: MINE.goals, briefs: MINE.briefs });
    expect(played.teams[0].result!.goals.map((g) => g.id)).toEqual(['approval', 'fraudRate', 'cost']);
    expect((await verifyRounds(server.app.store)).map((r) => r.mismatches)).toEqual([[]]);
  });

  test('the hindsight coach searches the round as it was played (no built-in has its id)', async () => {
    const res = await server.app.inject({ url: `/api/rounds/${roundId}/coach`, headers: auth() });
    expect(res.statusCode).toBe(200);
    const [team] = res.json().teams;
    expect(team.teamId).toBe(played.teams[0].teamId);
    expect(team.tried).toBeGreaterThan(0);
  }, 60_000);

  test('edited (a new version) and deleted: the old round still replays, forks and verifies exactly', async () => {
    const edited = {
      ...MINE,
      shocks: { ...MINE.shocks, episodes: MINE.shocks.episodes.map((e: any) => ({ ...e, start: e.start })) },
      goals: MINE.goals.map((g: any) => ({ ...g, target: g.target * 0.9 })),
    };
    edited.shocks.episodes[0] = { ...edited.shocks.episodes[0], start: [1, 2], length: [15, 18] };
    const put = await save('PUT', edited);
    expect(put.json().version).toBe(2);
    // Played from the edited version, the round would differ: what follows can fail.
    const newText = sqliteOf(server)
      .prepare('SELECT c.content FROM scenarios s JOIN scenario_contents c ON c.hash = s.hash')
      .get() as { content: string };
    const asEdited = Object.create(server.app.store) as Store;
    asEdited.scenarioContent = async (hash) => ({ hash, simulator: 'payment-switch', text: newText.content });
    const row = (await server.app.store.roundById(roundId))!;
    const wrong = await loadRound(
      asEdited,
      { ...row, scenarioHash: contentHash(newText.content) },
      { resimulate: true },
    );
    expect(wrong.mismatches.length).toBeGreaterThan(0);

    expect((await save('DELETE')).statusCode).toBe(204);
    expect(sqliteOf(server).prepare('SELECT count(*) AS n FROM scenarios').get()).toEqual({ n: 0 });

    expect((await verifyRounds(server.app.store)).map((r) => r.mismatches)).toEqual([[]]);
    const again = await replayOf(roundId);
    expect(again).toEqual(played);

    const m = 8;
    const fork = await server.app.inject({
      method: 'POST',
      url: `/api/rounds/${roundId}/fork`,
      headers: auth(),
      // The team's later change set pending: played on, the what-if is the original round again.
      payload: { teamId: played.teams[0].teamId, minute: m, changes: [{ minute: 9, key: 'fraudThreshold', value: 3 }] },
    });
    expect(fork.statusCode).toBe(201);
    const what = await server.app.rooms.get(fork.json().code);
    expect(what.round.scenarioDef.goals).toEqual(MINE.goals);
    await what.dispatch({ type: 'clock', action: 'resume' });
    for (let i = m; i < 20; i++) await advance(1000);
    expect(what.round.state).toBe('finished');
    const forkReplay = await replayOf(what.round.id);
    expect(forkReplay.teams[0].columns).toEqual(played.teams[0].columns);
    expect(forkReplay.teams[0].result).toEqual(played.teams[0].result);

    const csv = await server.app.inject({ url: `/api/rounds/${roundId}/export/scores.csv`, headers: auth() });
    expect(csv.statusCode).toBe(200);
    const research = await server.app.inject({ url: `/api/rounds/${roundId}/research.zip`, headers: auth() });
    expect(research.statusCode).toBe(200);
    expect(research.rawPayload.includes(Buffer.from('scenarios/payment-switch.my-sale.json'))).toBe(true);
    // The goals in the file's own words.
    expect(csv.body).toContain('Average good-customer approval ≥ 88.0 %');
  });

  test('the next round: a deleted scenario is played again at the version this room has', async () => {
    await room.dispatch({ type: 'clock', action: 'next' });
    expect(room.round.scenario).toBe('my-sale');
    expect(room.round.content!.hash).toBe((await server.app.store.roundById(roundId))!.scenarioHash);
  });

  test('a room read back from the database plays the round’s content', async () => {
    server.app.rooms.sweep(0);
    const back = await server.app.rooms.get(room.code);
    expect(back).not.toBe(room);
    expect(back.round.scenario).toBe('my-sale');
    expect(back.round.model.roles.map((r) => r.id)).toEqual(['fraud', 'scaling', 'shedding', 'standin']);
  });
});
