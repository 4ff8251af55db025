// `npm run soak`: 500 students for 30 minutes against a server process; its live heap and RSS are
// sampled every minute, and the trend over the last 20 minutes says whether memory is flat.
import { runOne } from './fanout.ts';
import { fmt, machine } from './stats.ts';

/** Least-squares slope of y over x. */
export function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den ? num / den : 0;
}

export async function runSoak(
  opts = { minutes: 30, rooms: 25, teams: 5, perTeam: 4, roundMinutes: 20, sampleMs: 60_000 },
) {
  const samples: { minute: number; heapUsedMB: number; rssMB: number }[] = [];
  const report = await runOne(
    'opsroom',
    {
      rooms: opts.rooms,
      teams: opts.teams,
      perTeam: opts.perTeam,
      warmupSeconds: 5,
      seconds: opts.minutes * 60,
      procs: 1,
      changeProbability: 0.02,
      roundMinutes: opts.roundMinutes,
    },
    undefined,
    {
      serverEnv: { MEM_EVERY_MS: String(opts.sampleMs) },
      serverNodeArgs: ['--expose-gc'],
      onMeasuring(server) {
        const t0 = Date.now();
        void (async () => {
          for (;;) {
            const m = await server.next((x) => 'mem' in x);
            const minute = Math.round((m.mem.t - t0) / 60_000);
            samples.push({ minute, heapUsedMB: m.mem.heapUsedMB, rssMB: m.mem.rssMB });
            console.log(
              `  minute ${String(minute).padStart(2)}: heap ${fmt(m.mem.heapUsedMB)} MB, RSS ${fmt(m.mem.rssMB)} MB`,
            );
          }
        })().catch(() => undefined); // ends when the server does
      },
    },
  );
  const last = samples.filter((s) => s.minute > opts.minutes - 20);
  const heapSlope = slope(
    last.map((s) => s.minute),
    last.map((s) => s.heapUsedMB),
  );
  const rssSlope = slope(
    last.map((s) => s.minute),
    last.map((s) => s.rssMB),
  );
  return { opts, report, samples, heapSlopeMBPerMin: heapSlope, rssSlopeMBPerMin: rssSlope };
}

export function reportSoak(r: Awaited<ReturnType<typeof runSoak>>): string {
  const first = r.samples[0];
  const last = r.samples[r.samples.length - 1];
  return [
    `soak: ${r.report.students} students in ${r.opts.rooms} rooms, ${r.opts.roundMinutes}-minute rounds back to back at 1 s per minute, ${fmt(r.report.seconds / 60, 1)} min measured`,
    `  delivered ${r.report.delivered} snapshots, latency p50 ${r.report.latencyMs.p50} ms / p99 ${r.report.latencyMs.p99} ms, missed ${r.report.missed}, out-of-order ${r.report.outOfOrder}`,
    `  live heap ${fmt(first?.heapUsedMB ?? NaN)} → ${fmt(last?.heapUsedMB ?? NaN)} MB, RSS ${fmt(first?.rssMB ?? NaN)} → ${fmt(last?.rssMB ?? NaN)} MB`,
    `  trend over the last 20 minutes: heap ${fmt(r.heapSlopeMBPerMin, 3)} MB/min, RSS ${fmt(r.rssSlopeMBPerMin, 3)} MB/min (flat: |heap trend| < 0.5 MB/min)`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const minutes = Number(process.argv[process.argv.indexOf('--minutes') + 1]) || 30;
  console.log(`Opsroom soak — ${new Date().toISOString().slice(0, 10)} — ${machine()}`);
  const r = await runSoak({ minutes, rooms: 25, teams: 5, perTeam: 4, roundMinutes: 20, sampleMs: 60_000 });
  console.log(reportSoak(r));
  process.exitCode = Math.abs(r.heapSlopeMBPerMin) < 0.5 && r.report.missed === 0 ? 0 : 1;
}
