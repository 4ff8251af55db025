// Both socket.io transports and the plain WebSocket feed on one server at the same time.
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  collect,
  connect,
  createRoom,
  firstTransport,
  ok,
  openFeed,
  startServer,
  until,
  type TestServer,
} from './helpers.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

test('websocket-only and polling→websocket clients and the plain feed all follow one round', async () => {
  const { code, teacherKey } = await createRoom(server, {
    simulator: 'web-service',
    scenario: 'bad-deploy',
    teamCount: 1,
    minutes: 5,
    tempo: 1,
  });
  const teacher = await connect(server);
  await ok(teacher, 'teacher:join', { code, key: teacherKey });

  const wsOnly = await connect(server, ['websocket']);
  const upgrading = await connect(server, ['polling', 'websocket']);
  expect(firstTransport.get(wsOnly)).toBe('websocket');
  expect(firstTransport.get(upgrading)).toBe('polling');
  await until(() => upgrading.io.engine.transport.name === 'websocket', 'the polling client to upgrade');

  const mA = collect(wsOnly, 'minute');
  const mB = collect(upgrading, 'minute');
  await ok(wsOnly, 'student:join', { code, name: 'Web' });
  await ok(upgrading, 'student:join', { code, name: 'Poll' });

  const observer = await connect(server, ['polling']);
  const summaries = collect(observer, 'summary');
  await ok(observer, 'observer:join', { code });

  const feed = await openFeed(server, code);
  await until(() => feed.messages.length >= 1, 'feed hello');
  expect(feed.messages[0]).toMatchObject({ type: 'hello', room: { code, round: { state: 'lobby' } } });

  await ok(teacher, 'teacher:clock', { action: 'start' });
  for (let m = 1; m <= 5; m++) server.clock.advance(1000);
  await until(() => mA.length === 6 && mB.length === 6 && summaries.length === 6, 'all minutes on both transports');
  await until(() => feed.messages.filter((m) => m.type === 'summary').length === 6, 'all minutes on the feed');

  expect(mA.map((m) => m.snapshot.minute)).toEqual([0, 1, 2, 3, 4, 5]);
  expect(mB.map((m) => m.snapshot)).toEqual(mA.map((m) => m.snapshot));
  const feedSummaries = feed.messages.filter((m) => m.type === 'summary');
  expect(feedSummaries.map((m) => m.minute)).toEqual([0, 1, 2, 3, 4, 5]);
  expect(feedSummaries[5].teams[0].headline).toEqual(summaries[5].teams[0].headline);
  expect(Object.keys(feedSummaries[5].teams[0].headline).sort()).toEqual(
    ['dbLoad', 'errorRate', 'p99Ms', 'utilization'].sort(),
  );
  await until(() => feed.messages.some((m) => m.type === 'scores'), 'scores on the feed');
  expect(feed.messages.some((m) => m.type === 'room' && m.room.round.state === 'finished')).toBe(true);

  // The feed is read-only.
  feed.ws.send(JSON.stringify({ type: 'control', key: 'rollback', value: 'press' }));
  await until(() => feed.messages.some((m) => m.type === 'error'), 'feed error');
  expect(feed.messages.find((m) => m.type === 'error')).toMatchObject({ code: 'BAD_REQUEST' });
  feed.ws.close();
});

test('the feed of an unknown room answers with an error and closes', async () => {
  const feed = await openFeed(server, 'ZZZZZZ');
  const closed = new Promise<number>((r) => feed.ws.once('close', (c) => r(c)));
  expect(await closed).toBe(4404);
  expect(feed.messages[0]).toMatchObject({ type: 'error', code: 'ROOM_NOT_FOUND' });
});
