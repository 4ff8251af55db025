// `npx tsx test/bench/cluster-reliability.ts [--only pg,takeover,redis]`: the cluster mode's outages measured from
// outside (docs/scaling.md, "Outages"): two Opsroom processes on the real clock, a PostgreSQL (durable settings) and a
// Redis on loopback, real socket.io clients. A class of four teams plays at one minute per second, owned by A, its
// students on A and B; then
// - pg: PostgreSQL stopped for 8 s: what the pages are told, readiness and liveness on both processes, and how long
//   after PostgreSQL is back the next minute reaches a student;
// - takeover: A killed (SIGKILL) while 12 students send 8 changes each: the changes' acknowledgements, the next
//   minute after B takes the room, then 12 students sending at once on B;
// - redis: Redis killed for 40 s: both processes alive, what the pages are told, the log's lines, the next minutes.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { io as ioClient, type Socket } from 'socket.io-client';
import { startServices } from '../../server/cluster/services.ts';
import { fmt, machine } from './stats.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ask = (s: Socket, event: string, payload: unknown): Promise<any> => new Promise((r) => s.emit(event, payload, r));
const onlyArg = process.argv.find((_a, i) => process.argv[i - 1] === '--only');
const want = (name: string) => !onlyArg || onlyArg.split(',').includes(name);
const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

interface Proc {
  url: string;
  pid: number;
  logs: { level: number; msg: string }[];
  alive(): boolean;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** One Opsroom process in cluster mode on the real clock, its log lines (warn and above, and Redis's) kept. */
async function startProc(env: Record<string, string>): Promise<Proc> {
  const entry = fileURLToPath(new URL('./fanout/cluster-server.ts', import.meta.url));
  const proc = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, ...env, BENCH_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: { level: number; msg: string }[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: proc.stdout }).on('line', (l) => {
      try {
        const o = JSON.parse(l);
        if ('port' in o) resolve(o.port);
      } catch {
        // not ours
      }
    });
    createInterface({ input: proc.stderr }).on('line', (l) => {
      try {
        const o = JSON.parse(l);
        if (o.level >= 40 || /Redis/.test(o.msg)) logs.push({ level: o.level, msg: o.msg });
      } catch {
        logs.push({ level: 60, msg: l });
      }
    });
    proc.once('exit', (c) => reject(new Error(`exited ${c}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: proc.pid ?? 0,
    logs,
    alive: () => proc.exitCode === null && proc.signalCode === null,
    async kill(signal = 'SIGKILL') {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill(signal);
      await exited;
    },
  };
}

function connect(url: string): Promise<Socket> {
  const s = ioClient(url, { transports: ['websocket'], forceNew: true, reconnection: false });
  return new Promise((resolve, reject) => {
    s.once('connect', () => resolve(s));
    s.once('connect_error', reject);
  });
}

/** A class of `teams` teams × 4 owned by `owner`, its students on `on` (in turn), at one minute per second. */
async function startClass(owner: Proc, on: Proc[], teams = 4) {
  const res = await fetch(`${owner.url}/api/rooms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ teamCount: teams, minutes: 240, tempo: 1 }),
  });
  const { code, teacherKey } = await res.json();
  const teacher = await connect(owner.url);
  const teacherNotices: string[] = [];
  teacher.on('notice', (n: { code: string }) => teacherNotices.push(n.code));
  await ask(teacher, 'teacher:join', { code, key: teacherKey });
  const students: {
    s: Socket;
    playerId: number;
    notices: string[];
    arrivals: { at: number; minute: number; delay: number }[];
  }[] = [];
  for (let i = 0; i < teams * 4; i++) {
    const s = await connect(on[i % on.length].url);
    const notices: string[] = [];
    const arrivals: { at: number; minute: number; delay: number }[] = [];
    s.on('notice', (n: { code: string }) => notices.push(n.code));
    s.on('minute', (m: { sentAt: number; snapshot: { minute: number } }) =>
      arrivals.push({ at: Date.now(), minute: m.snapshot.minute, delay: Date.now() - m.sentAt }),
    );
    const j = await ask(s, 'student:join', { code, name: `S${i}` });
    students.push({ s, playerId: j.playerId, notices, arrivals });
  }
  const started = await ask(teacher, 'teacher:clock', { action: 'start' });
  const roleOf = (id: number) => started.room.players.find((p: { id: number }) => p.id === id).roles[0] as string;
  /** Worst lateness of a new minute (interval beyond the tempo, plus delivery) seen by the first student since `from`. */
  const worstSince = (from: number, until = Date.now()) => {
    const a = students[0].arrivals;
    let worst = 0;
    for (let i = 1; i < a.length; i++)
      if (a[i].at >= from && a[i].at <= until && a[i].minute > a[i - 1].minute)
        worst = Math.max(worst, a[i].at - a[i - 1].at - 1000 + a[i].delay);
    return worst;
  };
  return { code, teacherKey, teacher, teacherNotices, students, roleOf, worstSince };
}

