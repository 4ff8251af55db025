// Bench 3: fan-out. Opsroom under a separate load-generator process, then a bare socket.io server
// broadcasting payloads of the same size at the same rate, for the ratios.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sampleProcess } from './procstat.ts';
import { startChild } from './spawn.ts';
import { fmt } from './stats.ts';

export interface FanoutOptions {
  rooms: number;
  teams: number;
  perTeam: number;
  seconds: number;
  warmupSeconds: number;
}
export const FANOUT_DEFAULTS: FanoutOptions = { rooms: 50, teams: 10, perTeam: 4, seconds: 300, warmupSeconds: 15 };

export async function runOne(mode: 'opsroom' | 'baseline', opts: FanoutOptions, bytes?: { team: number; teacher: number }) {
  const dir = mkdtempSync(join(tmpdir(), 'opsroom-bench-'));
  const server =
    mode === 'opsroom'
      ? startChild('./fanout/opsroom-server.ts', [], { DATABASE_PATH: join(dir, 'bench.db') })
      : startChild('./fanout/baseline-server.ts', [], {
          ROOMS: String(opts.rooms),
          TEAMS: String(opts.teams),
          TEAM_BYTES: String(Math.round(bytes!.team)),
          TEACHER_BYTES: String(Math.round(bytes!.teacher)),
        });
  try {
    const { port } = await server.next((m) => 'port' in m);
    const sampler = sampleProcess(server.proc.pid!);
    const gen = startChild('./fanout/loadgen.ts', [
      JSON.stringify({ url: `http://127.0.0.1:${port}`, mode, rooms: opts.rooms, teams: opts.teams, perTeam: opts.perTeam, warmupSeconds: opts.warmupSeconds, seconds: opts.seconds, changeProbability: mode === 'opsroom' ? 0.01 : 0 }),
    ]);
    await gen.next((m) => m.event === 'measuring');
    sampler.mark();
    const report = await gen.next((m) => m.event === 'report');
    const proc = sampler.stop();
    await gen.stop();
    return { ...report, server: proc };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchFanout(opts: FanoutOptions = FANOUT_DEFAULTS) {
  const opsroom = await runOne('opsroom', opts);
  const baseline = await runOne('baseline', opts, { team: opsroom.meanPayloadBytes, teacher: opsroom.meanTeacherPayloadBytes });
  return {
    opts,
    opsroom,
    baseline,
    ratios: {
      throughput: opsroom.deliveredPerSecond / baseline.deliveredPerSecond,
      p50: opsroom.latencyMs.p50 / baseline.latencyMs.p50,
      p99: opsroom.latencyMs.p99 / baseline.latencyMs.p99,
      cpu: opsroom.server.cpuPercent / baseline.server.cpuPercent,
    },
  };
}

export function reportFanout(r: Awaited<ReturnType<typeof benchFanout>>): string {
  const line = (name: string, x: typeof r.opsroom) =>
    `${name.padEnd(9)} ${x.students} students (${x.sockets} sockets), ${fmt(x.seconds, 0)} s measured: ${fmt(x.deliveredPerSecond, 0)} snapshots/s delivered, ` +
    `latency p50 ${x.latencyMs.p50} ms / p99 ${x.latencyMs.p99} ms / max ${x.latencyMs.max} ms (teachers p99 ${x.teacherLatencyMs.p99} ms), ` +
    `missed ${x.missed}, out of order ${x.outOfOrder}, payload ${fmt(x.meanPayloadBytes, 0)} B (teacher ${fmt(x.meanTeacherPayloadBytes, 0)} B), ` +
    `server CPU ${fmt(x.server.cpuPercent, 0)} %, RSS max ${fmt(x.server.rssMaxMB, 0)} MB` +
    (x.changesSent ? `, ${x.changesSent} control changes (${x.changeErrors} refused)` : '');
  return [
    line('opsroom', r.opsroom),
    line('baseline', r.baseline),
    `ratios (opsroom ÷ baseline): throughput ${fmt(r.ratios.throughput, 3)} (target ≥ 0.8), latency p50 ${fmt(r.ratios.p50, 2)}, p99 ${fmt(r.ratios.p99, 2)}, server CPU ${fmt(r.ratios.cpu, 2)}`,
  ].join('\n');
}

/** Where one process stops keeping up: Opsroom alone at growing numbers of students (rooms of 10 teams × 4). */
export async function probeLimit(students: number[], seconds = 20) {
  const out = [];
  for (const n of students) {
    const r = await runOne('opsroom', { rooms: Math.round(n / 40), teams: 10, perTeam: 4, seconds, warmupSeconds: 10 });
    out.push({ students: r.students, p50: r.latencyMs.p50, p99: r.latencyMs.p99, max: r.latencyMs.max, missed: r.missed, outOfOrder: r.outOfOrder, cpu: r.server.cpuPercent, rssMB: r.server.rssMaxMB, perSecond: r.deliveredPerSecond });
  }
  return out;
}

export function reportLimit(rows: Awaited<ReturnType<typeof probeLimit>>): string {
  return rows
    .map((r) => `${String(r.students).padStart(6)} students: ${fmt(r.perSecond, 0)} snapshots/s, p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms, missed ${r.missed}, out of order ${r.outOfOrder}, server CPU ${fmt(r.cpu, 0)} %, RSS ${fmt(r.rssMB, 0)} MB`)
    .join('\n');
}
