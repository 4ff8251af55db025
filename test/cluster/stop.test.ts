// A process that stops takes no room from its first moment of stopping: when several stop together (a rolling
// restart, a deploy), the rooms the others release are left to the processes that go on, not taken by one that is
// about to close (whose commits would then fail and whose lease would hold the room for its time to live).
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { stopGracefully } from '../../server/ops/shutdown.ts';
import { ManualClock } from '../../server/lib/clock.ts';
import { testCluster } from './nodes.ts';

const cluster = testCluster('stop');
let urls: { databaseUrl: string; redisUrl: string };
const apps: FastifyInstance[] = [];

/** An Opsroom process of the cluster in this one, on a manual room clock, that looks for free rooms only when asked. */
async function start(node: string): Promise<FastifyInstance> {
  const app = await buildApp({
    databasePath: ':memory:',
    clock: new ManualClock(Date.UTC(2026, 0, 1)),
    webRoot: null,
    cluster: { ...urls, node: `stop-${node}`, scanMs: 3_600_000 },
  });
  apps.push(app);
  return app;
}

beforeAll(async () => {
  urls = await cluster.services();
});
afterAll(async () => {
  for (const app of apps) await app.close();
});

test('a process that begins to stop takes no room, not one released meanwhile: the next process that goes on does', async () => {
  const a = await start('a');
  const b = await start('b');
  const res = await a.inject({
    method: 'POST',
    url: '/api/rooms',
    payload: { simulator: 'web-service', teamCount: 1, minutes: 10, tempo: 1, seed: 9 },
  });
  expect(res.statusCode).toBe(201);
  const { code } = res.json();
  await (await a.rooms.get(code)).dispatch({ type: 'clock', action: 'start' });

  // A stops and releases the running room; B has begun to stop too, and looks for rooms nobody holds.
  expect((await stopGracefully(a)).roundsHandedOver).toBe(1);
  const redis = cluster.redis();
  expect(await redis.exists(`opsroom:lease:{${code}}`)).toBe(0);
  const stopping = stopGracefully(b);
  expect(await b.cluster!.scan()).toEqual([]);
  await stopping;
  expect(await redis.exists(`opsroom:lease:{${code}}`)).toBe(0);

  // A process that goes on takes it (its first look, as it starts), and the round goes on there.
  const c = await start('c');
  expect(c.rooms.all().map((r) => [r.code, r.round.state])).toEqual([[code, 'running']]);
});
