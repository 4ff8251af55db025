// What rooms send: every minute a client is sent is the snapshot that was stored, views nobody can receive are not
// built, and the output knows who listens (this process's sockets, the feed).
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { socketOutput } from '../../server/realtime/outbound.ts';
import { connect, createRoom, ok, startServer, type TestServer, until } from './helpers.ts';
import { roomEnv } from './rooms.ts';

async function playedRoom(minutes: number) {
  const env = roomEnv();
  const { room } = await env.manager.create({ teamCount: 3, tempo: 1, seed: 5, minutes: 5 });
  await room.dispatch({ type: 'clock', action: 'start' });
  await env.advance(minutes * 1000);
  return { env, room };
}

test('every minute sent is the snapshot that was stored before it', async () => {
  const { env, room } = await playedRoom(5);
  const minutes = env.out.of('minute');
  expect(minutes).toHaveLength(3 * 6);
  expect(env.out.of('room:minute')).toHaveLength(6);
  const stored = await env.store.snapshotsOfRound(room.round.id);
  expect(stored).toHaveLength(3 * 6);
  for (const m of minutes) {
    const row = stored.find((r) => r.teamId === m.teamId && r.minute === m.snapshot.minute);
    expect(row && JSON.parse(row.data)).toEqual(JSON.parse(JSON.stringify(m.snapshot)));
  }
});

test('the observers’ summary is built only when someone can receive it', async () => {
  const watched = await playedRoom(3);
  const env = roomEnv();
  env.out.deaf.add('observers');
  const { room } = await env.manager.create({ teamCount: 3, tempo: 1, seed: 5, minutes: 5 });
  await room.dispatch({ type: 'clock', action: 'start' });
  await env.advance(3000);
  // Without listeners: every minute, no summary. With: one per minute, as before.
  expect(env.out.of('minute')).toEqual(watched.env.out.of('minute'));
  expect(env.out.of('summary')).toEqual([]);
  const summaries = watched.env.out.of('summary');
  expect(summaries.map((s) => [s.minute, s.state])).toEqual([0, 1, 2, 3].map((m) => [m, 'running']));
  expect(summaries[3].teams).toHaveLength(3);
});

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

test('listens: nobody in an empty channel; the observers when a feed is open; a socket once it joined', async () => {
  const { code } = await createRoom(server, { teamCount: 1 });
  const out = socketOutput(server.app.io, server.app.feed, { cluster: false });
  expect(out.listens?.(code, { kind: 'observers' })).toBe(false);
  expect(out.listens?.(code, { kind: 'all' })).toBe(false);

  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/api/rooms/${code}/feed`);
  await new Promise((r) => ws.once('open', r));
  await until(() => server.app.feed.count(code) === 1, 'the feed to open');
  expect(out.listens?.(code, { kind: 'observers' })).toBe(true);
  expect(out.listens?.(code, { kind: 'teacher' })).toBe(false);
  ws.close();
  await until(() => server.app.feed.count(code) === 0, 'the feed to close');
  expect(out.listens?.(code, { kind: 'observers' })).toBe(false);

  const observer = await connect(server);
  await ok(observer, 'observer:join', { code });
  expect(out.listens?.(code, { kind: 'observers' })).toBe(true);
  expect(out.listens?.(code, { kind: 'all' })).toBe(true);
});
