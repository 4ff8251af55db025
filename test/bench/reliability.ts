// `npx tsx test/bench/reliability.ts [--only spam,history,replays,rooms64,forks,coach,acks]`: the attacks of the
// reliability review on one process (docs/security.md, "Reliability"), from outside — real HTTP and socket.io
// clients against a server process with its default limits on a SQLite file — while a class of four teams plays
// in another room at one simulated minute per second. For each: what the attacker got, and how late the class's
// minutes came meanwhile (the worst interval beyond the tempo plus delivery, as a student's page sees it).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Socket } from 'socket.io-client';
import { ask, connect, startClass } from './class-probe.ts';
import { buildApp } from '../../server/app.ts';
import { ManualClock } from '../../server/lib/clock.ts';
import { startChild } from './spawn.ts';
import { fmt, machine } from './stats.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const onlyArg = process.argv.find((_a, i) => process.argv[i - 1] === '--only');
const only = onlyArg ? new Set(onlyArg.split(',')) : null;
const want = (name: string) => !only || only.has(name);

const quantile = (xs: number[], q: number) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

interface Prepared {
  /** A teacher whose 30-team, 240-minute round is paused at minute 230 (not finished). */
  key: string;
  pausedRound: number;
  /** A finished 30-team round of that teacher (the coach's whole class). */
  finishedRound: number;
  /** Another teacher's finished round of one student who sent all eight controls every minute for 240 minutes. */
  spamKey: string;
  spamRound: number;
  /** A third teacher's finished round of one team, never asked of the coach. */
  otherKey: string;
  otherRound: number;
}

/** Plays the prepared rounds on a manual clock into the file. */
async function prepare(dbPath: string): Promise<Prepared> {
  const clock = new ManualClock();
  const app = await buildApp({ databasePath: dbPath, webRoot: null, clock });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const create = async (body: object, key?: string) =>
    (
      await app.inject({
        method: 'POST',
        url: '/api/rooms',
        payload: body,
        headers: key ? { authorization: `Bearer ${key}` } : {},
      })
    ).json();
  const play = async (minutes: number) => {
    for (let m = 0; m < minutes; m++) {
      clock.advance(1000);
      await app.rooms.settled();
    }
  };
  // The paused 30 × 240 round.
  const big = await create({ teamCount: 30, minutes: 240, tempo: 1 });
  const teacher = await connect(url);
  await ask(teacher, 'teacher:join', { code: big.code, key: big.teacherKey });
  const started = await ask(teacher, 'teacher:clock', { action: 'start' });
  await play(230);
  await ask(teacher, 'teacher:clock', { action: 'pause' });
  // A finished 30-team round of 60 minutes.
  const whole = await create({ teamCount: 30, minutes: 60, tempo: 1 }, big.teacherKey);
  await ask(teacher, 'teacher:join', { code: whole.code, key: big.teacherKey });
  const wholeStarted = await ask(teacher, 'teacher:clock', { action: 'start' });
  await play(60);
  // One student, a team of one, every control of the web service every minute of 240.
  const spam = await create({ simulator: 'web-service', scenario: 'launch-day', teamCount: 1, minutes: 240, tempo: 1 });
  await ask(teacher, 'teacher:join', { code: spam.code, key: spam.teacherKey });
  const student = await connect(url);
  await ask(student, 'student:join', { code: spam.code, name: 'Spam' });
  const spamStarted = await ask(teacher, 'teacher:clock', { action: 'start' });
  for (let m = 0; m < 240; m++) {
    const v = m % 2;
    const controls: [string, unknown][] = [
      ['minInstances', 5 + (m % 20)],
      ['autoscaling', v === 0],
      ['targetUtilization', v ? 0.6 : 0.7],
      ['cacheTtlS', 30 + m],
      ['warmUp', true],
      ['shedLowPriority', (m % 10) / 10],
      ['heavyFeature', v === 1],
      ['rollback', true],
    ];
    await Promise.all(controls.map(([key, value]) => ask(student, 'student:control', { key, value })));
    clock.advance(1000);
    await app.rooms.settled();
  }
  // A third teacher's round of one team, 60 minutes.
  const other = await create({ teamCount: 1, minutes: 60, tempo: 1 });
  await ask(teacher, 'teacher:join', { code: other.code, key: other.teacherKey });
  const otherStarted = await ask(teacher, 'teacher:clock', { action: 'start' });
  await play(60);
  teacher.disconnect();
  student.disconnect();
  await app.close();
  return {
    otherKey: other.teacherKey,
    otherRound: otherStarted.room.round.id,
    key: big.teacherKey,
    pausedRound: started.room.round.id,
    finishedRound: wholeStarted.room.round.id,
    spamKey: spam.teacherKey,
    spamRound: spamStarted.room.round.id,
  };
}

