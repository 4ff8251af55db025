// A student who drops and comes back changes one dot of the roster: their team, the teacher and the observers
// hear a `presence` event of a few dozen bytes, not the whole room again; other teams' desks, which do not list
// them, hear nothing.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { collect, connect, createRoom, ok, startServer, until, type Client, type TestServer } from './helpers.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

test('a reconnect sends a presence event of a few dozen bytes, not a RoomView', async () => {
  const { code, teacherKey } = await createRoom(server, { teamCount: 5 });
  const teacher = await connect(server);
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  const classmates: { c: Client; playerId: number }[] = [];
  for (let i = 0; i < 29; i++) {
    const c = await connect(server);
    const { playerId } = await ok(c, 'student:join', { code, name: `Student number ${i + 1}` });
    classmates.push({ c, playerId });
  }
  const first = await connect(server);
  const joined = await ok(first, 'student:join', { code, name: 'Wanderer' });
  const rooms = collect(teacher, 'room');
  const presence = collect(teacher, 'presence');
  const room0 = await server.app.rooms.get(code);
  const teamOf = (id: number) => room0.player(id)?.teamId;
  const teammate = classmates.find((x) => teamOf(x.playerId) === teamOf(joined.playerId))?.c;
  const stranger = classmates.find((x) => teamOf(x.playerId) !== teamOf(joined.playerId))?.c;
  if (!teammate || !stranger) throw new Error('five teams of six: the wanderer has a teammate and a stranger');
  const seenByTeammate = collect(teammate, 'presence');
  const seenByStranger = collect(stranger, 'presence');
  const observer = await connect(server);
  await ok(observer, 'observer:join', { code });
  const seenByObserver = collect(observer, 'presence');

  first.disconnect();
  await until(
    () => presence.length === 1 && seenByTeammate.length === 1 && seenByObserver.length === 1,
    'the disconnect',
  );
  expect(presence[0]).toEqual({ playerId: joined.playerId, connected: false, idle: false, free: false });

  const again = await connect(server);
  const back = await ok(again, 'student:join', { code, token: joined.token });
  await until(() => presence.length === 2, 'the reconnect');
  expect(presence[1]).toEqual({ playerId: joined.playerId, connected: true, idle: false, free: false });
  expect(rooms).toEqual([]);
  // The answer to the rejoin carries the whole room (with the dot on); the others get a few dozen bytes.
  expect(back.room.players.find((p: { id: number }) => p.id === joined.playerId)).toMatchObject({ connected: true });
  const eventBytes = JSON.stringify(['presence', presence[1]]).length;
  expect(eventBytes).toBeLessThan(96);
  expect(JSON.stringify(['room', back.room]).length).toBeGreaterThan(40 * eventBytes);

  // A second tab of the same student is no news; closing one of two is none either.
  const sockets = () => server.app.io.of('/').sockets.size;
  const tab = await connect(server);
  await ok(tab, 'student:join', { code, token: joined.token });
  const open = sockets();
  tab.disconnect();
  await until(() => sockets() === open - 1, 'the server to see the tab go');
  const room = await server.app.rooms.get(code);
  expect(room.view('teacher').players.find((p) => p.id === joined.playerId)?.connected).toBe(true);
  expect(presence).toHaveLength(2);
  expect(rooms).toEqual([]);
  expect(seenByTeammate).toHaveLength(2);
  expect(seenByStranger).toEqual([]);
});
