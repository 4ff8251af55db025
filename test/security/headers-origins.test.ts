// Security headers and WebSocket origins (issue 13 item 9): every answer carries the headers, the CSP
// allows exactly the build's inline scripts by hash; socket.io (both transports) and the feed accept
// pages of the server's own origin and of ALLOWED_ORIGINS, refuse others, and let tools without an
// Origin through.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { connect as netConnect } from 'node:net';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { parseTrustProxy } from '../../server/http/client-address.ts';
import { parseAllowedOrigins } from '../../server/http/origins.ts';
import { loadConfig } from '../../server/config.ts';
import { createRoom, startServer, type TestServer } from '../server/helpers.ts';
import { rawFeed, rawSocketIo } from './raw-clients.ts';

describe('headers', () => {
  const web = mkdtempSync(join(tmpdir(), 'opsroom-web-'));
  const boot = '\n  window.booted = 1;\n';
  writeFileSync(
    join(web, 'index.html'),
    `<!doctype html><html><head><script src="/_app/x.js"></script></head><body><script>${boot}</script></body></html>`,
  );
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ webRoot: web });
  });
  afterAll(async () => {
    await server.close();
    rmSync(web, { recursive: true, force: true });
  });

  test('pages get a CSP that allows the inline bootstrap by its hash, and nothing else inline', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/play/ABCDEF' });
    expect(res.statusCode).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    const hash = createHash('sha256').update(boot).digest('base64');
    const directives = Object.fromEntries(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([k, ...v]) => [k, v]),
    );
    expect(directives['script-src']).toEqual(["'self'", `'sha256-${hash}'`]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(directives['object-src']).toEqual(["'none'"]);
    expect(directives['connect-src']).toEqual(["'self'"]);
    expect(directives['upgrade-insecure-requests']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-frame-options']).toBe('DENY');
    // Plain HTTP on a classroom LAN is normal: HSTS is left to a TLS-terminating proxy.
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  test('answers made before routing, by Node’s parser and by socket.io carry them as well', async () => {
    const expectHeaders = (h: Record<string, string | string[] | undefined>, what: string) => {
      expect(h['x-content-type-options'], what).toBe('nosniff');
      expect(h['x-frame-options'], what).toBe('DENY');
      expect(String(h['content-security-policy']), what).toMatch(/frame-ancestors 'none'/);
    };
    // A malformed URL is refused before any route (Fastify's frameworkErrors).
    const bad = await server.app.inject({ method: 'GET', url: '/api/rooms/%E0%A4%A' });
    expect(bad.statusCode).toBe(400);
    expectHeaders(bad.headers as never, 'malformed URL');
    // Node's parser: a request line it cannot read, headers too large.
    const port = Number(new URL(server.url).port);
    for (const text of [
      'NONSENSE / HTTP/9.9\r\n\r\n',
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ]) {
      const head = await new Promise<string>((resolve, reject) => {
        const s = netConnect(port, '127.0.0.1', () => s.write(text));
        let out = '';
        s.on('data', (d) => (out += d));
        s.on('close', () => resolve(out.split('\r\n\r\n')[0]));
        s.on('error', reject);
      });
      const headers = Object.fromEntries(
        head
          .split('\r\n')
          .slice(1)
          .map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      expectHeaders(headers, head.split('\r\n')[0]);
    }
    // socket.io's long-polling: the handshake and a poll.
    const hs = await fetch(`${server.url}/socket.io/?EIO=4&transport=polling`);
    expectHeaders(Object.fromEntries(hs.headers), 'polling handshake');
    const sid = /"sid":"([^"]+)"/.exec(await hs.text())![1];
    const poll = await fetch(`${server.url}/socket.io/?EIO=4&transport=polling&sid=${sid}`, {
      method: 'POST',
      body: '40',
    });
    expectHeaders(Object.fromEntries(poll.headers), 'polling post');
    await poll.text();
  });

  test('API answers and errors carry the headers too', async () => {
    for (const url of ['/api/health', '/api/rooms/ZZZZZZ', '/api/nothing']) {
      const res = await server.app.inject({ method: 'GET', url });
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['content-security-policy'], url).toContain("default-src 'self'");
    }
  });
});