function dbBytes(path: string): number {
  let n = 0;
  for (const f of [path, `${path}-wal`]) {
    try {
      n += statSync(f).size;
    } catch {
      // not there
    }
  }
  return n;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'opsroom-reliability-'));
  const dbPath = join(dir, 'reliability.db');
  console.log(`Opsroom reliability probe — ${new Date().toISOString().slice(0, 10)} — ${machine()}`);
  const t0 = Date.now();
  const prepared = await prepare(dbPath);
  console.log(`prepared in ${fmt((Date.now() - t0) / 1000)} s`);
  const server = startChild('./security-server.ts', [], { DATABASE_PATH: dbPath, TRUST_PROXY: 'loopback' }, [
    '--expose-gc',
  ]);
  try {
    const { port } = await server.next((m) => 'port' in m);
    const url = `http://127.0.0.1:${port}`;
    const memory = async () => (await fetch(`${url}/__bench/memory`)).json();
    const cls = await startClass(url);
    const quiet = Date.now();
    await sleep(8000);
    console.log(
      `load average ${loadavg()
        .map((x) => fmt(x, 2))
        .join(' ')}`,
    );
    console.log(`The class alone, 8 s: worst lateness of a minute ${cls.worstSince(quiet + 2000)} ms.\n`);
    const auth = (key: string) => ({ authorization: `Bearer ${key}` });

    if (want('spam')) {
      // one anonymous address starts, ends and opens rounds of a 30-team room as fast as it is answered.
      const before = dbBytes(dbPath);
      const res = await fetch(`${url}/api/rooms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ teamCount: 30 }),
      });
      const room = await res.json();
      // Twenty sockets of the room's teacher, each cycling start, end, next as fast as it is answered.
      const socks = await Promise.all(Array.from({ length: 20 }, () => connect(url)));
      for (const t of socks) await ask(t, 'teacher:join', { code: room.code, key: room.teacherKey });
      const start = Date.now();
      let rounds = 0;
      const refused: Record<string, number> = {};
      let first: string | null = null;
      await Promise.all(
        socks.map(async (t) => {
          while (Date.now() - start < 40_000) {
            for (const action of ['start', 'end', 'next']) {
              const r = await ask(t, 'teacher:clock', { action });
              if (r.ok) {
                if (action === 'start') rounds++;
              } else {
                refused[r.error.code] = (refused[r.error.code] ?? 0) + 1;
                if (r.error.code !== 'BAD_STATE') first ??= `${r.error.code}: ${r.error.message}`;
                if (r.error.code === 'RATE_LIMITED') await sleep(100);
              }
            }
          }
        }),
      );
      await sleep(2000);
      for (const t of socks) t.disconnect();
      const grew = dbBytes(dbPath) - before;
      console.log(
        `- round spam, 40 s, one address, 30 teams: ${rounds} rounds started; refused ${JSON.stringify(refused)}${first ? ` (first: ${first})` : ''}; database +${fmt(grew / 2 ** 20)} MB (${fmt(grew / 2 ** 20 / 40, 2)} MB/s); class worst ${cls.worstSince(start)} ms`,
      );
      // The history of that teacher, one request, then ten at once.
      const h0 = Date.now();
      const one = await fetch(`${url}/api/teacher/rooms`, { headers: auth(room.teacherKey) });
      const body = await one.text();
      const oneMs = Date.now() - h0;
      const h1 = Date.now();
      const ten = await Promise.all(
        Array.from({ length: 10 }, () =>
          fetch(`${url}/api/teacher/rooms`, { headers: auth(room.teacherKey) }).then(async (r) => {
            await r.arrayBuffer();
            return r.status;
          }),
        ),
      );
      await sleep(2000);
      console.log(
        `- that teacher's history: ${one.status}, ${fmt(body.length / 1024)} KB in ${oneMs} ms; ten at once: ${Date.now() - h1} ms (statuses ${[...new Set(ten)].join(', ')}); class worst ${cls.worstSince(h1)} ms`,
      );
    }

    if (want('history')) {
      // the history route hammered: 200 requests as fast as they are answered.
      const h = Date.now();
      const statuses: Record<number, number> = {};
      for (let i = 0; i < 200; i++) {
        const r = await fetch(`${url}/api/teacher/rooms`, { headers: auth(prepared.key) });
        await r.arrayBuffer();
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      }
      await sleep(2000);
      console.log(
        `- 200 history requests in a row: ${JSON.stringify(statuses)} in ${Date.now() - h} ms; class worst ${cls.worstSince(h)} ms`,
      );
    }

    if (want('replays')) {
      // the replay of an unfinished 30-team, 240-minute round (paused at minute 230).
      const path = `/api/rounds/${prepared.pausedRound}/replay`;
      const get = async () => {
        const r = await fetch(`${url}${path}`, { headers: { ...auth(prepared.key), 'accept-encoding': 'gzip' } });
        await r.arrayBuffer();
        return r.status;
      };
      const a = Date.now();
      await get();
      const firstMs = Date.now() - a;
      const b = Date.now();
      await get();
      const secondMs = Date.now() - b;
      await sleep(2000);
      const c = Date.now();
      const twenty = await Promise.all(Array.from({ length: 20 }, get));
      const twentyMs = Date.now() - c;
      await sleep(2000);
      console.log(
        `- replay of a paused 30 × 240 round: first ${firstMs} ms, again ${secondMs} ms; 20 at once ${twentyMs} ms (statuses ${[...new Set(twenty)].join(', ')}); class worst ${cls.worstSince(c)} ms`,
      );
      // 100 over a minute, within the route's limit (120 a minute per address).
      const d = Date.now();
      const statuses: Record<number, number> = {};
      for (let i = 0; i < 100; i++) {
        const s = await get();
        statuses[s] = (statuses[s] ?? 0) + 1;
        await sleep(Math.max(0, d + (i + 1) * 600 - Date.now()));
      }
      console.log(`- 100 replays in a minute: ${JSON.stringify(statuses)}; class worst ${cls.worstSince(d)} ms`);
    }

    if (want('rooms64')) {
      // 1,000 rooms of 30 teams asked from 1,000 addresses of one IPv6 /64.
      const r = Date.now();
      const statuses: Record<number, number> = {};
      await Promise.all(
        Array.from({ length: 1000 }, async (_, i) => {
          const res = await fetch(`${url}/api/rooms`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-forwarded-for': `2001:db8:64:64::${(i + 1).toString(16)}`,
            },
            body: JSON.stringify({ teamCount: 30 }),
          });
          await res.arrayBuffer();
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        }),
      );
      await sleep(2000);
      console.log(
        `- 1,000 rooms of 30 teams from 1,000 addresses of one /64: ${JSON.stringify(statuses)} in ${Date.now() - r} ms; class worst ${cls.worstSince(r)} ms`,
      );
    }

    if (want('forks')) {
      // 1,000 forks with 350-change bodies after the allowance is spent.
      const changes = Array.from({ length: 350 }, (_, i) => ({ minute: 100 + (i % 100), key: 'servers', value: 8 }));
      const body = JSON.stringify({ teamId: 1, minute: 50, changes });
      const e = Date.now();
      const statuses: Record<number, number> = {};
      await Promise.all(
        Array.from({ length: 1000 }, async () => {
          const r = await fetch(`${url}/api/rounds/${prepared.pausedRound}/fork`, {
            method: 'POST',
            headers: { ...auth(prepared.key), 'content-type': 'application/json' },
            body,
          });
          await r.arrayBuffer();
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        }),
      );
      await sleep(2000);
      console.log(
        `- 1,000 forks of 350 changes each: ${JSON.stringify(statuses)} in ${Date.now() - e} ms; class worst ${cls.worstSince(e)} ms`,
      );
    }

    if (want('coach')) {
      // the coach of a team that sent every control every minute for 240 minutes.
      const before = await memory();
      const f = Date.now();
      const r = await fetch(`${url}/api/rounds/${prepared.spamRound}/coach`, { headers: auth(prepared.spamKey) });
      const report = await r.json();
      const ms = Date.now() - f;
      const after = await memory();
      await sleep(2000);
      const later = await memory();
      console.log(
        `- coach of 1,920 decisions: ${r.status} in ${ms} ms (${report.teams?.[0]?.tried ?? report.error?.code} plays, searched ${report.teams?.[0]?.searchedMs} ms); RSS ${fmt(before.rssMB)} → peak ${fmt(after.peakRssMB)} → ${fmt(later.rssMB)} MB; class worst ${cls.worstSince(f)} ms`,
      );
      // a whole class's coach (30 teams) asked by one teacher, then another teacher's one team.
      const g = Date.now();
      const whole = fetch(`${url}/api/rounds/${prepared.finishedRound}/coach`, { headers: auth(prepared.key) }).then(
        async (res) => ({ status: res.status, ms: Date.now() - g, body: await res.text() }),
      );
      await sleep(200);
      const h = Date.now();
      const other = await fetch(`${url}/api/rounds/${prepared.otherRound}/coach`, { headers: auth(prepared.otherKey) });
      const otherMs = Date.now() - h;
      const w = await whole;
      console.log(
        `- one teacher's 30 teams, then another teacher's one team 200 ms later: that team ${other.status} in ${otherMs} ms; the 30 teams ${w.status} in ${w.ms} ms`,
      );
    }

    if (want('acks')) {
      // 12 students of a room send a change at the same moment, 30 times — a room of its own address: the forks
      // before have spent this machine's room creations.
      const res = await fetch(`${url}/api/rooms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.12' },
        body: JSON.stringify({ teamCount: 3, minutes: 240, tempo: 1 }),
      });
      const room = await res.json();
      const t = await connect(url);
      await ask(t, 'teacher:join', { code: room.code, key: room.teacherKey });
      const students: { s: Socket; key: string }[] = [];
      for (let i = 0; i < 12; i++) {
        const s = await connect(url);
        await ask(s, 'student:join', { code: room.code, name: `S${i}` });
        students.push({ s, key: '' });
      }
      const start = await ask(t, 'teacher:clock', { action: 'start' });
      const roles: Record<string, [string, (i: number) => unknown]> = {
        scaling: ['servers', (i) => 6 + (i % 10)],
        shedding: ['shedding', (i) => i % 2 === 0],
        fraud: ['fraudThreshold', (i) => 2 + (i % 10) / 10],
        standin: ['standInLimit', (i) => 100 + i],
      };
      const view = start.room;
      const k = Date.now();
      const acks: number[] = [];
      for (let round = 0; round < 30; round++) {
        await Promise.all(
          students.map(async ({ s }, i) => {
            const me = view.players[i];
            const [key, value] = roles[me.roles[0]];
            const sent = Date.now();
            const r = await ask(s, 'student:control', { key, value: value(round) });
            if (r.ok) acks.push(Date.now() - sent);
          }),
        );
        await sleep(300);
      }
      await sleep(1500);
      console.log(
        `- 12 students sending at once, 30 times: ${acks.length} acknowledged, p50 ${quantile(acks, 0.5)} ms, p99 ${quantile(acks, 0.99)} ms; class worst ${cls.worstSince(k)} ms (round ${start.room.round.id})`,
      );
      for (const { s } of students) s.disconnect();
      t.disconnect();
    }
    cls.close();
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
