// Bench: the cluster mode on this machine (`npm run bench -- --only cluster [--students N,…]`). At each size, the
// same load (rooms of 10 teams × 4, one simulated minute per second) against
// - one process on SQLite (the default deployment),
// - one process in cluster mode (PostgreSQL + Redis: what the shared services cost),
// - two processes in cluster mode, each room owned by the process it was created on and its students spread over
//   both (half of every class on the process that does not own it: forwarded joins and changes, minutes through
//   Redis),
// then a failover: two processes, every room on one, every student on the other; the owner is killed with SIGKILL
// mid-run and the students' longest wait for a minute is the time the rooms took to move.
// PostgreSQL (durable settings) and Redis run on the same two cores as the servers and the load generators.
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { startServices } from '../../server/cluster/services.ts';
import {
  generatorPids,
  loadgenFlags,
  loadgenNice,
  merge,
  runOne,
  procsFor,
  serverFlags,
  type FanoutOptions,
} from './fanout.ts';
import type { LoadgenConfig } from './fanout/loadgen.ts';
import { receiverForRun } from './fanout/native.ts';
import { cpuSeconds, sampleProcess, sumNamed } from './procstat.ts';
import { startChild, type Child } from './spawn.ts';
import { fmt } from './stats.ts';

type Services = Awaited<ReturnType<typeof startServices>>;