describe('WebSocket origins', () => {
  let server: TestServer;
  let code: string;
  const partner = 'https://projector.school.example';
  beforeAll(async () => {
    server = await startServer({ allowedOrigins: [partner] });
    code = (await createRoom(server, { teamCount: 1 })).code;
  });
  afterAll(() => server.close());

  const own = () => server.url;
  // OWN stands for the server's origin, known once it listens.
  const CASES: [string, Record<string, string>, boolean][] = [
    ['its own origin', { origin: 'OWN' }, true],
    ['an allowed origin', { origin: partner }, true],
    ['no Origin (a tool)', {}, true],
    ['another site', { origin: 'https://evil.example' }, false],
    ['a look-alike host', { origin: 'OWN.evil.example' }, false],
    ['a garbled Origin', { origin: 'not a url' }, false],
  ];
  const cases = () => CASES;
  const real = (h: Record<string, string>): Record<string, string> =>
    h.origin ? { origin: h.origin.replace('OWN', own()) } : {};

  test.each(cases())('socket.io over websocket, %s', async (_what, headers, allowed) => {
    const attempt = rawSocketIo(own(), real(headers));
    // engine.io refuses an upgrade with 400 whatever the reason.
    if (allowed) (await attempt).ws.close();
    else await expect(attempt).rejects.toThrow(/refused: 400/);
  });

  test.each(cases())('socket.io over long-polling, %s', async (_what, headers, allowed) => {
    const res = await fetch(`${own()}/socket.io/?EIO=4&transport=polling`, { headers: real(headers) });
    expect(res.status).toBe(allowed ? 200 : 403);
    if (!allowed) expect(await res.json()).toMatchObject({ message: expect.stringMatching(/not allowed/) });
    else await res.text();
  });

  test.each(cases())('the feed, %s', async (_what, headers, allowed) => {
    const attempt = rawFeed(own(), code, real(headers));
    if (allowed) (await attempt).ws.close();
    else await expect(attempt).rejects.toThrow(/refused: 403/);
  });

  test('behind a trusted proxy, the forwarded host is the server own origin when it is PUBLIC_URL’s', async () => {
    const proxied = await startServer({
      trustProxy: parseTrustProxy('loopback'),
      publicUrl: 'https://opsroom.school.example',
    });
    try {
      const headers = { origin: 'https://opsroom.school.example', 'x-forwarded-host': 'opsroom.school.example' };
      (await rawSocketIo(proxied.url, headers)).ws.close();
      await expect(rawSocketIo(proxied.url, { ...headers, 'x-forwarded-host': 'other.example' })).rejects.toThrow(
        /refused: 400/,
      );
    } finally {
      await proxied.close();
    }
  });
});

describe('a name pointed at the server (DNS rebinding)', () => {
  let server: TestServer;
  let code: string;
  beforeAll(async () => {
    server = await startServer({ publicUrl: 'http://opsroom.school.example' });
    code = (await createRoom(server, { teamCount: 1 })).code;
  });
  afterAll(() => server.close());
  const port = () => Number(new URL(server.url).port);

  /** An HTTP request as a browser on `host` would send it: Host and Origin agree. */
  const asPageOf = (host: string, method: string, path: string, body?: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: port(),
          method,
          path,
          headers: {
            host: `${host}:${port()}`,
            origin: `http://${host}:${port()}`,
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const websocket = (host: string, path: string) =>
    new Promise<number | 'open'>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port()}${path}`, {
        headers: { host: `${host}:${port()}`, origin: `http://${host}:${port()}` },
      });
      ws.once('open', () => {
        ws.close();
        resolve('open');
      });
      ws.once('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0));
      ws.once('error', () => undefined);
    });

  test('another name is refused on every path, though its Host and Origin agree', async () => {
    const evil = 'rebind.evil.example';
    const created = await asPageOf(evil, 'POST', '/api/rooms', '{}');
    expect(created.status).toBe(403);
    expect(JSON.parse(created.body)).toEqual({
      error: {
        code: 'NOT_ALLOWED',
        message: expect.stringMatching(/does not answer to the name rebind\.evil\.example.*PUBLIC_URL/),
      },
    });
    expect((await asPageOf(evil, 'GET', '/socket.io/?EIO=4&transport=polling')).status).toBe(403);
    expect(await websocket(evil, '/socket.io/?EIO=4&transport=websocket')).toBe(400);
    expect(await websocket(evil, `/api/rooms/${code}/feed`)).toBe(403);
  });

  test('its own names are served: an address, localhost, this machine’s name, PUBLIC_URL’s host', async () => {
    for (const host of ['127.0.0.1', 'localhost', hostname(), `${hostname()}.local`, 'opsroom.school.example']) {
      expect((await asPageOf(host, 'POST', '/api/rooms', '{}')).status, host).toBe(201);
      expect(await websocket(host, '/socket.io/?EIO=4&transport=websocket'), host).toBe('open');
      expect(await websocket(host, `/api/rooms/${code}/feed`), host).toBe('open');
    }
  });
});

test('ALLOWED_ORIGINS takes origins only', () => {
  expect(parseAllowedOrigins(undefined)).toEqual([]);
  expect(parseAllowedOrigins(' https://a.example , http://b.example:8080/ ')).toEqual([
    'https://a.example',
    'http://b.example:8080',
  ]);
  for (const bad of ['a.example', 'https://a.example/path', '*', 'javascript:alert(1)']) {
    expect(() => parseAllowedOrigins(bad), bad).toThrow(/is not an origin/);
    expect(() => loadConfig({ ALLOWED_ORIGINS: `https://ok.example,${bad}` }), bad).toThrow(
      /^ALLOWED_ORIGINS=.*: ".*" is not an origin; expected scheme/,
    );
  }
  expect(loadConfig({ ALLOWED_ORIGINS: 'https://a.example' }).allowedOrigins).toEqual(['https://a.example']);
});
