// `npm run bench [-- --only sim,tick,fanout,replay]`: bounded benchmarks on loopback; each stops by itself.
import { benchSimulation, reportSimulation } from './sim.ts';
import { machine } from './stats.ts';

const args = process.argv.slice(2);
const at = args.indexOf('--only');
const onlyArg = args.find((a) => a.startsWith('--only='))?.slice(7) ?? (at >= 0 ? args[at + 1] : undefined);
const only = onlyArg ? new Set(onlyArg.split(',')) : null;
const want = (name: string) => !only || only.has(name);

console.log(`Opsroom benchmarks — ${new Date().toISOString().slice(0, 10)} — ${machine()}`);
if (want('sim')) {
  console.log('\n[1] simulation: one team-minute step');
  console.log(reportSimulation(benchSimulation()));
}
