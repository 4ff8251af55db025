// `npx tsx test/bench/security.ts`: the figures of docs/security.md. A server process with its default
// limits on a SQLite file (prepared with five finished 30-team, 240-minute rounds), a class playing in
// another room at one simulated minute per second, and the attacks of issue 13 one after the other:
// memory before, at the peak and after each; how late the class's minutes came meanwhile; packets a
// second accepted before the cut; unknown codes a second possible on each path; export times. ~4 min.
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ask, connect, startClass } from './class-probe.ts';
import WebSocket from 'ws';
import { buildApp } from '../../server/app.ts';
import { ManualClock } from '../../server/lib/clock.ts';
import { rawFeed, rawSocketIo } from '../security/raw-clients.ts';
import { startChild } from './spawn.ts';
import { fmt, machine } from './stats.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Five finished rounds of 30 teams × 240 minutes, played on a manual clock into the file. */
async function prepare(
  dbPath: string,
): Promise<{ key: string; rounds: { roundId: number; code: string; teamId: number }[] }> {
  // Played in the last half hour, so that the rounds are still open to viewers (the feed) when the attacks come: a
  // room whose last round ended over an hour ago is closed to everyone but its teacher and students.
  const clock = new ManualClock(Date.now() - 30 * 60_000);
  const app = await buildApp({ databasePath: dbPath, webRoot: null, clock });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const rounds: { roundId: number; code: string; teamId: number }[] = [];
  let key: string | undefined;
  for (let i = 0; i < 5; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/rooms',
      payload: { teamCount: 30, minutes: 240, tempo: 1 },
      headers: key ? { authorization: `Bearer ${key}` } : {},
    });
    const body = res.json();
    key = body.teacherKey as string;
    const teacher = await connect(url);
    await ask(teacher, 'teacher:join', { code: body.code, key });
    const started = await ask(teacher, 'teacher:clock', { action: 'start' });
    for (let m = 0; m < 240; m++) {
      clock.advance(1000);
      await app.rooms.settled();
    }
    rounds.push({ roundId: started.room.round.id, code: body.code, teamId: started.room.teams[0].id });
    teacher.disconnect();
  }
  await app.close();
  return { key: key!, rounds };
}

async function memory(url: string): Promise<{ heapUsedMB: number; rssMB: number; peakRssMB: number }> {
  return (await fetch(`${url}/__bench/memory`)).json();
}

/** Sends `frame` over `ws` until `bytes` were sent or the connection is gone, minding the socket's buffer. */
async function pour(ws: WebSocket, frame: string, bytes: number, ms: number): Promise<{ sent: number; cut: boolean }> {
  let sent = 0;
  const end = Date.now() + ms;
  while (sent < bytes && ws.readyState === ws.OPEN && Date.now() < end) {
    for (let i = 0; i < 2000 && ws.bufferedAmount < 1 << 20; i++) {
      ws.send(frame);
      sent += frame.length;
    }
    await new Promise((r) => setImmediate(r));
  }
  return { sent, cut: ws.readyState !== ws.OPEN };
}

const MB = (n: number) => (n < 2 ** 20 ? `${fmt(n / 2 ** 10)} KB` : `${fmt(n / 2 ** 20)} MB`);

