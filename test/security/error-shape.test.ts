// Every framework error answers { error: { code, message } } (issue 13 item 12): malformed URLs,
// parameters too long, unparsable requests and headers too large, as well as the routes' own errors.
import { connect as netConnect } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startServer, type TestServer } from '../server/helpers.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

function expectShape(body: string, code: string) {
  const json = JSON.parse(body);
  expect(Object.keys(json)).toEqual(['error']);
  expect(json.error).toMatchObject({ code, message: expect.any(String) });
}

test('malformed URLs and over-long parameters answer in the error shape', async () => {
  for (const url of ['/api/rooms/%E0%A4%A', '/api/rooms/%', '/%', '/api/rounds/%zz/replay', '/api/rooms/%ff%fe']) {
    const res = await server.app.inject({ method: 'GET', url });
    expect(res.statusCode, url).toBe(400);
    expectShape(res.body, 'BAD_REQUEST');
  }
  const long = await server.app.inject({ method: 'GET', url: `/api/rooms/${'A'.repeat(200)}` });
  expect(long.statusCode).toBe(414);
  expectShape(long.body, 'TOO_LARGE');
  const media = await server.app.inject({
    method: 'POST',
    url: '/api/rooms',
    headers: { 'content-type': 'application/xml' },
    payload: '<a/>',
  });
  expect(media.statusCode).toBe(415);
  expectShape(media.body, 'BAD_REQUEST');
});

/** Sends raw bytes over TCP and resolves with everything the server wrote before it closed. */
function raw(text: string): Promise<string> {
  const port = Number(new URL(server.url).port);
  return new Promise((resolve, reject) => {
    const s = netConnect(port, '127.0.0.1', () => s.write(text));
    let out = '';
    s.on('data', (d) => (out += d));
    s.on('close', () => resolve(out));
    s.on('error', reject);
  });
}

test('requests Node cannot parse answer in the error shape too', async () => {
  const garbage = await raw('NONSENSE / HTTP/9.9\r\n\r\n');
  expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
  expectShape(garbage.split('\r\n\r\n')[1], 'BAD_REQUEST');
  const huge = await raw(`GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  expect(huge).toMatch(/^HTTP\/1\.1 431 /);
  expectShape(huge.split('\r\n\r\n')[1], 'TOO_LARGE');
});

test('route schemas check bodies, parameters and queries, and answer in the same shape', async () => {
  const created = await server.app.inject({ method: 'POST', url: '/api/rooms' });
  expect(created.statusCode).toBe(201);
  const key = created.json().teacherKey;
  const cases: [string, string, object | undefined, RegExp][] = [
    ['POST', '/api/rooms', { teamCount: 0 }, /^teamCount: Too small: expected number to be >=1$/],
    ['POST', '/api/rooms', { evil: true }, /^body: Unrecognized key: "evil"$/],
    ['GET', '/api/rounds/abc/replay', undefined, /^id: /],
    ['POST', '/api/rounds/1/fork', { teamId: 1 }, /^minute: /],
    ['GET', `/api/rounds/1/export/minutes.csv?lang=${'x'.repeat(50)}`, undefined, /^lang: Too big/],
  ];
  for (const [method, url, payload, message] of cases) {
    const res = await server.app.inject({
      method: method as 'GET',
      url,
      payload,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.statusCode, url).toBe(400);
    expect(res.json(), url).toEqual({ error: { code: 'BAD_REQUEST', message: expect.stringMatching(message) } });
  }
});
