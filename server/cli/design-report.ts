// `npm run design-report`: searches plays for every scenario (seeds 1–20, noise on) and prints the
// exercise-design figures of docs/exercise-design.md; `-- --json FILE` writes them. Scenarios are shared
// out to worker threads (one per core by default).
import { readFileSync, writeFileSync } from 'node:fs';
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
import type { ScenarioDef, SimModel, SimulatorId } from '../../shared/sim/types.ts';
import { withScenario } from '../../shared/scenarios/model.ts';
import * as wsPlays from '../../shared/sim/web-service/plays.ts';
import { parseArgs as parseSimArgs, scenarioFromFile, UsageError } from './sim-cli.ts';
import { formatControlValue } from '../../shared/sim/controls.ts';

export const USAGE = `usage: npm run design-report -- [--scenario ID]... [--model payment-switch|web-service] [--quick]
                              [--budget N] [--seeds N] [--once] [--workers N] [--json FILE]
                              [--scenario-file FILE]
  --scenario ID   only these scenarios (default: every scenario with goals of both simulators that new rooms offer)
  --scenario-file F  the report of a scenario file (docs/scenarios.md) instead, checked first
  --quick         a small search (budget 150, seeds 1–10) for iterating on a design
  --budget N      plays run by each search (fixed, two-time, adaptive; each role's set-once N/8); default 1000.
                  Every search runs at N and again at 2N (the figures of record); the payment switch's seed
                  levels, reported without targets, get half
  --once          run the searches once, at N (no convergence check)
  --seeds N       seeds 1..N (default 20)
  --workers N     worker threads (default: the machine's cores, at most 4)
  --json FILE     also write every figure as JSON
  --doc FILE      also write the summary table and each scenario's block into FILE, between its
                  <!-- design-report --> markers (docs/exercise-design.md)`;

