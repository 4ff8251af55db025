// Security headers and WebSocket origins (issue 13 item 9): every answer carries the headers, the CSP
// allows exactly the build's inline scripts by hash; socket.io (both transports) and the feed accept
// pages of the server's own origin and of ALLOWED_ORIGINS, refuse others, and let tools without an
// Origin through.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
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

  test('behind a trusted proxy, the forwarded host is the server own origin', async () => {
    const proxied = await startServer({ trustProxy: parseTrustProxy('loopback') });
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
