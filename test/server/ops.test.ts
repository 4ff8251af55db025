// Operating the server: metrics that move with a round, logs at the right level, /metrics access,
// where students can join (addresses, /api/info, the start block), and the environment check.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { joinInfo, lanAddresses, type Interfaces } from '../../server/net/addresses.ts';
import { startBlock, startSummary } from '../../server/ops/start-block.ts';
import { collect, connect, createRoom, ok, request, sample, startServer, until } from './helpers.ts';

const iface = (address: string, family: 'IPv4' | 'IPv6', internal = false) =>
  ({ address, family, internal, netmask: '', mac: '', cidr: null }) as never;
const CLASSROOM: Interfaces = {
  lo: [iface('127.0.0.1', 'IPv4', true), iface('::1', 'IPv6', true)],
  docker0: [iface('172.17.0.1', 'IPv4')],
  wlan0: [iface('fe80::1c2d', 'IPv6'), iface('2001:db8::20', 'IPv6'), iface('192.168.1.20', 'IPv4')],
};

describe('metrics', () => {
  test('move when a round is played: rooms, sockets, minutes, ticks, commits, messages', async () => {
    const server = await startServer();
    try {
      const scrape = async () => {
        const res = await fetch(`${server.url}/metrics`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
        return res.text();
      };
      const before = await scrape();
      expect(sample(before, 'opsroom_rooms', { state: 'finished' })).toBe(0);
      expect(sample(before, 'opsroom_minutes_committed_total')).toBe(0);

      const { code, teacherKey } = await createRoom(server, {
        simulator: 'web-service',
        scenario: 'bad-deploy',
        teamCount: 1,
        minutes: 5,
        tempo: 1,
        seed: 3,
      });
      const teacher = await connect(server);
      await ok(teacher, 'teacher:join', { code, key: teacherKey });
      const students = [await connect(server), await connect(server)];
      const minutes = students.map((s) => collect(s, 'minute'));
      for (const [i, s] of students.entries()) await ok(s, 'student:join', { code, name: `S${i}` });
      await connect(server); // connected, never joined

      const lobby = await scrape();
      expect(sample(lobby, 'opsroom_rooms', { state: 'lobby' })).toBe(1);
      expect(sample(lobby, 'opsroom_sockets', { kind: 'student' })).toBe(2);
      expect(sample(lobby, 'opsroom_sockets', { kind: 'teacher' })).toBe(1);
      expect(sample(lobby, 'opsroom_sockets', { kind: 'unjoined' })).toBe(1);

      await ok(teacher, 'teacher:clock', { action: 'start' });
      expect(sample(await scrape(), 'opsroom_rooms', { state: 'running' })).toBe(1);
      for (let m = 1; m <= 5; m++) {
        server.clock.advance(1000);
        await until(() => minutes.every((x) => x.length === m + 1), `minute ${m}`);
      }

      const after = await scrape();
      expect(sample(after, 'opsroom_rooms', { state: 'finished' })).toBe(1);
      expect(sample(after, 'opsroom_rooms', { state: 'running' })).toBe(0);
      // Minute 0 is stored by the start, minutes 1–5 by five ticks.
      expect(sample(after, 'opsroom_minutes_committed_total')).toBe(6);
      // Every transaction is timed: the new room, two joins, the start and five minutes.
      expect(sample(after, 'opsroom_commit_duration_seconds_count')).toBe(9);
      expect(sample(after, 'opsroom_tick_duration_seconds_count')).toBe(5);
      // Every minute fired on its plan (a manual clock is never late): all lag in the first bucket.
      expect(sample(after, 'opsroom_tick_lag_seconds_count')).toBe(5);
      expect(sample(after, 'opsroom_tick_lag_seconds_bucket', { le: '0.001' })).toBe(5);
      // So each minute went out when due: five played minutes, all in the first bucket of the delay.
      expect(sample(after, 'opsroom_minute_delay_seconds_count')).toBe(5);
      expect(sample(after, 'opsroom_minute_delay_seconds_bucket', { le: '0.005' })).toBe(5);
      expect(sample(after, 'opsroom_tick_failures_total')).toBe(0);
      // Two students got minutes 0–5; the teacher got each room minute.
      expect(
        sample(after, 'opsroom_messages_sent_total', { event: 'minute' }) -
          sample(before, 'opsroom_messages_sent_total', { event: 'minute' }),
      ).toBe(12);
      expect(sample(after, 'opsroom_messages_sent_total', { event: 'room:minute' })).toBe(6);
      // The scores, once, to everyone in the room: the teacher and the two students.
      expect(sample(after, 'opsroom_messages_sent_total', { event: 'scores' })).toBe(3);
      // prom-client's process metrics: event-loop delay and memory.
      expect(sample(after, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0);
      expect(after).toMatch(/^nodejs_eventloop_lag_p99_seconds /m);
      expect(sample(after, 'process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
      // The descriptors are counted (listed off the event loop); no series walks every handle when scraped.
      if (process.platform === 'linux') expect(sample(after, 'process_open_fds')).toBeGreaterThan(3);
      expect(after).toMatch(/^process_max_fds /m);
      expect(after).not.toMatch(/^nodejs_active_(handles|resources)/m);
    } finally {
      await server.close();
    }
  });

  test('count rate-limit refusals by limit, and log them with the room code', async () => {
    const lines: string[] = [];
    const server = await startServer({
      connectionLimits: { events: { capacity: 2, refillPerSecond: 0.001 } },
      httpLimits: { lookups: { max: 1, timeWindow: '1 minute' } },
      logger: { level: 'info', stream: { write: (l: string) => void lines.push(l) } },
    });
    try {
      const { code } = await createRoom(server, { teamCount: 1 });
      const s = await connect(server);
      await ok(s, 'student:join', { code, name: 'Flood' });
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await request(s, 'teacher:team', { teamId: 1 }));
      expect(answers.map((a) => (a.ok ? 'ok' : a.error.code))).toEqual(['NOT_TEACHER', 'RATE_LIMITED', 'RATE_LIMITED']);
      expect((await fetch(`${server.url}/api/rooms/${code}`)).status).toBe(200);
      expect((await fetch(`${server.url}/api/rooms/${code}`)).status).toBe(429);

      const text = await (await fetch(`${server.url}/metrics`)).text();
      expect(sample(text, 'opsroom_rate_limited_total', { limit: 'socket:events' })).toBe(2);
      expect(sample(text, 'opsroom_rate_limited_total', { limit: 'http:GET /api/rooms/:code' })).toBe(1);
      const logged = lines.map((l) => JSON.parse(l));
      // One line for the first refusal of a socket (not one per refused message), and the HTTP 429.
      expect(logged.filter((l) => l.msg === 'rate limit refused a socket')).toEqual([
        expect.objectContaining({ level: 40, limit: 'socket:events', room: code }),
      ]);
      expect(logged.filter((l) => l.status === 429)).toEqual([
        expect.objectContaining({ level: 40, url: `/api/rooms/${code}` }),
      ]);
    } finally {
      await server.close();
    }
  });

  test('a failed tick is counted, and logged at error with the room code', async () => {
    const lines: string[] = [];
    const server = await startServer({
      logger: { level: 'info', stream: { write: (l: string) => void lines.push(l) } },
    });
    try {
      const { code, teacherKey } = await createRoom(server, { teamCount: 1, minutes: 10, tempo: 1 });
      const teacher = await connect(server);
      await ok(teacher, 'teacher:join', { code, key: teacherKey });
      const notices = collect(teacher, 'notice');
      await ok(teacher, 'teacher:clock', { action: 'start' });
      // The disk fills up for one minute.
      const store = server.app.store;
      const commit = store.commit.bind(store);
      store.commit = () => {
        store.commit = commit;
        return Promise.reject(new Error('SQLITE_FULL: database or disk is full'));
      };
      server.clock.advance(1000);
      await until(() => notices.length === 1, 'the TICK_FAILED notice');
      const text = await (await fetch(`${server.url}/metrics`)).text();
      expect(sample(text, 'opsroom_tick_failures_total')).toBe(1);
      expect(sample(text, 'opsroom_tick_duration_seconds_count')).toBe(1);
      // Nothing changed: the round is still running at its last stored minute, and the next beat retries.
      expect(sample(text, 'opsroom_rooms', { state: 'running' })).toBe(1);
      const logged = lines.map((l) => JSON.parse(l));
      expect(logged.find((l) => l.msg === 'could not store a change of the room')).toMatchObject({
        level: 50,
        room: code,
        inputs: ['tick'],
        minute: 0,
        err: { message: 'SQLITE_FULL: database or disk is full' },
      });
      expect(logged.find((l) => l.msg === 'round started')).toMatchObject({ level: 30, room: code });
    } finally {
      await server.close();
    }
  });

  test('/metrics: only this machine without a token; only the token with one', async () => {
    const open = await startServer();
    const closed = await startServer({ metricsToken: 'a-long-secret-token-0123' });
    try {
      const get = (s: typeof open, headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') =>
        s.app
          .inject({ method: 'GET', url: '/metrics', headers, remoteAddress })
          .then((r) => ({ status: r.statusCode, code: r.statusCode === 200 ? null : r.json().error.code }));
      expect(await get(open)).toEqual({ status: 200, code: null });
      expect(await get(open, {}, '::1')).toEqual({ status: 200, code: null });
      expect(await get(open, {}, '192.0.2.7')).toEqual({ status: 404, code: 'NOT_FOUND' });
      // A reverse proxy on this machine makes everyone look local: forwarded requests are not.
      expect(await get(open, { 'x-forwarded-for': '192.0.2.7' })).toEqual({ status: 404, code: 'NOT_FOUND' });

      expect(await get(closed)).toEqual({ status: 401, code: 'BAD_KEY' });
      expect(await get(closed, { authorization: 'Bearer a-long-secret-token-0124' })).toEqual({
        status: 401,
        code: 'BAD_KEY',
      });
      expect(await get(closed, { authorization: 'Bearer a-long-secret-token-0123' }, '192.0.2.7')).toEqual({
        status: 200,
        code: null,
      });
    } finally {
      await open.close();
      await closed.close();
    }
  });
});

describe('logs', () => {
  const web = mkdtempSync(join(tmpdir(), 'opsroom-web-'));
  mkdirSync(join(web, '_app', 'immutable'), { recursive: true });
  writeFileSync(join(web, 'index.html'), '<!doctype html><title>Opsroom</title>');
  writeFileSync(join(web, '_app', 'immutable', 'start.js'), 'export {};');
  afterAll(() => rmSync(web, { recursive: true, force: true }));

  const run = async (level: string) => {
    const lines: string[] = [];
    const server = await startServer({
      webRoot: web,
      logger: { level, stream: { write: (l: string) => void lines.push(l) } },
    });
    try {
      for (const url of ['/', '/_app/immutable/start.js', '/join/ABCDE', '/api/health'])
        expect((await server.app.inject({ url })).statusCode).toBe(200);
      expect((await server.app.inject({ url: '/api/rooms/ZZZZZ' })).statusCode).toBe(404);
      await createRoom(server, { teamCount: 1 });
    } finally {
      await server.close();
    }
    return lines.map((l) => JSON.parse(l) as { level: number; msg: string; url?: string; room?: string });
  };

  test('at info, asset, page and health requests are hidden; room life and client errors are not', async () => {
    const info = await run('info');
    const urls = info.map((l) => l.url).filter(Boolean);
    expect(urls).toEqual(['/api/rooms/ZZZZZ']);
    expect(info.find((l) => l.msg === 'room created')).toMatchObject({
      level: 30,
      room: expect.stringMatching(/^[A-Z0-9]+$/),
    });
    expect(info.every((l) => l.msg !== 'incoming request' && l.msg !== 'request completed')).toBe(true);
  });

  test('at debug, every request is one line', async () => {
    const urls = (await run('debug')).filter((l) => l.url).map((l) => `${l.level} ${l.url}`);
    expect(urls).toEqual([
      '20 /',
      '20 /_app/immutable/start.js',
      '20 /join/ABCDE',
      '20 /api/health',
      '30 /api/rooms/ZZZZZ',
      '20 /api/rooms',
    ]);
  });
});

describe('where students join', () => {
  test('every LAN address the socket answers on, the classroom network first', () => {
    expect(lanAddresses('0.0.0.0', 3000, CLASSROOM).map((a) => a.url)).toEqual([
      'http://192.168.1.20:3000',
      'http://172.17.0.1:3000',
    ]);
    expect(lanAddresses('::', 3000, CLASSROOM).map((a) => a.url)).toEqual([
      'http://192.168.1.20:3000',
      'http://[2001:db8::20]:3000',
      'http://172.17.0.1:3000',
    ]);
    expect(lanAddresses('192.168.1.20', 80, CLASSROOM).map((a) => a.url)).toEqual(['http://192.168.1.20']);
    expect(lanAddresses('127.0.0.1', 3000, CLASSROOM)).toEqual([]);
  });

  test('the join base: PUBLIC_URL, else a LAN address (the one the teacher came in on first), else loopback with a flag', () => {
    const base = { publicUrl: null, bound: '0.0.0.0', port: 3000, interfaces: CLASSROOM };
    expect(joinInfo(base)).toEqual({
      baseUrl: 'http://192.168.1.20:3000',
      source: 'lan',
      loopbackOnly: false,
      lan: ['http://192.168.1.20:3000', 'http://172.17.0.1:3000'],
      local: 'http://localhost:3000',
    });
    expect(joinInfo({ ...base, via: '::ffff:172.17.0.1' }).baseUrl).toBe('http://172.17.0.1:3000');
    expect(joinInfo({ ...base, publicUrl: 'https://ops.example.org' })).toMatchObject({
      baseUrl: 'https://ops.example.org',
      source: 'public',
      loopbackOnly: false,
    });
    expect(joinInfo({ ...base, bound: '127.0.0.1' })).toMatchObject({
      baseUrl: 'http://localhost:3000',
      source: 'loopback',
      loopbackOnly: true,
      lan: [],
    });
    expect(joinInfo({ ...base, interfaces: { lo: CLASSROOM.lo } })).toMatchObject({
      source: 'loopback',
      loopbackOnly: true,
    });
  });

  test('GET /api/info answers the join base and the loopback flag', async () => {
    const local = await startServer({ interfaces: () => CLASSROOM });
    const behindProxy = await startServer({ publicUrl: 'https://ops.example.org' });
    try {
      const port = new URL(local.url).port;
      // Tests listen on 127.0.0.1 only: no phone could reach it, whatever the interfaces.
      expect(await (await fetch(`${local.url}/api/info`)).json()).toEqual({
        baseUrl: `http://localhost:${port}`,
        source: 'loopback',
        loopbackOnly: true,
        lan: [],
        local: `http://localhost:${port}`,
      });
      expect(await (await fetch(`${behindProxy.url}/api/info`)).json()).toMatchObject({
        baseUrl: 'https://ops.example.org',
        source: 'public',
        loopbackOnly: false,
      });
    } finally {
      await local.close();
      await behindProxy.close();
    }
  });

  const facts = { bound: '0.0.0.0', port: 3000, publicUrl: null, databasePath: 'data/opsroom.db', metricsToken: false };

  test('the start block lists the LAN addresses, the database and how to stop', () => {
    const block = startBlock({ ...facts, interfaces: CLASSROOM });
    expect(block.split('\n')).toEqual([
      'Opsroom is ready.',
      '  Students join at  http://192.168.1.20:3000  (wlan0)',
      '                    http://172.17.0.1:3000  (docker0)',
      '  On this computer  http://localhost:3000',
      `  Database          ${join(process.cwd(), 'data/opsroom.db')}`,
      '  Metrics           http://localhost:3000/metrics (this computer only; set METRICS_TOKEN to open it to a collector)',
      '  To stop           Ctrl+C (or SIGTERM): running rounds are paused and kept',
      '',
    ]);
    expect(startBlock({ ...facts, interfaces: CLASSROOM, bound: '127.0.0.1' })).toMatch(
      /Students join at {2}nowhere yet — only this computer can open it: .*HOST=0\.0\.0\.0/,
    );
    expect(startBlock({ ...facts, interfaces: CLASSROOM, publicUrl: 'https://ops.example.org' })).toMatch(
      /Students join at {2}https:\/\/ops\.example\.org {2}\(PUBLIC_URL\)\n {2}On this computer/,
    );
  });

  test("the start block lists this machine's own non-loopback IPv4 addresses, if it has any", () => {
    const own = Object.values(networkInterfaces())
      .flat()
      .filter((i) => i && i.family === 'IPv4' && !i.internal && !i.address.startsWith('169.254.'))
      .map((i) => `http://${i!.address}:3000`);
    const summary = startSummary({ ...facts, interfaces: networkInterfaces() });
    expect(summary.join).toEqual(expect.arrayContaining(own));
    expect(summary.loopbackOnly).toBe(summary.join.length === 0);
    for (const url of own) expect(startBlock({ ...facts, interfaces: networkInterfaces() })).toContain(url);
  });
});

describe('the environment', () => {
  test('defaults, blanks as unset, and a normalised PUBLIC_URL', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '0.0.0.0',
      databasePath: './data/opsroom.db',
      logLevel: 'info',
      logFormat: 'auto',
      publicUrl: null,
      metricsToken: null,
      trustProxy: null,
      allowedOrigins: [],
      cluster: null,
      teacherMinutes: null,
    });
    expect(loadConfig({ TEACHER_QUOTA_MINUTES: '2000000' }).teacherMinutes).toBe(2_000_000);
    expect(loadConfig({ PORT: '', HOST: ' ', PUBLIC_URL: 'https://ops.example.org/' })).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      publicUrl: 'https://ops.example.org',
    });
    expect(loadConfig({ PORT: '8080', LOG_LEVEL: 'debug', METRICS_TOKEN: 'x'.repeat(16) })).toMatchObject({
      port: 8080,
      logLevel: 'debug',
      metricsToken: 'x'.repeat(16),
    });
  });

  test('a bad value names its variable in one line, and never echoes a secret', () => {
    const message = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return 'accepted';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(message({ PORT: 'abc' })).toBe('PORT=abc: must be a whole number from 0 to 65535');
    expect(message({ PORT: '65536' })).toBe('PORT=65536: must be a whole number from 0 to 65535');
    expect(message({ LOG_LEVEL: 'loud' })).toMatch(/^LOG_LEVEL=loud: must be one of fatal, error, warn, info, debug/);
    expect(message({ PUBLIC_URL: 'ops.example.org' })).toMatch(
      /^PUBLIC_URL=ops\.example\.org: must be an http:\/\/ or https:\/\/ address/,
    );
    expect(message({ HOST: 'two words' })).toMatch(/^HOST=two words: /);
    expect(message({ TEACHER_QUOTA_MINUTES: '1e6' })).toBe(
      'TEACHER_QUOTA_MINUTES=1e6: must be a whole number of team-minutes, e.g. 500000',
    );
    expect(message({ TEACHER_QUOTA_MINUTES: '10' })).toMatch(/^TEACHER_QUOTA_MINUTES=10: must be at least 1000/);
    expect(message({ METRICS_TOKEN: 'hunter2' })).toBe(
      'METRICS_TOKEN=(hidden): must be 16 to 128 printable characters without spaces',
    );
  });
});