const CHANGE: Record<string, (i: number) => [string, unknown]> = {
  scaling: (i) => ['servers', 6 + (i % 10)],
  shedding: (i) => ['shedding', i % 2 === 0],
  fraud: (i) => ['fraudThreshold', 2 + (i % 10) / 10],
  standin: (i) => ['standInLimit', 100 + i],
};

async function main() {
  console.log(`Opsroom cluster outages — ${new Date().toISOString().slice(0, 10)} — ${machine()}`);
  const services = await startServices({ durable: true });
  try {
    const fresh = async () => {
      const databaseUrl = await services.postgres.createDatabase();
      const env = { DATABASE_URL: databaseUrl, REDIS_URL: services.redis.url };
      const a = await startProc(env);
      const b = await startProc(env);
      return { a, b };
    };
    if (want('pg')) {
      const { a, b } = await fresh();
      const cls = await startClass(a, [a, b]);
      await sleep(5000);
      console.log(
        `\nload ${loadavg()
          .map((x) => fmt(x, 2))
          .join(' ')}; the class alone: worst minute ${cls.worstSince(0)} ms`,
      );
      const ready = async () =>
        Promise.all(
          [a, b].map(async (p) => [
            (await fetch(`${p.url}/api/ready`)).status,
            (await fetch(`${p.url}/api/health`)).status,
          ]),
        );
      const t0 = Date.now();
      await services.postgres.down();
      await sleep(6000);
      const during = await ready();
      const seenDuring = cls.students[0].arrivals.length;
      await sleep(2000);
      await services.postgres.up();
      const up = Date.now();
      while (cls.students[0].arrivals.length === seenDuring || cls.students[0].arrivals.at(-1)!.at < up)
        await sleep(20);
      const firstAfter = cls.students[0].arrivals.at(-1)!.at - up;
      await sleep(5000);
      const after = await ready();
      console.log(
        `- PostgreSQL down 8 s: the teacher was told ${JSON.stringify(count(cls.teacherNotices))}, each student ${JSON.stringify(count(cls.students[0].notices))} (student on B: ${JSON.stringify(count(cls.students[1].notices))}); ready/health during: A ${during[0].join('/')}, B ${during[1].join('/')}; after: A ${after[0].join('/')}, B ${after[1].join('/')}; first minute ${firstAfter} ms after PostgreSQL was back; worst minute since, ${cls.worstSince(up + firstAfter + 100)} ms; A's log: ${a.logs.length} lines at warn or above`,
      );
      void t0;
      await a.kill();
      await b.kill();
    }
    if (want('takeover')) {
      const { a, b } = await fresh();
      const cls = await startClass(a, [b], 3);
      await sleep(4000);
      await a.kill('SIGKILL');
      const killed = Date.now();
      // Each of the 12 students sends 8 changes while nobody owns the room: 96 wait on B.
      const acks: number[] = [];
      const sends = cls.students.flatMap(({ s, playerId }) =>
        Array.from({ length: 8 }, async (_, i) => {
          const [key, value] = CHANGE[cls.roleOf(playerId)](i);
          const sent = Date.now();
          const r = await ask(s, 'student:control', { key, value });
          if (r.ok) acks.push(Date.now() - sent);
          return r.ok ? Date.now() : null;
        }),
      );
      const answered = await Promise.all(sends);
      const takenAt = Math.min(...answered.filter((x): x is number => x !== null));
      const lastAck = Math.max(...answered.filter((x): x is number => x !== null));
      await sleep(4000);
      const arr = cls.students[0].arrivals.filter((x) => x.at >= killed);
      const intervals = arr
        .slice(1)
        .map((x, i) => (x.minute > arr[i].minute ? x.at - arr[i].at - 1000 : null))
        .filter((x): x is number => x !== null);
      console.log(
        `- takeover with ${answered.filter((x) => x !== null).length}/96 changes queued: the room back ${fmt((takenAt - killed) / 1000)} s after the kill; all 96 acknowledged within ${lastAck - takenAt} ms of the first; the minutes after the takeover late by ${intervals.map((x) => Math.max(0, x)).join(', ')} ms (tempo 1 s)`,
      );
      // 12 students sending at once on the new owner, 20 times.
      const at: number[] = [];
      for (let r = 0; r < 20; r++) {
        await Promise.all(
          cls.students.map(async ({ s, playerId }) => {
            const [key, value] = CHANGE[cls.roleOf(playerId)](r);
            const sent = Date.now();
            const res = await ask(s, 'student:control', { key, value });
            if (res.ok) at.push(Date.now() - sent);
          }),
        );
        await sleep(250);
      }
      console.log(
        `- then 12 students sending at once on B, 20 times: ${at.length} acknowledged, p50 ${quantile(at, 0.5)} ms, p99 ${quantile(at, 0.99)} ms; worst minute meanwhile ${cls.worstSince(Date.now() - 6000)} ms; queued acks p50 ${quantile(acks, 0.5)} ms (they waited for the takeover)`,
      );
      await b.kill();
    }
    if (want('redis')) {
      const { a, b } = await fresh();
      const cls = await startClass(a, [a, b]);
      await sleep(4000);
      await services.redis.down();
      const t0 = Date.now();
      const scaler = cls.students.find((s) => cls.roleOf(s.playerId) === 'scaling')!;
      const sent = Date.now();
      const refused = await ask(scaler.s, 'student:control', { key: 'servers', value: 9 });
      const refusedMs = Date.now() - sent;
      cls.students[2].s.disconnect();
      cls.students[3].s.disconnect();
      await sleep(40_000);
      const alive = [a.alive(), b.alive()];
      await services.redis.up();
      const up = Date.now();
      const seen = cls.students[0].arrivals.length;
      while (cls.students[0].arrivals.length <= seen + 1) await sleep(20);
      const firstAfter = cls.students[0].arrivals.at(-1)!.at - up;
      await sleep(5000);
      console.log(
        `- Redis down 40 s: processes alive ${alive.join('/')}; a change meanwhile answered ${refused.ok ? 'ok' : refused.error.code} in ${refusedMs} ms; the students told ${JSON.stringify(count(cls.students[0].notices))}; a new minute ${firstAfter} ms after Redis was back (tempo 1 s), worst minute since ${cls.worstSince(up + firstAfter + 100)} ms; log lines at warn or above: A ${a.logs.filter((l) => l.level >= 40).length}, B ${b.logs.filter((l) => l.level >= 40).length} (${[...new Set(a.logs.map((l) => l.msg))].join(' | ')})`,
      );
      void t0;
      await a.kill();
      await b.kill();
    }
  } finally {
    await services.stop();
  }
}

function count(xs: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
}

await main();
process.exit(0);
