// `npm run bench [-- --only sim,autopilot,tick,turnover,fanout,limit,ack,retained,roomwork,cluster,failover,replay,load,bundle,startup,metrics,coach] [--quick] [--students N[,N…]] [--procs K]
// [--seconds S] [--warmup S] [--repeat N] [--pin] [--cpu-prof DIR] [--period MS] [--survivors]`:
// bounded benchmarks on loopback; each stops by itself. The full run takes about 13 minutes (the fan-out is two
// 5-minute runs). `--students` sets the limit probe's sizes (default 2000,4000,6000,8000), `--procs` the number
// of load-generator processes (default one per 5,000 students), `--seconds` the limit probe's measured window (20),
// `--warmup` its seconds of play before the window (10; 75 measures a long-running server, past a round's end),
// `--repeat` its number of alternated Opsroom / bare pairs at each size (with more than one, a summary line
// follows; 5 when `--students` names one size, since one pair's ratio moves by up to 0.8× on a shared host, else 1),
// `--pin` runs each server of the fan-out and the limit probe alone on the first CPU it may use, and their load
// generators on the others (taskset),
// `--cpu-prof` writes a CPU profile of each server over the measured window into DIR, `--period` the room-work
// bench's ms per simulated minute (1000; 0: as fast as the rooms go), `--survivors` has it count, after its
// measured minutes, what one more minute leaves alive for the next scavenge. `npm run soak` is separate.
import { mkdirSync } from 'node:fs';
import { receiverForRun } from './fanout/native.ts';
import { FANOUT_DEFAULTS, probeLimit, procsFor, reportFanout, reportLimit, withBaseline } from './fanout.ts';
import { benchAck, reportAck } from './ack.ts';
import { benchAutopilot, reportAutopilot } from './autopilot.ts';
import { benchBaseline, benchCoach, reportBaseline, reportCoach } from './coach.ts';
import { benchCluster, benchFailover, reportCluster, reportFailover } from './cluster.ts';
import { benchLoad, reportLoad } from './load.ts';
import { benchMetrics, reportMetrics } from './metrics.ts';
import { benchReplay, reportReplay } from './replay.ts';
import { benchRetained, reportRetained } from './retained.ts';
import { benchRoomWork, ROOMWORK_DEFAULTS, reportRoomWork } from './roomwork.ts';
import { benchSimulation, reportSimulation } from './sim.ts';
import { firstTouchCost, fmt, machine } from './stats.ts';
import { benchTick, reportTick } from './tick.ts';
import { benchTurnover, reportTurnover } from './turnover.ts';

const args = process.argv.slice(2);
/** `--name value` or `--name=value`. */
const option = (name: string): string | undefined => {
  const at = args.indexOf(`--${name}`);
  return args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? (at >= 0 ? args[at + 1] : undefined);
};
const positiveInts = (name: string, text: string, least = 1): number[] => {
  const xs = text.split(',').map((x) => Number(x.trim()));
  if (!xs.length || xs.some((x) => !Number.isInteger(x) || x < least)) {
    console.error(`--${name} ${text}: expected whole numbers from ${least} separated by commas`);
    process.exit(2);
  }
  return xs;
};
const onlyArg = option('only');
const only = onlyArg ? new Set(onlyArg.split(',')) : null;
const studentsArg = option('students');
// 0 students: the acknowledgement bench's quiet server.
const limitSizes = studentsArg ? positiveInts('students', studentsArg, 0) : [2000, 4000, 6000, 8000];
const procsArg = option('procs');
const procs = procsArg ? positiveInts('procs', procsArg)[0] : undefined;
const secondsArg = option('seconds');
const limitSeconds = secondsArg ? positiveInts('seconds', secondsArg)[0] : undefined;
const warmupArg = option('warmup');
const limitWarmup = warmupArg ? positiveInts('warmup', warmupArg)[0] : undefined;
const repeatArg = option('repeat');
// One size asked is a verdict on that size: five alternated pairs taken together, not one pair's reading. On the
// slower host one build's pairs read 0.98–1.84× within a run; three pairs left a run's pooled ratio ±0.09 from the
// build's.
const VERDICT_PAIRS = 5;
const limitRepeat = repeatArg ? positiveInts('repeat', repeatArg)[0] : limitSizes.length === 1 ? VERDICT_PAIRS : 1;
const cpuProfileDir = option('cpu-prof');
const periodArg = option('period');
const periodMs = periodArg === '0' ? 0 : periodArg ? positiveInts('period', periodArg)[0] : undefined;
if (cpuProfileDir) mkdirSync(cpuProfileDir, { recursive: true });
const quick = args.includes('--quick');
const pin = args.includes('--pin');
const want = (name: string) => !only || only.has(name);
/** Not in the default run: the limit probe takes a few minutes more. */
const asked = (name: string) => !!only?.has(name);