async function phase(
  name: string,
  url: string,
  cls: Awaited<ReturnType<typeof startClass>>,
  attack: () => Promise<string>,
) {
  const before = await memory(url);
  const t0 = Date.now();
  const what = await attack();
  await sleep(3000);
  const after = await memory(url);
  console.log(
    `| ${name} | ${what} | ${fmt(before.heapUsedMB)} / ${fmt(before.rssMB)} | ${fmt(after.peakRssMB)} | ${fmt(after.heapUsedMB)} / ${fmt(after.rssMB)} | ${cls.worstSince(t0)} ms |`,
  );
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'opsroom-security-'));
  const dbPath = join(dir, 'security.db');
  console.log(`Opsroom security probe — ${new Date().toISOString().slice(0, 10)} — ${machine()}`);
  const prepared = await prepare(dbPath);
  const server = startChild('./security-server.ts', [], { DATABASE_PATH: dbPath }, ['--expose-gc']);
  try {
    const { port } = await server.next((m) => 'port' in m);
    const url = `http://127.0.0.1:${port}`;
    const cls = await startClass(url);
    const quiet = Date.now();
    await sleep(10_000);
    console.log(`\nThe class alone, 10 s: worst lateness of a minute ${cls.worstSince(quiet + 2000)} ms.`);
    const big = prepared.rounds[0];
    // The first look-up of a finished room loads it (every minute re-simulated and checked): timed on its
    // own, so that the attacks below start with it in memory.
    const tLoad = Date.now();
    await fetch(`${url}/api/rooms/${big.code}`);
    const loadMs = Date.now() - tLoad;
    await sleep(3000);
    console.log(
      `First look-up of a finished 30-team, 240-minute room (loads it): ${loadMs} ms; the class's worst minute meanwhile ${cls.worstSince(tLoad)} ms.`,
    );

    console.log(
      '\n## Slow readers and floods (memory: heap after a full GC / RSS, MB; the class: worst lateness of a minute)\n',
    );
    console.log('| attack | what happened | before | peak RSS | after | class minute, worst |');
    console.log('|---|---|---|---|---|---|');
    await phase('feed: 3 connections send 14 MB of 1-byte messages each, never read', url, cls, async () => {
      const feeds = await Promise.all([0, 1, 2].map(() => rawFeed(url, big.code)));
      for (const f of feeds) f.stopReading();
      const results = await Promise.all(feeds.map((f) => pour(f.ws, 'x', 14 << 20, 10_000)));
      // A client that stopped reading, its buffer full, sees the server's close only once it reads again.
      for (const f of feeds) f.resumeReading();
      const closed = await Promise.all(
        feeds.map((f) => Promise.race([f.closed.then(() => true), sleep(2000).then(() => false)])),
      );
      for (const f of feeds) f.ws.terminate();
      return `${closed.filter(Boolean).length}/3 closed by the server (${results.filter((r) => r.cut).length} seen while sending); ${MB(results.reduce((n, r) => n + r.sent, 0))} sent`;
    });
    await phase('socket.io: 26 MB of unknown events, never read', url, cls, async () => {
      const c = await rawSocketIo(url);
      c.stopReading();
      const r = await pour(c.ws, '42["nonsense",{}]', 26 << 20, 10_000);
      c.ws.terminate();
      return `${r.cut ? 'cut' : 'NOT cut'} after ${MB(r.sent)} sent`;
    });
    await phase('teacher key: 20 sockets ask teacher:team (30 × ~260 KB each), never read', url, cls, async () => {
      const socks = await Promise.all(Array.from({ length: 20 }, () => rawSocketIo(url)));
      for (const s of socks) await s.request('teacher:join', { code: big.code, key: prepared.key });
      for (const s of socks) s.stopReading();
      for (const s of socks) for (let i = 0; i < 30; i++) s.emit('teacher:team', { teamId: big.teamId }, i + 1);
      await sleep(5000);
      // Now read what reached each socket before the server cut it.
      for (const s of socks) s.resumeReading();
      await sleep(2000);
      const answers = (s: (typeof socks)[number]) =>
        s.frames.filter((f) => /^43\d+\[\{"ok":true,"history"/.test(f)).length;
      const cut = socks.filter((s) => s.ws.readyState !== s.ws.OPEN && answers(s) < 30).length;
      const got = socks.map(answers);
      const limited = socks.reduce((n, s) => n + s.frames.filter((f) => f.includes('RATE_LIMITED')).length, 0);
      for (const s of socks) s.ws.terminate();
      return `${got.reduce((a, b) => a + b, 0)} histories sent in all, ${limited} requests refused RATE_LIMITED (read after the fact); ${cut}/20 sockets cut`;
    });

    console.log('\n## Inbound packets a second (unknown events, reading client, 8 s each)\n');
    console.log('| rate sent | cut? | after | packets accepted |');
    console.log('|---|---|---|---|');
    for (const rate of [20, 45, 60, 100, 1000]) {
      const c = await rawSocketIo(url);
      const start = Date.now();
      let sent = 0;
      while (Date.now() - start < 8000 && c.ws.readyState === c.ws.OPEN) {
        const due = Math.floor(((Date.now() - start) / 1000) * rate);
        for (; sent < due && c.ws.readyState === c.ws.OPEN; sent++) c.ws.send('42["nonsense"]');
        await sleep(5);
      }
      await sleep(200);
      const cut = c.ws.readyState !== c.ws.OPEN;
      console.log(
        `| ${rate}/s | ${cut ? 'yes' : 'no'} | ${cut ? `${fmt((Date.now() - start) / 1000)} s` : '—'} | ${sent} |`,
      );
      c.ws.terminate();
    }

    console.log('\n## Unknown room codes, each path from its own address, 60 s flat out\n');
    console.log('| path | attempts answered ROOM_NOT_FOUND | refused RATE_LIMITED | codes a second possible |');
    console.log('|---|---|---|---|');
    const paths = ['http', 'feed', 'student:join', 'teacher:join', 'observer:join'] as const;
    const results = await Promise.all(paths.map((p, i) => guessFor(url, p, `127.0.0.${i + 2}`, 60_000)));
    for (const [i, p] of paths.entries())
      console.log(`| ${p} | ${results[i].found} | ${results[i].limited} | ${fmt(results[i].found / 60, 2)} |`);
    const shared = await guessAll(url, '127.0.0.9', 60_000);
    console.log(
      `| all five in turn, one address | ${shared.found} | ${shared.limited} | ${fmt(shared.found / 60, 2)} |`,
    );

    console.log('\n## Export of a finished 30-team, 240-minute round\n');
    const auth = { authorization: `Bearer ${prepared.key}` };
    const timed = async (path: string) => {
      const t = Date.now();
      const res = await fetch(`${url}${path}`, { headers: auth });
      const body = Buffer.from(await res.arrayBuffer());
      return { ms: Date.now() - t, bytes: body.length, status: res.status };
    };
    const t0 = Date.now();
    const first = await timed(`/api/rounds/${big.roundId}/export/minutes.csv`);
    const again = await timed(`/api/rounds/${big.roundId}/export/minutes.csv`);
    const zipped = await timed(`/api/rounds/${big.roundId}/export/all.zip`);
    console.log(
      `- minutes.csv first: ${first.ms} ms, ${MB(first.bytes)}; from memory: ${again.ms} ms; all.zip (two more parts + zip): ${zipped.ms} ms, ${MB(zipped.bytes)}; class worst ${cls.worstSince(t0)} ms`,
    );
    const before = await memory(url);
    const t1 = Date.now();
    const ten = await Promise.all(
      prepared.rounds.flatMap((r) =>
        ['en', 'it'].map((lang) => timed(`/api/rounds/${r.roundId}/export/minutes.csv?lang=${lang}`)),
      ),
    );
    const after = await memory(url);
    console.log(
      `- ten different minutes.csv at once (5 rounds × 2 languages, none in memory): all done in ${Date.now() - t1} ms (statuses ${[...new Set(ten.map((t) => t.status))].join(', ')}); class worst ${cls.worstSince(t1)} ms; heap ${fmt(before.heapUsedMB)} → ${fmt(after.heapUsedMB)} MB, peak RSS ${fmt(after.peakRssMB)} MB`,
    );
    console.log(`\nThe class got ${cls.count()} minutes in all.`);
    cls.close();
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

type Path = 'http' | 'feed' | 'student:join' | 'teacher:join' | 'observer:join';
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
let guess = 0;
const nextCode = () => {
  let n = guess++;
  let c = '';
  for (let i = 0; i < 6; i++) {
    c += ALPHABET[n % 31];
    n = Math.floor(n / 31);
  }
  return c;
};

/** One look-up of an unknown code on a path, from `local` (a loopback address): the error code. */
async function tryCode(
  url: string,
  path: Path,
  local: string,
  sock?: Awaited<ReturnType<typeof rawSocketIo>>,
): Promise<string> {
  const code = nextCode();
  if (path === 'http') {
    return new Promise((resolve) => {
      const req = httpRequest(`${url}/api/rooms/${code}`, { localAddress: local }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve(JSON.parse(body).error?.code ?? 'OK'));
      });
      req.end();
    });
  }
  if (path === 'feed') {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/api/rooms/${code}/feed`, { localAddress: local });
    return new Promise((resolve) => {
      ws.once('message', (d) => {
        resolve(JSON.parse(String(d)).code ?? 'OK');
        ws.terminate();
      });
      ws.once('unexpected-response', (_q, res) => {
        resolve(String(res.statusCode));
        ws.terminate();
      });
      ws.once('error', () => resolve('ERROR'));
    });
  }
  const payload =
    path === 'student:join'
      ? { code, name: 'Guess' }
      : path === 'teacher:join'
        ? { code, key: 'K'.repeat(43) }
        : { code };
  const r = await sock!.request(path, payload);
  return r.ok ? 'OK' : r.error.code;
}

async function guessFor(url: string, path: Path, local: string, ms: number) {
  let found = 0;
  let limited = 0;
  let sock: Awaited<ReturnType<typeof rawSocketIo>> | undefined;
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // A fresh socket now and then: the per-socket event limit is not what is measured here.
    if (path !== 'http' && path !== 'feed' && (!sock || sock.frames.length > 20)) {
      sock?.ws.terminate();
      sock = await rawSocketIo(url, {}, local);
    }
    const r = await tryCode(url, path, local, sock);
    if (r === 'ROOM_NOT_FOUND') found++;
    else if (r === 'RATE_LIMITED') limited++;
    await sleep(path === 'http' || path === 'feed' ? 5 : 100);
  }
  sock?.ws.terminate();
  return { found, limited };
}

async function guessAll(url: string, local: string, ms: number) {
  const per = await Promise.all(
    (['http', 'feed', 'student:join', 'teacher:join', 'observer:join'] as const).map((p) =>
      guessFor(url, p, local, ms),
    ),
  );
  return { found: per.reduce((n, r) => n + r.found, 0), limited: per.reduce((n, r) => n + r.limited, 0) };
}

await main();
process.exit(0);
