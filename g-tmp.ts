import { paymentSwitch } from './shared/sim/payment-switch/index.ts';
import { runRound } from './shared/sim/engine.ts';
import { parseControlValue } from './shared/sim/controls.ts';
const [scenario, ...sets] = process.argv.slice(2);
const changes = sets.map((t) => { const m = /^(\w+)=([^@]*)(?:@(\d+))?$/.exec(t)!; return { key: m[1], value: parseControlValue(paymentSwitch, m[1], m[2]), minute: Number(m[3] ?? 0) }; });
for (const seed of [1,2,3,4,5]) {
  const r = runRound(paymentSwitch, { scenario, seed, noise: true, minutes: 60, changes });
  console.log(seed, r.result.goals.map(g => `${g.id}=${g.value.toPrecision(5)}${g.met?'✓':'✗'}`).join(' '), r.result.score);
}