interface Task {
  model: SimulatorId;
  scenario: string;
  /** A scenario file's definition (the worker plays it on the model). */
  def?: ScenarioDef;
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
/** A loss as a share of the best score; a negative loss is a gain. */
const loss = (x: number) => (x >= 0 ? `−${pct(x).trim()}` : `+${pct(-x).trim()}`);

/** A play as the shell line `npm run sim` takes after --model and --scenario. */
export const playLine = (p: Play): string => shellLine(playArgs(p));

export function formatReport(r: ScenarioReport, seconds: number): string {
  const run = r.run;
  const goals = (f: PlayFigures) => r.goals.map((g, i) => `${g} ${pct(f.goalRates[i]).trim()}`).join(', ');
  const line = (label: string, f: PlayFigures, extra = '') =>
    `  ${label.padEnd(24)} wins ${pct(f.winRate)}  score ${pts(f.meanScore)}  [${goals(f)}]${extra}`;
  const budgets = r.half ? `budget ${r.half.budget}, then ${run.budget}` : `budget ${run.budget}`;
  const out = [
    `${r.model} / ${r.scenario} (${r.kind}${r.targeted ? ', targets apply' : ', no targets'}): ${run.plays.total} plays at ${budgets}, seeds 1–${r.seeds}, ${seconds.toFixed(0)} s`,
    line('doing nothing', r.nothing),
    line('best fixed (most wins)', run.fixed, `   ${playLine(run.fixed.play)}`),
    line('best fixed (best score)', run.fixedBestScore, `   ${playLine(run.fixedBestScore.play)}`),
    line('best two-time', run.twoTimes, `   ${playLine(run.twoTimes.play)}`),
    line('best adaptive', run.adaptive, `   ${playLine(run.adaptive.play)}`),
    line('best adaptive, 3 min late', run.late),
  ];
  if (r.documented) out.push(line('documented', r.documented), line('documented, 3 min late', r.documented.late));
  out.push(
    `  teams (role policies): ${r.teams.map((t) => `${t.skill}@${t.delay} ${pct(t.winRate).trim()} · ${t.meanScore.toFixed(0)}`).join(', ')}`,
  );
  out.push(
    '  roles (dropped · set once, searched for wins · its smallest loss · decision windows, median/lowest seed/on the mean):',
  );
  for (const x of run.roles) {
    const setting = Object.entries(x.setOnce.setting)
      .map(([k, v]) => `${k}=${formatControlValue(v)}`)
      .join(' ');
    out.push(
      `    ${x.role.padEnd(9)} dropped ${loss(x.worth)} · set once ${setting || '(no setting)'}: ${loss(x.setOnce.loss)}, wins ${pct(x.setOnce.winRate).trim()} · smallest loss ${loss(x.setOnceMinLoss)} · windows ${x.windows.median}/${x.windows.min}/${x.windows.onMean} [${x.windows.perWindow.map((c) => (100 * c).toFixed(0)).join(' ')}]`,
    );
  }
  out.push(
    `  plays: fixed ${run.plays.fixed} (${run.restarts.fixed} restarts), two-time ${run.plays.twoTimes} (${run.restarts.twoTimes} restarts), adaptive ${run.plays.adaptive}, set-once ${run.plays.setOnce}; decision times ${run.decisionTimes}; seed share (top quarter) ${pct(run.seedShare).trim()}`,
  );
  const ex = run.buy.example;
  out.push(
    `  buy-check: ${run.buy.flagged} pairs flagged among ${run.buy.plays} plays${ex ? ` (seed ${ex.seed}: ${ex.more.ledger.toFixed(1)} lost scores ${ex.more.score}, ${ex.less.ledger.toFixed(1)} lost scores ${ex.less.score})` : ''}; ceiling: best play at the bound on ${pct(run.ceiling.atCeiling).trim()} of seeds; floor: ${r.floor.corners} corner postures, lowest ${r.floor.lowest.toFixed(0)}, ${r.floor.plateaus} ties ≥ 1.5× apart, ${r.floor.atFloor} at the bound`,
  );
  if (r.half)
    out.push(
      `  at budget ${r.half.budget}: fixed wins ${pct(r.half.fixed.winRate).trim()}, two-time wins ${pct(r.half.twoTimes.winRate).trim()}, adaptive ${r.half.adaptive.meanScore.toFixed(0)}; ${r.unsettled.length === 0 ? 'every verdict the same at twice the budget' : `verdicts that flip at twice the budget: ${r.unsettled.join(', ')}`}`,
    );
  if (r.targeted)
    for (const c of r.checks)
      out.push(`  ${c.ok ? 'ok  ' : 'MISS'} ${c.id.padEnd(16)} ${c.value}  (target ${c.target})`);
  return out.join('\n');
}

/** The summary table of docs/exercise-design.md. */
export function summaryTable(reports: readonly ScenarioReport[]): string {
  const head =
    '| scenario | targets | budget | nothing wins | fixed wins | fixed / adaptive score | two-time wins | adaptive wins | adaptive +3 min | documented · +3 min | set-once: smallest loss · most wins | decision windows (lowest role) | careful@1 · careful@3 · careless | buy pairs | settled |';
  const rows = reports.map((r) => {
    const run = r.run;
    const t = (skill: string, delay: number) =>
      r.teams.find((x) => x.skill === skill && x.delay === delay)?.winRate ?? 0;
    const fixedScore = Math.max(run.fixed.meanScore, run.fixedBestScore.meanScore);
    const ratio = run.adaptive.meanScore > 0 ? pct(fixedScore / run.adaptive.meanScore).trim() : '—';
    const doc = r.documented ? `${pct(r.documented.winRate).trim()} · ${pct(r.documented.late.winRate).trim()}` : '—';
    const minLoss = Math.min(...run.roles.map((x) => x.setOnceMinLoss));
    const maxWins = Math.max(...run.roles.map((x) => x.setOnce.winRate));
    const weakest = [...run.roles].sort((a, b) => a.windows.median - b.windows.median)[0];
    const ok = r.targeted
      ? r.checks.every((c) => c.ok)
        ? 'all met'
        : `missed: ${r.checks
            .filter((c) => !c.ok)
            .map((c) => c.id)
            .join(', ')}`
      : 'none';
    const budget = r.half ? `${r.half.budget} + ${run.budget}` : `${run.budget}`;
    return `| ${r.model} / ${r.scenario} | ${ok} | ${budget} | ${pct(r.nothing.winRate).trim()} | ${pct(run.fixed.winRate).trim()} | ${ratio} | ${pct(run.twoTimes.winRate).trim()} | ${pct(run.adaptive.winRate).trim()} | ${pct(run.late.winRate).trim()} | ${doc} | ${loss(minLoss)} · ${pct(maxWins).trim()} | ${weakest.role} ${weakest.windows.median} | ${pct(t('careful', 1)).trim()} · ${pct(t('careful', 3)).trim()} · ${pct(t('careless', 1)).trim()} | ${run.buy.flagged} | ${r.half ? (r.unsettled.length === 0 ? 'yes' : `no: ${r.unsettled.join(', ')}`) : '—'} |`;
  });
  return [head, `|${'---|'.repeat(15)}`, ...rows].join('\n');
}

/** Replaces what lies between the `<!-- design-report -->` and `<!-- /design-report -->` markers of a file. */
export function writeDoc(file: string, body: string): void {
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf('<!-- design-report -->');
  const end = text.indexOf('<!-- /design-report -->');
  if (start < 0 || end < start)
    throw new Error(`${file} has no <!-- design-report --> … <!-- /design-report --> markers`);
  writeFileSync(file, `${text.slice(0, start)}<!-- design-report -->\n${body}\n${text.slice(end)}`);
}

function runTask(t: Task): { report: ScenarioReport; seconds: number } {
  const t0 = process.hrtime.bigint();
  const model = t.def ? withScenario(getModel(t.model), t.def) : getModel(t.model);
  const report = scenarioReport(model, t.scenario, t.options);
  return { report, seconds: Number(process.hrtime.bigint() - t0) / 1e9 };
}

const OPTIONS = {
  scenario: { type: 'string', multiple: true },
  'scenario-file': { type: 'string' },
  model: { type: 'string' },
  quick: { type: 'boolean' },
  once: { type: 'boolean' },
  budget: { type: 'string' },
  seeds: { type: 'string' },
  workers: { type: 'string' },
  json: { type: 'string' },
  doc: { type: 'string' },
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
    budget = int('budget', values.budget, values.quick ? 150 : 1000, 20, 100_000);
    nSeeds = int('seeds', values.seeds, values.quick ? 10 : 20, 1, 1000);
    workers = int('workers', values.workers, Math.min(4, availableParallelism()), 1, 64);
  } catch (e) {
    console.error(`error: ${(e as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const seeds = Array.from({ length: nSeeds }, (_, i) => i + 1);
  const tasks: Task[] = [];
  const file = values['scenario-file'];
  if (file !== undefined) {
    try {
      const { model, def, warnings } = scenarioFromFile(file, values.model ? { model: values.model } : {});
      if (values.scenario) throw new UsageError('--scenario-file: leave out --scenario');
      for (const w of warnings) console.error(`warning: ${w}`);
      tasks.push({ model: model.id, scenario: def.id, def, options: { seeds, budget, convergence: !values.once } });
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      console.error(`error: ${e.message}`);
      process.exitCode = 2;
      return;
    }
  }
  for (const model of file !== undefined ? [] : Object.values(models)) {
    if (values.model && values.model !== model.id) continue;
    for (const s of model.scenarios) {
      if (s.goals.length === 0) continue;
      // Retired scenarios only when named: they are kept for their stored rounds, not offered.
      if (values.scenario ? !values.scenario.includes(s.id) : s.retired) continue;
      // Scenarios reported without targets (the seed's payment levels) get half the search.
      const b = s.kind === 'classic' && model.id === 'payment-switch' ? Math.round(budget / 2) : budget;
      tasks.push({
        model: model.id,
        scenario: s.id,
        options: {
          seeds,
          budget: b,
          convergence: !values.once,
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
      seconds: Math.round((Date.now() - started) / 1000),
      seeds: nSeeds,
      budget,
      convergence: !values.once,
      stepMedianUs: stepUs,
      // Each printed play also as the arguments `npm run sim` takes after --model and --scenario, and as the
      // shell line the report prints.
      reports: reports.map((r) => {
        const printed = {
          fixed: r.run.fixed.play,
          fixedBestScore: r.run.fixedBestScore.play,
          twoTimes: r.run.twoTimes.play,
          adaptive: r.run.adaptive.play,
        };
        const each = <T>(f: (p: Play) => T) =>
          Object.fromEntries(Object.entries(printed).map(([k, p]) => [k, f(p)])) as Record<keyof typeof printed, T>;
        return { ...r, lines: each(playArgs), shell: each(playLine) };
      }),
    };
    writeFileSync(values.json, `${JSON.stringify(json, null, 1)}\n`);
    console.log(`written ${values.json}`);
  }
  if (values.doc) {
    const seconds = (Date.now() - started) / 1000;
    const header = `\`npm run design-report\` on ${availableParallelism()} × ${cpu}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}: seeds 1–${nSeeds}, budget ${budget}${values.once ? '' : ` and again at ${2 * budget} (the figures below are from the run at ${2 * budget})`}, ${Math.min(workers, tasks.length)} worker threads, ${seconds.toFixed(0)} s.`;
    writeDoc(
      values.doc,
      [
        header,
        '',
        summaryTable(reports),
        '',
        ...results.flatMap((r) => ['```', formatReport(r.report, r.seconds), '```', '']),
      ].join('\n'),
    );
    console.log(`written ${values.doc}`);
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
