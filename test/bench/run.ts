// `npm run bench [-- --only sim,tick,fanout,limit,replay,bundle,metrics] [--quick]`: bounded benchmarks on loopback;
// each stops by itself. The full run takes about 13 minutes (the fan-out is two 5-minute runs).
// `npm run soak` is separate (30 minutes).
import { benchFanout, FANOUT_DEFAULTS, probeLimit, reportFanout, reportLimit } from './fanout.ts';
import { benchMetrics, reportMetrics } from './metrics.ts';
import { benchReplay, reportReplay } from './replay.ts';
import { benchSimulation, reportSimulation } from './sim.ts';
import { machine } from './stats.ts';
import { benchTick, reportTick } from './tick.ts';

const args = process.argv.slice(2);
const at = args.indexOf('--only');
const onlyArg = args.find((a) => a.startsWith('--only='))?.slice(7) ?? (at >= 0 ? args[at + 1] : undefined);
const only = onlyArg ? new Set(onlyArg.split(',')) : null;
const quick = args.includes('--quick');
const want = (name: string) => !only || only.has(name);
/** Not in the default run: the limit probe takes a few minutes more. */
const asked = (name: string) => !!only?.has(name);

console.log(`Opsroom benchmarks — ${new Date().toISOString().slice(0, 10)} — ${machine()}${quick ? ' — quick' : ''}`);
if (want('sim')) {
  console.log('\n[1] simulation: one team-minute step');
  console.log(reportSimulation(benchSimulation()));
}
if (want('tick')) {
  console.log('\n[2] room tick: 30 teams stepped, stored and broadcast');
  console.log(reportTick(await benchTick()));
}
if (want('fanout')) {
  const opts = quick ? { ...FANOUT_DEFAULTS, seconds: 30, warmupSeconds: 10 } : FANOUT_DEFAULTS;
  console.log(`\n[3] fan-out: ${opts.rooms * opts.teams * opts.perTeam} students in ${opts.rooms} rooms of ${opts.teams} teams, 1 simulated minute per second, ${opts.seconds} s (load generator in its own process)`);
  console.log(reportFanout(await benchFanout(opts)));
}
if (asked('limit')) {
  console.log('\n[3b] where the limit is: Opsroom alone, 20 s at each size, load generator on the same machine');
  console.log(reportLimit(await probeLimit([2000, 4000, 6000, 8000])));
}
if (want('replay')) {
  console.log('\n[4] replay: opening a finished round of 10 teams');
  console.log(reportReplay(await benchReplay()));
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
if (want('metrics')) {
  console.log('\n[7] metrics: recording and scraping');
  console.log(reportMetrics(await benchMetrics()));
}
console.log('\n[5] soak: run `npm run soak` (500 students, 30 minutes)');