/** CPU seconds of a process and of each of its direct children (PostgreSQL's backends), by pid. */
function treeCpu(pid: number): Map<number, number> {
  const out = new Map([[pid, cpuSeconds(pid)]]);
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.set(Number(name), cpuSeconds(Number(name)));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

/** A process tree's CPU over a window: what each process present at the end used since the start (or since it began). */
function sampleTree(pid: number) {
  let t0 = Date.now();
  let c0 = treeCpu(pid);
  return {
    mark() {
      t0 = Date.now();
      c0 = treeCpu(pid);
    },
    stopPercent() {
      let used = 0;
      for (const [p, c] of treeCpu(pid)) used += c - (c0.get(p) ?? 0);
      return (100 * used) / ((Date.now() - t0) / 1000);
    },
  };
}

const pause = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

/** A window's figures, as the load generators report them (without the single-process server's probe). */
type Measured = ReturnType<typeof merge> & { loadAverage: number };

interface ClusterRun {
  result: Measured;
  processes: number;
  /** Each Opsroom process's CPU and RSS. */
  servers: { cpuPercent: number; rssMaxMB: number }[];
  postgresCpuPercent: number;
  redisCpuPercent: number;
  maxGapMs: number;
  repeated: number;
}

/** Opsroom processes in cluster mode on a fresh database, under load generators; `kill` kills one mid-window. */
async function runCluster(
  services: Services,
  processes: number,
  opts: FanoutOptions,
  layout: 'spread' | 'failover',
  killAfterSeconds?: number,
): Promise<ClusterRun> {
  const databaseUrl = await services.postgres.createDatabase();
  const env = { DATABASE_URL: databaseUrl, REDIS_URL: services.redis.url };
  const servers: Child[] = [];
  const gens: Child[] = [];
  try {
    // One after the other: the first migrates the database.
    for (let i = 0; i < processes; i++) servers.push(startChild('./fanout/cluster-server.ts', [], env, serverFlags()));
    const urls: string[] = [];
    for (const s of servers) urls.push(`http://127.0.0.1:${(await s.next((m) => 'port' in m)).port}`);
    const roomUrls = layout === 'spread' ? urls : [urls[0]];
    const studentUrls = layout === 'spread' ? urls : urls.slice(1);
    for (let part = 0; part < opts.procs; part++) {
      const cfg: LoadgenConfig = {
        ...{
          url: urls[0],
          mode: 'opsroom',
          rooms: opts.rooms,
          teams: opts.teams,
          perTeam: opts.perTeam,
          part,
          procs: opts.procs,
        },
        ...{
          changeProbability: opts.changeProbability ?? 0.01,
          roundMinutes: opts.roundMinutes,
          roomUrls,
          studentUrls,
          receiver: receiverForRun().path,
        },
      };
      gens.push(startChild('./fanout/loadgen.ts', [JSON.stringify(cfg)], {}, loadgenFlags(), { nice: loadgenNice() }));
    }
    const ready = await Promise.all(gens.map((g) => g.next((m) => m.event === 'ready')));
    for (const g of gens) g.send({ do: 'start' });
    await Promise.all(gens.map((g) => g.next((m) => m.event === 'started')));
    await pause(opts.warmupSeconds);
    const serverCpu = servers.map((s) => sampleProcess(s.proc.pid!));
    const genCpu = generatorPids(gens, ready).map((pid) => sampleProcess(pid));
    const pgCpu = sampleTree(services.postgres.pid);
    const redisCpu = sampleTree(services.redis.pid);
    for (const g of gens) g.send({ do: 'measure' });
    await Promise.all(gens.map((g) => g.next((m) => m.event === 'measuring')));
    for (const s of [...serverCpu, ...genCpu, pgCpu, redisCpu]) s.mark();
    if (killAfterSeconds !== undefined) {
      await pause(killAfterSeconds);
      servers[0].proc.kill('SIGKILL');
      await pause(opts.seconds - killAfterSeconds);
    } else await pause(opts.seconds);
    const alive = serverCpu.map((s, i) =>
      servers[i].proc.exitCode === null && servers[i].proc.signalCode === null ? s.stop() : null,
    );
    const genProcs = genCpu.map((s) => s.stop());
    const postgresCpuPercent = pgCpu.stopPercent();
    const redisCpuPercent = redisCpu.stopPercent();
    for (const g of gens) g.send({ do: 'report' });
    const reports = await Promise.all(gens.map((g) => g.next((m) => m.event === 'report')));
    const measured = alive.filter((s) => s !== null);
    const total = {
      cpuPercent: measured.reduce((a, s) => a + s.cpuPercent, 0),
      cpuSeconds: measured.reduce((a, s) => a + s.cpuSeconds, 0),
      wallSeconds: Math.max(...measured.map((s) => s.wallSeconds)),
      minorFaults: measured.reduce((a, s) => a + s.minorFaults, 0),
      threads: {
        mainUser: measured.reduce((a, s) => a + s.threads.mainUser, 0),
        mainSystem: measured.reduce((a, s) => a + s.threads.mainSystem, 0),
        others: measured.reduce((a, s) => a + s.threads.others, 0),
        named: sumNamed(measured.map((s) => s.threads.named)),
        namedSystem: sumNamed(measured.map((s) => s.threads.namedSystem)),
      },
      waited: {
        main: measured.reduce((a, s) => a + s.waited.main, 0),
        others: measured.reduce((a, s) => a + s.waited.others, 0),
      },
      rssMaxMB: Math.max(...measured.map((s) => s.rssMaxMB)),
      rssEndMB: 0,
      samples: [],
    };
    return {
      result: { ...merge('opsroom', opts, reports, total, genProcs), loadAverage: loadavg()[0] },
      processes,
      servers: measured.map((s) => ({ cpuPercent: s.cpuPercent, rssMaxMB: s.rssMaxMB })),
      postgresCpuPercent,
      redisCpuPercent,
      maxGapMs: Math.max(...reports.map((r) => r.maxGapMs ?? 0)),
      repeated: reports.reduce((a, r) => a + (r.repeated ?? 0), 0),
    };
  } finally {
    await Promise.all(gens.map((g) => g.stop()));
    await Promise.all(servers.map((s) => s.stop()));
  }
}

export interface ClusterBench {
  students: number;
  sqlite: Measured;
  one: ClusterRun;
  two: ClusterRun;
}

export async function benchCluster(
  sizes: number[],
  opts: { seconds?: number; procs?: number } = {},
): Promise<ClusterBench[]> {
  const services = await startServices({ durable: true, maxConnections: 200 });
  try {
    const out: ClusterBench[] = [];
    for (const students of sizes) {
      const rooms = Math.max(1, Math.round(students / 40));
      const fo: FanoutOptions = {
        rooms,
        teams: 10,
        perTeam: 4,
        seconds: opts.seconds ?? 20,
        warmupSeconds: 10,
        procs: opts.procs ?? procsFor(students),
      };
      const sqlite = await runOne('opsroom', fo);
      const one = await runCluster(services, 1, fo, 'spread');
      const two = await runCluster(services, 2, fo, 'spread');
      out.push({ students, sqlite, one, two });
    }
    return out;
  } finally {
    await services.stop();
  }
}

/** Every room on one process, every student on the other; the owner is SIGKILLed `killAfter` s into the window. */
export async function benchFailover(
  students = 400,
  opts: { seconds?: number; killAfter?: number } = {},
): Promise<ClusterRun> {
  const services = await startServices({ durable: true, maxConnections: 200 });
  try {
    const rooms = Math.max(1, Math.round(students / 40));
    const fo: FanoutOptions = {
      rooms,
      teams: 10,
      perTeam: 4,
      seconds: opts.seconds ?? 30,
      warmupSeconds: 10,
      procs: 1,
      changeProbability: 0.01,
    };
    return await runCluster(services, 2, fo, 'failover', opts.killAfter ?? 5);
  } finally {
    await services.stop();
  }
}

const latency = (r: Measured) =>
  `${fmt(r.deliveredPerSecond, 0)} snapshots/s (${fmt(100 * r.deliveredShare, 0)} % of due), p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms ` +
  `(since the tick started: p50 ${r.sinceTickMs.p50} ms, p99 ${r.sinceTickMs.p99} ms), ` +
  `missed ${r.missed}, out-of-order ${r.outOfOrder}${r.stalled ? `, STALLED ${r.stalled} students` : ''}`;

export function reportCluster(rows: ClusterBench[]): string {
  return rows
    .flatMap(({ students, sqlite, one, two }) => [
      `${String(students).padStart(6)} students, 1 process on SQLite: ${latency(sqlite)}, server CPU ${fmt(sqlite.server.cpuPercent, 0)} % (${fmt(sqlite.server.usPerMessage, 1)} µs/snapshot), RSS ${fmt(sqlite.server.rssMaxMB, 0)} MB, machine load ${fmt(sqlite.loadAverage, 1)}`,
      ...[one, two].map(
        (c) =>
          `${String(students).padStart(6)} students, ${c.processes} process${c.processes > 1 ? 'es' : ''} on PostgreSQL + Redis: ${latency(c.result)}, ` +
          `Opsroom CPU ${c.servers.map((s) => `${fmt(s.cpuPercent, 0)} %`).join(' + ')} (${fmt(c.result.server.usPerMessage, 1)} µs/snapshot), RSS ${c.servers.map((s) => `${fmt(s.rssMaxMB, 0)}`).join(' + ')} MB, ` +
          `PostgreSQL CPU ${fmt(c.postgresCpuPercent, 0)} %, Redis CPU ${fmt(c.redisCpuPercent, 0)} %, load generator CPU ${fmt(c.result.loadgen.cpuPercent, 0)} %, machine load ${fmt(c.result.loadAverage, 1)}`,
      ),
    ])
    .join('\n');
}

export function reportFailover(c: ClusterRun): string {
  const r = c.result;
  return (
    `${r.students} students in ${r.students / 40} rooms, every room on process A, every student on B; A killed (SIGKILL) during the window: ` +
    `longest wait for a minute ${fmt(c.maxGapMs / 1000, 1)} s (lease 10 s, scan every 3.3 s), ${latency(r)}, ` +
    `the last minute before the takeover received again by ${c.repeated} students, ` +
    `B's CPU ${c.servers.map((s) => `${fmt(s.cpuPercent, 0)} %`).join(' + ')}, machine load ${fmt(r.loadAverage, 1)}`
  );
}
