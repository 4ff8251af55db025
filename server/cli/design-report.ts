// `npm run design-report`: searches plays for every scenario (seeds 1–20, noise on) and prints the
// exercise-design figures of docs/exercise-design.md; `-- --json FILE` writes them. Scenarios are shared
// out to worker threads (one per core by default).
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { parseArgs as parseArgv } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { playArgs, shellLine, type Play } from '../../shared/design/play.ts';
import {
  scenarioReport,
  type PlayFigures,
  type ReportOptions,
  type ScenarioReport,
} from '../../shared/design/report.ts';
import { createRound, stepRound } from '../../shared/sim/engine.ts';
import { PLAYS as PS_PLAYS } from '../../shared/sim/payment-switch/plays.ts';
import { getModel, models } from '../../shared/sim/registry.ts';
import type { SimModel, SimulatorId } from '../../shared/sim/types.ts';
import * as wsPlays from '../../shared/sim/web-service/plays.ts';
import { parseArgs as parseSimArgs } from './sim-cli.ts';

export const USAGE = `usage: npm run design-report -- [--scenario ID]... [--model payment-switch|web-service] [--quick]
                              [--budget N] [--seeds N] [--workers N] [--json FILE]
  --scenario ID   only these scenarios (default: every scenario with goals of both simulators)
  --quick         a small search (budget 240, seeds 1–10) for iterating on a design
  --budget N      plays evaluated by the adaptive search (fixed and two-time searches: N/2; default 1200;
                  the payment switch's seed levels, reported without targets, get half)
  --seeds N       seeds 1..N (default 20)
  --workers N     worker threads (default: the machine's cores, at most 4)
  --json FILE     also write every figure as JSON`;

interface Task {
  model: SimulatorId;
  scenario: string;
  options: ReportOptions;
}

/** A scenario's documented play as CLI arguments, from the model's plays module. */
export function documentedArgs(model: SimulatorId, scenario: string): readonly string[] | undefined {
  if (model === 'payment-switch') return PS_PLAYS[scenario];
  const mod = wsPlays as Record<string, unknown>;
  const plays = mod.PLAYS as Record<string, readonly string[]> | undefined;
  if (plays) return plays[scenario];
  const sets = (mod.SENSIBLE_PLAYS as Record<string, readonly string[]> | undefined)?.[scenario];
  return sets?.flatMap((s) => ['--set', s]);
}

/** The documented play, parsed exactly as `npm run sim` parses it. */
export function documentedPlay(model: SimulatorId, scenario: string): Play | undefined {
  const args = documentedArgs(model, scenario);
  if (!args) return undefined;
  const o = parseSimArgs(['--model', model, '--scenario', scenario, ...args]);
  return { timed: o.changes, rules: o.rules };
}