console.log(`Opsroom benchmarks — ${new Date().toISOString().slice(0, 10)} — ${machine()}${quick ? ' — quick' : ''}`);
if (want('sim')) {
  console.log('\n[1] simulation: one team-minute step');
  console.log(reportSimulation(benchSimulation()));
}
if (want('autopilot')) {
  console.log('\n[1b] autopilot: 1,000 seats played by their role policies');
  console.log(reportAutopilot(benchAutopilot()));
}
if (want('tick')) {
  console.log('\n[2] room tick: 30 teams stepped, stored and broadcast');
  console.log(reportTick(await benchTick()));
}
if (want('turnover')) {
  console.log("\n[2b] a round's end and the next round's start, next to an ordinary minute");
  console.log(reportTurnover(await benchTurnover()));
}
if (want('fanout')) {
  const base = {
    ...FANOUT_DEFAULTS,
    pin,
    procs: procs ?? procsFor(FANOUT_DEFAULTS.rooms * FANOUT_DEFAULTS.teams * FANOUT_DEFAULTS.perTeam, pin),
  };
  const opts = quick ? { ...base, seconds: 30, warmupSeconds: 10 } : base;
  console.log(
    `\n[3] fan-out: ${opts.rooms * opts.teams * opts.perTeam} students in ${opts.rooms} rooms of ${opts.teams} teams, 1 simulated minute per second, ${opts.seconds} s (load generator: ${opts.procs} process(es) of their own${pin ? ', on other CPUs than the server' : ''}; ${receiverForRun().how})`,
  );
  console.log(reportFanout(await withBaseline(opts, { cpuProfileDir })));
}
if (asked('limit')) {
  const pairs =
    limitRepeat > 1 ? `${limitRepeat} alternated pairs of Opsroom then bare socket.io` : 'Opsroom, then bare socket.io';
  console.log(
    `\n[3b] where the limit is: at each size ${pairs} with the same payloads, ${limitSeconds ?? 20} s each after ${limitWarmup ?? 10} s of play, load generators on the same machine${pin ? ' (each server alone on one CPU, the generators on the others)' : ''}`,
  );
  const touch = firstTouchCost();
  console.log(
    `this machine: the first touch of a fresh page costs ${fmt(touch.usPerFault, 1)} µs (${fmt(touch.faultsPerPage, 2)} faults a page); ${receiverForRun().how}`,
  );
  // One line per size as soon as it is measured.
  for (const n of limitSizes)
    console.log(
      reportLimit(
        await probeLimit([n], {
          procs,
          seconds: limitSeconds,
          warmupSeconds: limitWarmup,
          cpuProfileDir,
          repeat: limitRepeat,
          pin,
        }),
      ),
    );
}
if (asked('ack')) {
  const sizes = studentsArg ? limitSizes : [0, 2000];
  console.log(
    `\n[3g] a control change acknowledged: a class of 12 (each student a change every 3 s, all twelve at once every 10 s) on a quiet server and beside other students, ${limitSeconds ?? 60} s each after ${limitWarmup ?? 10} s`,
  );
  for (const n of sizes)
    console.log(
      reportAck(await benchAck({ students: n, seconds: limitSeconds ?? 60, warmupSeconds: limitWarmup ?? 10 })),
    );
}
if (asked('retained')) {
  console.log(
    '\n[3e] what a team-minute leaves alive: 24 rooms of 10 teams played in process, heap counted at minutes 10 and 30',
  );
  console.log(reportRetained(await benchRetained()));
}
if (asked('roomwork')) {
  console.log("\n[3f] the rooms' own work per team-minute, in process, with the server's Node flags (no sockets)");
  console.log(
    reportRoomWork(
      await benchRoomWork({
        ...ROOMWORK_DEFAULTS,
        periodMs: periodMs ?? ROOMWORK_DEFAULTS.periodMs,
        survivors: args.includes('--survivors'),
      }),
    ),
  );
}
if (asked('cluster')) {
  const sizes = studentsArg ? limitSizes : [2000, 4000];
  console.log(
    '\n[3c] cluster mode on this machine: one process on SQLite, one and two processes on PostgreSQL + Redis, 20 s each (services, servers and load generators on the same cores)',
  );
  for (const n of sizes) console.log(reportCluster(await benchCluster([n], { procs })));
}
if (asked('cluster') || asked('failover')) {
  console.log('\n[3d] failover: the owner of every room killed mid-run');
  console.log(reportFailover(await benchFailover()));
}
if (want('replay')) {
  console.log('\n[4] replay: opening a finished round of 10 teams');
  console.log(reportReplay(await benchReplay()));
}
if (want('load')) {
  console.log('\n[8] loading a room from the database: 30 teams × 240 minutes');
  console.log(reportLoad(await benchLoad()));
}
if (want('bundle')) {
  try {
    const { measureRoute, formatReport } = await import('./bundle.ts');
    console.log('\n[6] web: JavaScript of the student desk');
    console.log(formatReport(measureRoute(), 100));
  } catch (e) {
    console.log(`\n[6] web bundle: not measured (${(e as Error).message}); run npm run build first`);
  }
}
if (want('startup')) {
  try {
    const { benchStartup, reportStartup } = await import('./startup.ts');
    console.log(
      '\n[10] start-up: `npm start` until /api/health answers, five fresh databases then five times the same',
    );
    console.log(reportStartup(await benchStartup()));
  } catch (e) {
    console.log(`\n[10] start-up: not measured (${(e as Error).message})`);
  }
}
if (want('metrics')) {
  console.log('\n[7] metrics: recording and scraping');
  console.log(reportMetrics(await benchMetrics()));
}
if (want('coach')) {
  console.log(
    "\n[9] hindsight coach: one team's search after a round, every scenario with goals, seeds 1–3 (nothing, the documented play, 3 minutes late, a change every 4 minutes)",
  );
  console.log(reportCoach(benchCoach()));
  console.log(reportBaseline(benchBaseline()));
}
console.log('\n[5] soak: run `npm run soak` (500 students, 30 minutes)');
