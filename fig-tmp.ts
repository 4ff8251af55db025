import { runCli } from './server/cli/sim-cli.ts';
import { formatDisplay } from './shared/format.ts';
import { scenarioDef } from './shared/sim/engine.ts';
import { paymentSwitch } from './shared/sim/payment-switch/index.ts';
const plays: Record<string, string> = {
  'sale-surge': '--set servers=10@6 --set shedding=on@6 --set retryPolicy=backoff@6 --set servers=6@52',
  'fraud-wave': '--set fraudThreshold=2.7@6 --set stepUpBand=1.4@6',
  'issuer-outage': '--set issuerTimeoutS=1@6 --set standInLimit=60@6 --set servers=9@6 --set shedding=on@6 --set retryPolicy=backoff@6',
};
function table(scenario: string, sets: string) {
  const goals = scenarioDef(paymentSwitch, scenario).goals;
  const display = (k: string) => paymentSwitch.indicators.find((i) => i.key === k)!.display;
  const head = goals.map((g) => `${g.id}: ${g.aggregate === 'final' ? 'final' : `mean from ${g.from ?? 1}`} ${g.op} ${formatDisplay(display(g.indicator), g.target)}`);
  const rows = [1, 2, 3, 4, 5].map((seed) => {
    const argv = ['--model', 'payment-switch', '--scenario', scenario, '--seed', String(seed), ...(sets ? sets.split(' ') : []), '--format', 'jsonl'];
    const out = runCli(argv); const lines = out.stdout.trim().split('\n'); const r = JSON.parse(lines[lines.length - 1]).result;
    return `| ${seed} | ${r.goals.map((g: any, i: number) => `${formatDisplay(display(goals[i].indicator), g.value)} ${g.met ? '✓' : '✗'}`).join(' | ')} | ${r.score} |`;
  });
  return [`| seed | ${head.join(' | ')} | score |`, `|---|${goals.map(() => '---|').join('')}---|`, ...rows].join('\n');
}
for (const [s, p] of Object.entries(plays)) {
  console.log(`### ${s}\nnpm run sim -- --model payment-switch --scenario ${s} --seed 1 ${p} --format table\n<!-- figures:${s}:defaults -->\n${table(s, '')}\n<!-- /figures -->\n<!-- figures:${s}:play -->\n${table(s, p)}\n<!-- /figures -->\n`);
}