/** Median time of one step over `rounds` rounds of each scenario with goals (µs); the benchmark of record is `npm run bench -- --only sim`. */
function stepMedianUs(model: SimModel, rounds: number): number {
  const times: number[] = [];
  const scenarios = model.scenarios.filter((s) => s.goals.length > 0);
  for (let r = 0; r < rounds; r++) {
    const def = scenarios[r % scenarios.length];
    let s = createRound(model, { scenario: def.id, seed: r + 1, noise: true });
    for (let m = 0; m < 60; m++) {
      const t0 = process.hrtime.bigint();
      s = stepRound(model, s);
      if (r >= 20) times.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

const pct = (x: number) => `${(100 * x).toFixed(0)} %`.padStart(5);
const pts = (x: number) => x.toFixed(1).padStart(7);

export function formatReport(r: ScenarioReport, seconds: number): string {
  const goals = (f: PlayFigures) => r.goals.map((g, i) => `${g} ${pct(f.goalRates[i]).trim()}`).join(', ');
  const line = (label: string, f: PlayFigures, extra = '') =>
    `  ${label.padEnd(22)} wins ${pct(f.winRate)}  score ${pts(f.meanScore)}  [${goals(f)}]${extra}`;
  const out = [
    `${r.model} / ${r.scenario} (${r.kind}${r.targeted ? ', targets apply' : ', no targets'}): ${r.plays} plays in ${seconds.toFixed(0)} s`,
    line('doing nothing', r.nothing),
    line('best fixed', r.fixed, `   ${shellLine(playArgs(r.fixed.play))}`),
    line('best adaptive', r.adaptive, `   ${shellLine(playArgs(r.adaptive.play))}`),
    line('best two-time', r.twoTimes),
    line('adaptive, 3 min late', r.late),
  ];
  if (r.documented) out.push(line('documented', r.documented), line('documented, 3 min late', r.documented.late));
  out.push(line('oracle (per seed)', r.oracle));
  out.push(
    `  roles: ${r.roles.map((x) => `${x.role} ${pct(x.worth).trim()}`).join(', ')}; decision times ${r.decisionTimes}; seed share (top quarter) ${pct(r.seedShare).trim()}`,
  );
  if (r.targeted)
    for (const c of r.checks)
      out.push(`  ${c.ok ? 'ok  ' : 'MISS'} ${c.id.padEnd(16)} ${c.value}  (target ${c.target})`);
  return out.join('\n');
}

/** The summary table of docs/exercise-design.md. */
export function summaryTable(reports: readonly ScenarioReport[]): string {
  const head =
    '| scenario | targets | nothing wins | fixed wins | fixed / adaptive score | adaptive wins | documented wins | documented +3 min | two-time wins | weakest role | decision times | seed share | oracle score |';
  const rows = reports.map((r) => {
    const weakest = [...r.roles].sort((a, b) => a.worth - b.worth)[0];
    const ratio = r.adaptive.meanScore > 0 ? pct(r.fixed.meanScore / r.adaptive.meanScore).trim() : '—';
    const doc = r.documented ? [pct(r.documented.winRate).trim(), pct(r.documented.late.winRate).trim()] : ['—', '—'];
    const ok = r.targeted
      ? r.checks.every((c) => c.ok)
        ? 'all met'
        : `missed: ${r.checks
            .filter((c) => !c.ok)
            .map((c) => c.id)
            .join(', ')}`
      : 'none';
    return `| ${r.model} / ${r.scenario} | ${ok} | ${pct(r.nothing.winRate).trim()} | ${pct(r.fixed.winRate).trim()} | ${ratio} | ${pct(r.adaptive.winRate).trim()} | ${doc[0]} | ${doc[1]} | ${pct(r.twoTimes.winRate).trim()} | ${weakest.role} ${pct(weakest.worth).trim()} | ${r.decisionTimes} | ${pct(r.seedShare).trim()} | ${r.oracle.meanScore.toFixed(0)} |`;
  });
  return [head, `|${'---|'.repeat(13)}`, ...rows].join('\n');
}

function runTask(t: Task): { report: ScenarioReport; seconds: number } {
  const t0 = process.hrtime.bigint();
  const report = scenarioReport(getModel(t.model), t.scenario, t.options);
  return { report, seconds: Number(process.hrtime.bigint() - t0) / 1e9 };
}

const OPTIONS = {
  scenario: { type: 'string', multiple: true },
  model: { type: 'string' },
  quick: { type: 'boolean' },
  budget: { type: 'string' },
  seeds: { type: 'string' },
  workers: { type: 'string' },
  json: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The command line's flags (node:util throws on an unknown or incomplete one). */
function flags() {
  return parseArgv({ options: OPTIONS, strict: true }).values;
}

async function main(): Promise<void> {
  let values: ReturnType<typeof flags>;
  try {
    values = flags();
  } catch (e) {
    console.error(`error: ${(e as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (values.help) return void console.log(USAGE);
  const int = (name: string, text: string | undefined, dflt: number, min: number, max: number): number => {
    if (text === undefined) return dflt;
    const n = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!(n >= min && n <= max))
      throw new Error(`--${name}: expected an integer in ${min}–${max}, got ${JSON.stringify(text)}`);
    return n;
  };
  let budget: number, nSeeds: number, workers: number;
  try {
    budget = int('budget', values.budget, values.quick ? 240 : 1200, 20, 100_000);
    nSeeds = int('seeds', values.seeds, values.quick ? 10 : 20, 1, 1000);
    workers = int('workers', values.workers, Math.min(4, availableParallelism()), 1, 64);
  } catch (e) {
    console.error(`error: ${(e as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const seeds = Array.from({ length: nSeeds }, (_, i) => i + 1);
  const tasks: Task[] = [];
  for (const model of Object.values(models)) {
    if (values.model && values.model !== model.id) continue;
    for (const s of model.scenarios) {
      if (s.goals.length === 0 || (values.scenario && !values.scenario.includes(s.id))) continue;
      // Scenarios reported without targets (the seed's payment levels) get half the search.
      const b = s.kind === 'classic' && model.id === 'payment-switch' ? Math.round(budget / 2) : budget;
      tasks.push({
        model: model.id,
        scenario: s.id,
        options: {
          seeds,
          budget: b,
          oracleBudget: Math.max(20, Math.round(b / 8)),
          documented: documentedPlay(model.id, s.id),
        },
      });
    }
  }
  if (tasks.length === 0) {
    console.error(
      `error: no scenario matches; scenarios are: ${Object.values(models)
        .flatMap((m) => m.scenarios.filter((s) => s.goals.length > 0).map((s) => s.id))
        .join(', ')}`,
    );
    process.exitCode = 2;
    return;
  }
  console.log(
    `design report: ${tasks.length} scenarios, seeds 1–${nSeeds}, budget ${budget}, ${Math.min(workers, tasks.length)} worker threads`,
  );
  const started = Date.now();
  const results = new Array<{ report: ScenarioReport; seconds: number }>(tasks.length);
  let next = 0;
  const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  await Promise.all(
    Array.from({ length: Math.min(workers, tasks.length) }, () => {
      const w = new Worker(boot, { eval: true, workerData: { worker: true } });
      return new Promise<void>((resolve, reject) => {
        const give = () => {
          if (next >= tasks.length) return void w.terminate().then(() => resolve());
          const i = next++;
          w.once('message', (r: { report: ScenarioReport; seconds: number }) => {
            results[i] = r;
            console.log(`\n${formatReport(r.report, r.seconds)}`);
            give();
          });
          w.postMessage(tasks[i]);
        };
        w.once('online', give);
        w.on('error', reject);
      });
    }),
  );
  const reports = results.map((r) => r.report);
  console.log(`\n${summaryTable(reports)}`);
  const stepUs = Object.fromEntries(Object.values(models).map((m) => [m.id, stepMedianUs(m, 120)]));
  console.log(
    `\none step, median: ${Object.entries(stepUs)
      .map(([k, v]) => `${k} ${v.toFixed(2)} µs`)
      .join(', ')} (must stay ≤ 20 µs; benchmark of record: npm run bench -- --only sim)`,
  );
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    `${((Date.now() - started) / 1000).toFixed(0)} s on ${availableParallelism()} × ${cpu}, Node ${process.version}`,
  );
  if (values.json) {
    const json = {
      date: new Date().toISOString(),
      machine: `${availableParallelism()} × ${cpu}`,
      node: process.version,
      seeds: nSeeds,
      budget,
      stepMedianUs: stepUs,
      reports,
    };
    writeFileSync(values.json, `${JSON.stringify(json, null, 1)}\n`);
    console.log(`written ${values.json}`);
  }
}

// Run as a command (not when a test imports the helpers above); in a worker, serve scenarios.
if (isMainThread && /design-report\.ts$/.test(process.argv[1] ?? '')) {
  void main();
} else if (parentPort && workerData?.worker) {
  // parentPort is set exactly in a worker thread.
  const port = parentPort;
  port.on('message', (t: Task) => port.postMessage(runTask(t)));
}
