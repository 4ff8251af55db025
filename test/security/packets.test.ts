// Every inbound packet counts (issue 13 item 5): unknown events, events without an acknowledgement and
// any other packet take from the socket's budgets; a client that keeps flooding is cut off, and a class
// in another room keeps getting its minutes. A client at a human pace is never cut.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_CONNECTION_LIMITS } from '../../server/realtime/guard.ts';
import {
  advance,
  collect,
  connect,
  createRoom,
  ok,
  refusals,
  startServer,
  until,
  type Client,
  type TestServer,
} from '../server/helpers.ts';
import { rawFeed, rawSocketIo, type RawSocketIo } from './raw-clients.ts';

const { events } = DEFAULT_CONNECTION_LIMITS;
const notices = (c: RawSocketIo) => c.frames.filter((f) => f.startsWith('42["notice"')).length;

describe('flooding', () => {
  let server: TestServer;
  let code: string;
  let teacherKey: string;
  let teamId: number;
  let student: Client;
  beforeAll(async () => {
    server = await startServer();
    const room = await createRoom(server, { teamCount: 1, minutes: 60, tempo: 5 });
    code = room.code;
    teacherKey = room.teacherKey;
    teamId = room.room.teams[0].id;
    const teacher = await connect(server);
    await ok(teacher, 'teacher:join', { code, key: room.teacherKey });
    student = await connect(server);
    await ok(student, 'student:join', { code, name: 'Ann' });
    await ok(teacher, 'teacher:clock', { action: 'start' });
  });
  afterAll(() => server.close());

  async function classGetsNextMinute() {
    const minutes = collect(student, 'minute');
    await advance(server, 5000);
    await until(() => minutes.length === 1, 'the class in another room to get its minute');
  }

  test.each([
    ['unknown events', () => ['42["admin:drop-tables",{}]']],
    [
      'events without an acknowledgement',
      () => ['42["student:control",{"key":"servers","value":8}]', '42["observer:join",{"code":"ZZZZZZ"}]'],
    ],
    ['bare engine.io packets', () => ['6', '3']],
  ])('100,000 %s: answered at most up to the event limit, then the socket is cut', async (_what, packets) => {
    const before = server.app.io.engine.clientsCount;
    const c = await rawSocketIo(server.url);
    const list = packets();
    for (let i = 0; i < 100_000 && c.ws.readyState === c.ws.OPEN; i++) c.ws.send(list[i % list.length]);
    await until(() => c.ws.readyState === c.ws.CLOSED, 'the flooding socket to be cut');
    await until(() => server.app.io.engine.clientsCount === before, 'the server to forget it');
    expect(notices(c)).toBeLessThanOrEqual(events.capacity);
    await classGetsNextMinute();
  });

  test('unknown events and events without an acknowledgement take from the event limit like any event', async () => {
    const c = await rawSocketIo(server.url);
    // 150 packets: within the connection's packet budget, five times the event limit.
    for (let i = 0; i < 75; i++) c.ws.send('42["nonsense"]');
    for (let i = 0; i < 75; i++) c.ws.send('42["student:control",{"key":"servers","value":8}]');
    // Answered after everything before it, so by then every packet above was counted: the limit is spent.
    expect(await c.request('observer:join', { code })).toMatchObject({ ok: false, error: { code: 'RATE_LIMITED' } });
    expect(notices(c)).toBe(events.capacity);
    await advance(server, 1000);
    expect(await c.request('observer:join', { code })).toMatchObject({ ok: true });
    c.ws.close();
  });

  test('requests answered with a history share a budget per address, across sockets', async () => {
    const { heavyRequests } = DEFAULT_CONNECTION_LIMITS;
    const teachers = [await rawSocketIo(server.url), await rawSocketIo(server.url), await rawSocketIo(server.url)];
    const answers: any[] = [];
    // 3 × (1 + 20) requests: each socket within its own event limit, together past the address's budget.
    for (const t of teachers) answers.push(await t.request('teacher:join', { code, key: teacherKey }));
    for (let i = 0; i < 20; i++) for (const t of teachers) answers.push(await t.request('teacher:team', { teamId }));
    const limited = answers.filter((a) => !a.ok && a.error.code === 'RATE_LIMITED').length;
    expect(limited).toBe(answers.length - heavyRequests.capacity);
    expect(answers.slice(0, heavyRequests.capacity).every((a) => a.ok)).toBe(true);
    for (const t of teachers) t.ws.close();
  });

  test('four flooders at once: all are cut, the class is not', async () => {
    const cuts = async () =>
      (await refusals(server, 'socket:packets')) + (await refusals(server, 'socket:address-packets'));
    const before = await cuts();
    const flooders = await Promise.all([0, 1, 2, 3].map(() => rawSocketIo(server.url)));
    for (let i = 0; i < 25_000; i++)
      for (const c of flooders) if (c.ws.readyState === c.ws.OPEN) c.ws.send('42["nonsense"]');
    await until(() => flooders.every((c) => c.ws.readyState === c.ws.CLOSED), 'every flooder to be cut');
    // Each cut is counted once in /metrics.
    expect((await cuts()) - before).toBe(4);
    expect(student.connected).toBe(true);
    await classGetsNextMinute();
  });

  test('a client at a human pace is never cut, and every event of it is answered', async () => {
    const c = await rawSocketIo(server.url);
    for (let i = 0; i < 600; i++) {
      c.ws.send('42["nonsense"]');
      await until(() => notices(c) === i + 1, `event ${i} answered`);
      // Five events a second, for two minutes.
      await advance(server, 200);
    }
    expect(c.ws.readyState).toBe(c.ws.OPEN);
    c.ws.close();
  });
});

describe('per address', () => {
  let server: TestServer;
  let code: string;
  beforeAll(async () => {
    server = await startServer({
      connectionLimits: { connectionsPerAddress: 4, addressPackets: { capacity: 300, refillPerSecond: 1 } },
    });
    code = (await createRoom(server, { teamCount: 1 })).code;
  });
  afterAll(() => server.close());

  test('the connections of one address share a packet budget', async () => {
    const a = await rawSocketIo(server.url);
    const b = await rawSocketIo(server.url);
    // 180 packets each: within a connection's own budget (200), not within the address's (300).
    for (let i = 0; i < 180; i++) a.ws.send('42["nonsense"]');
    await until(() => notices(a) === events.capacity, 'a to be answered');
    for (let i = 0; i < 180 && b.ws.readyState === b.ws.OPEN; i++) b.ws.send('42["nonsense"]');
    await until(() => b.ws.readyState === b.ws.CLOSED, 'b to be cut');
    expect(a.ws.readyState).toBe(a.ws.OPEN);
    a.ws.close();
    await until(() => server.app.addressBook.connections() === 0, 'both to be forgotten');
  });

  test('socket.io sessions and feeds of one address are counted together, and freed on close', async () => {
    await advance(server, 3_600_000);
    const open = [await rawSocketIo(server.url), await rawSocketIo(server.url), await rawFeed(server.url, code)];
    const fourth = await rawFeed(server.url, code);
    await expect(rawSocketIo(server.url)).rejects.toThrow();
    await expect(rawFeed(server.url, code)).rejects.toThrow(/refused: 429/);
    fourth.ws.close();
    await until(() => server.app.addressBook.connections() === 3, 'the closed feed to be forgotten');
    const again = await rawSocketIo(server.url);
    expect(again.ws.readyState).toBe(again.ws.OPEN);
    for (const c of [...open, again]) c.ws.close();
  });
});
