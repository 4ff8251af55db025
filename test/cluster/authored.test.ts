// A teacher's own scenario in cluster mode, on PostgreSQL: saved through B, picked from a teacher's socket on B for a
// room A owns — A reads the content from the database both share — played at A's clock, then edited and deleted
// through B: the round re-simulates exactly from what it was played with, read by any process.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import type { RoundReplay } from '../../shared/protocol/types.ts';
import { verifyRounds } from '../../server/replay/verify.ts';
import { ok, type Client } from '../server/helpers.ts';
import { testCluster, type Node } from './nodes.ts';

const cluster = testCluster('authored');
const EXAMPLE = JSON.parse(readFileSync(new URL('../../docs/scenarios/late-sale.json', import.meta.url), 'utf8'));
const MINE = { ...EXAMPLE, id: 'my-sale' };

describe('a teacher’s own scenario, owned by A, saved and picked on B', () => {
  let a: Node;
  let b: Node;
  let code: string;
  let key: string;
  let teacher: Client;
  let roundId: number;
  const send = (node: Node, method: string, path: string, body?: object) =>
    fetch(`${node.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });

  beforeAll(async () => {
    await cluster.services();
    [a, b] = await Promise.all([cluster.start('a'), cluster.start('b')]);
    const created = await (await a.post('/api/rooms', { teamCount: 1, tempo: 1, seed: 5 })).json();
    code = created.code;
    key = created.teacherKey;
    expect((await send(b, 'POST', '/api/teacher/scenarios', MINE)).status).toBe(201);
    teacher = await b.connect();
    await ok(teacher, 'teacher:join', { code, key });
  });

  test('configured from B, A plays the content it reads from the database', async () => {
    const { room } = await ok(teacher, 'teacher:configure', { scenario: 'my-sale', minutes: 12 });
    expect(room.config).toMatchObject({ simulator: 'payment-switch', scenario: 'my-sale', minutes: 12 });
    expect((await a.rooms()).held.map((r) => r.code)).toEqual([code]);
    const store = await cluster.store();
    roundId = room.round.id;
    const row = await store.roundById(roundId);
    const own = await store.scenarioOfTeacher((await store.roomByCode(code))!.teacherId, 'my-sale');
    expect(row!.scenarioHash).toBe(own!.hash);

    const student = await b.connect();
    await ok(student, 'student:join', { code, name: 'Ana' });
    await ok(teacher, 'teacher:clock', { action: 'start' });
    for (let m = 1; m <= 12; m++) await a.advance(1000);
    // Each advance resolves once A has stored what fell due.
    expect((await store.roundById(roundId))?.state).toBe('finished');
  });

  test('edited and deleted through B: the replay and verify-replays are exact on PostgreSQL', async () => {
    const replay = async (): Promise<RoundReplay> => (await send(b, 'GET', `/api/rounds/${roundId}/replay`)).json();
    const before = await replay();
    expect(before.round.scenario).toBe('my-sale');
    const edited = { ...MINE, goals: MINE.goals.map((g: { target: number }) => ({ ...g, target: g.target / 2 })) };
    edited.shocks = { ...MINE.shocks, episodes: [{ ...MINE.shocks.episodes[0], start: [1, 2] }] };
    expect((await (await send(b, 'PUT', '/api/teacher/scenarios/my-sale', edited)).json()).version).toBe(2);
    expect((await send(b, 'DELETE', '/api/teacher/scenarios/my-sale')).status).toBe(204);

    const store = await cluster.store();
    const reports = await verifyRounds(store);
    expect(reports.map((r) => [r.scenario, r.minutes, r.mismatches])).toEqual([['my-sale', 12, []]]);
    // Read on A too (a replay kept by B's cache would prove nothing): the same teams, minutes and results.
    const onA: RoundReplay = await (await send(a, 'GET', `/api/rounds/${roundId}/replay`)).json();
    expect(onA.teams.map((t) => [t.columns, t.result])).toEqual(before.teams.map((t) => [t.columns, t.result]));
  });
});
