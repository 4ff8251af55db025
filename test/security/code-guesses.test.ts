// Unknown room codes (issue 13 item 3): the HTTP look-up, the feed and socket.io's three joins share one
// per-address limit; TRUST_PROXY makes that address the client's behind a reverse proxy, on every path.
import { io as ioClient } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { loadConfig } from '../../server/config.ts';
import { addressKey, clientAddress, parseTrustProxy } from '../../server/http/client-address.ts';
import { DEFAULT_GUESS_LIMIT } from '../../server/realtime/guesses.ts';
import {
  advance,
  createRoom,
  refusals,
  request,
  startServer,
  type Client,
  type TestServer,
} from '../server/helpers.ts';

type Path = 'http' | 'feed' | 'student' | 'teacher' | 'observer';
const PATHS: Path[] = ['http', 'feed', 'student', 'teacher', 'observer'];

/** Tries `code` on one path as the client at `forwarded` (sent as X-Forwarded-For); resolves with the error code, or 'ok'. */
async function attempt(server: TestServer, path: Path, code: string, forwarded?: string): Promise<string> {
  const headers: Record<string, string> = forwarded ? { 'x-forwarded-for': forwarded } : {};
  if (path === 'http') {
    const res = await server.app.inject({ method: 'GET', url: `/api/rooms/${code}`, headers });
    return res.statusCode === 200 ? 'ok' : res.json().error.code;
  }
  if (path === 'feed') {
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/api/rooms/${code}/feed`, { headers });
    const first = await new Promise<any>((resolve, reject) => {
      ws.once('message', (d) => resolve(JSON.parse(String(d))));
      ws.once('error', reject);
    });
    ws.close();
    return first.type === 'hello' ? 'ok' : first.code;
  }
  const c: Client = ioClient(server.url, {
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    extraHeaders: headers,
  });
  server.clients.push(c);
  await new Promise<void>((resolve, reject) => {
    c.once('connect', resolve);
    c.once('connect_error', reject);
  });
  const r =
    path === 'student'
      ? await request(c, 'student:join', { code, name: 'Guess' })
      : path === 'teacher'
        ? await request(c, 'teacher:join', { code, key: 'K'.repeat(43) })
        : await request(c, 'observer:join', { code });
  c.disconnect();
  // A known code with a wrong teacher key is still a found room.
  return r.ok || r.error.code === 'BAD_KEY' ? 'ok' : r.error.code;
}

/** An unknown code: a valid code shape, no room. */
const unknown = (i: number) =>
  `ZZZZ${'23456789ABCDEFGHJKMNPQRSTUVWXYZ'[Math.floor(i / 31) % 31]}${'23456789ABCDEFGHJKMNPQRSTUVWXYZ'[i % 31]}`;

describe('one limit on unknown codes for every path', () => {
  let server: TestServer;
  let known: string;
  beforeAll(async () => {
    server = await startServer();
    known = (await createRoom(server, { teamCount: 1 })).code;
  });
  afterAll(() => server.close());

  test('misses on all five paths add up; then every look-up from the address is refused, known codes too', async () => {
    // Known codes cost nothing: a class joining from one address is not slowed by the guess limit.
    for (const path of PATHS) for (let i = 0; i < 5; i++) expect(await attempt(server, path, known), path).toBe('ok');
    const answers: string[] = [];
    for (let i = 0; i < DEFAULT_GUESS_LIMIT.capacity; i++)
      answers.push(await attempt(server, PATHS[i % PATHS.length], unknown(i)));
    expect(answers.every((a) => a === 'ROOM_NOT_FOUND')).toBe(true);
    for (const path of PATHS) {
      expect(await attempt(server, path, unknown(100)), path).toBe('RATE_LIMITED');
      // Answering a known code now would tell a guesser it exists.
      expect(await attempt(server, path, known), path).toBe('RATE_LIMITED');
    }
    // Every refusal shows in /metrics, by path: two on each of HTTP and the feed, six over the three joins.
    expect(await refusals(server, 'unknown-codes:http')).toBe(2);
    expect(await refusals(server, 'unknown-codes:feed')).toBe(2);
    expect(await refusals(server, 'unknown-codes:socket')).toBe(6);
    // One more guess after its refill time, on any path.
    await advance(server, 1000 / DEFAULT_GUESS_LIMIT.refillPerSecond);
    expect(await attempt(server, 'feed', unknown(101))).toBe('ROOM_NOT_FOUND');
    expect(await attempt(server, 'observer', unknown(102))).toBe('RATE_LIMITED');
    await advance(server, 1000 / DEFAULT_GUESS_LIMIT.refillPerSecond);
    expect(await attempt(server, 'student', known)).toBe('ok');
  });

  test('without TRUST_PROXY a forged X-Forwarded-For does not buy fresh guesses', async () => {
    await advance(server, 3_600_000);
    for (let i = 0; i < DEFAULT_GUESS_LIMIT.capacity; i++)
      await attempt(server, PATHS[i % PATHS.length], unknown(i), `198.51.100.${i}`);
    for (const path of PATHS)
      expect(await attempt(server, path, unknown(200), '198.51.100.250'), path).toBe('RATE_LIMITED');
  });
});

describe('behind a trusted proxy, each client counts on its own', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ trustProxy: parseTrustProxy('127.0.0.1/8') });
  });
  afterAll(() => server.close());

  test('the forwarded address is the one limited, the same on every path', async () => {
    for (let i = 0; i < DEFAULT_GUESS_LIMIT.capacity; i++)
      await attempt(server, PATHS[i % PATHS.length], unknown(i), '203.0.113.7');
    for (const path of PATHS) {
      expect(await attempt(server, path, unknown(300), '203.0.113.7'), path).toBe('RATE_LIMITED');
      // Another client behind the same proxy is not affected.
      expect(await attempt(server, path, unknown(301), '203.0.113.8'), path).toBe('ROOM_NOT_FOUND');
    }
    // A client cannot prepend its own X-Forwarded-For entries: the proxy's last hop is the one believed.
    expect(await attempt(server, 'student', unknown(302), '192.0.2.1, 203.0.113.7')).toBe('RATE_LIMITED');
  });
});

test('TRUST_PROXY values and address keys', () => {
  const req = (remote: string, xff?: string) =>
    ({ headers: xff ? { 'x-forwarded-for': xff } : {}, socket: { remoteAddress: remote } }) as never;
  expect(parseTrustProxy(undefined)('127.0.0.1', 0)).toBe(false);
  expect(parseTrustProxy('false')('127.0.0.1', 0)).toBe(false);
  const oneHop = parseTrustProxy('1');
  expect([oneHop('10.0.0.1', 0), oneHop('10.0.0.2', 1)]).toEqual([true, false]);
  const list = parseTrustProxy('10.0.0.0/8, loopback');
  expect([list('10.1.2.3', 0), list('127.0.0.1', 0), list('192.0.2.1', 0)]).toEqual([true, true, false]);
  // A value that is none of these stops the start with one line naming the variable (config.ts).
  expect(() => parseTrustProxy('banana')).toThrow(/expected false, true, a hop count/);
  expect(() => loadConfig({ TRUST_PROXY: 'banana' })).toThrow(
    /^TRUST_PROXY=banana: .*expected false, true, a hop count/,
  );
  expect(loadConfig({ TRUST_PROXY: ' 10.0.0.0/8, loopback ' }).trustProxy).toBe('10.0.0.0/8, loopback');
  expect(clientAddress(req('127.0.0.1', '192.0.2.1, 203.0.113.7'), list)).toBe('203.0.113.7');
  expect(clientAddress(req('192.0.2.9', '203.0.113.7'), list)).toBe('192.0.2.9');
  expect(clientAddress(req('10.0.0.1', '192.0.2.1, 203.0.113.7'), oneHop)).toBe('203.0.113.7');
  // IPv6 addresses count by their /64: one host or household holds a whole /64.
  expect(addressKey('2001:db8:1:2:aaaa::1')).toBe(addressKey('2001:0db8:1:2:ffff:ffff:ffff:ffff'));
  expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
  expect(addressKey('::ffff:192.0.2.4')).toBe('192.0.2.4');
  expect(addressKey('192.0.2.4')).toBe('192.0.2.4');
});
