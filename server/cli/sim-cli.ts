// `npm run sim`: plays one round headless and prints it as JSON lines or a table.
// Kept apart from main() so tests run it in-process.
import { readFileSync, statSync } from 'node:fs';
import { parseArgs as parseArgv } from 'node:util';
import { acceptScenario, type Checked } from '../../shared/scenarios/check.ts';
import { LIMITS } from '../../shared/scenarios/format.ts';
import { ScenarioFileError } from '../../shared/scenarios/load.ts';
import { withScenario } from '../../shared/scenarios/model.ts';
import { ControlError, ControlErrorCode, formatControlValue } from '../../shared/sim/controls.ts';
import { baselineRun, indicatorDef, ScenarioError, scenarioDef } from '../../shared/sim/engine.ts';
import { getModel, isSimulatorId, simulatorIds } from '../../shared/sim/registry.ts';
import {
  evaluateRound,
  ledgerTotals,
  saving,
  scoreRuleOf,
  WORST_STRETCH,
  type Baseline,
} from '../../shared/sim/score.ts';
import type { RoundResult, ScenarioDef, ScheduledChange, SimModel, Snapshot } from '../../shared/sim/types.ts';
import {
  formatTrigger,
  parseChange,
  parseTrigger,
  PlayError,
  runPlay,
  type Play,
  type Rule,
} from '../../shared/design/play.ts';
import { formatClock, formatDisplay } from '../../shared/format.ts';

export const USAGE = `usage: npm run sim -- --model payment-switch|web-service --scenario ID [--seed N] [--minutes M]
                    [--noise on|off] [--set key=value[@minute]]... [--on TRIGGER key=value...]...
                    [--each TRIGGER key=value...]... [--format jsonl|table]
       npm run sim -- --scenario-file FILE [the same options but --model and --scenario]
  --scenario-file F     plays a scenario file (docs/scenarios.md), checked first: an error refuses it, its
                        warnings go to stderr
  --set key=value       applies from minute 0 (before the opening screen); key=value@m from minute m
                        booleans as on/off, the retry policy as immediate/backoff, buttons as press
  --on TRIGGER k=v...   reacts to what the desk shows: when TRIGGER first shows in minute m, the
                        changes apply from minute m+1 (TRIGGER+d: d minutes later). TRIGGER is an
                        event (surge-start, issuer-slow…), an event with one of its figures above or
                        below a value ('sale-announced.size>3'), or an indicator crossing a value, quoted:
                        'newTps<500', 'groupBLatencyMs>1000' (first minute it holds after it did not)
  --each TRIGGER k=v... as --on, but every time TRIGGER shows (each minute an event is in, each crossing)
  --seed N              integer 0–4294967295 (default 1)
  --minutes M           round length, 0–1440 (default: the scenario's, 60; 0 prints only the opening screen)
  --noise on|off        random arrivals and draws (default on); off replaces each draw by its mean
  --format jsonl|table  default jsonl`;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface CliOptions {
  model: SimModel;
  /** The scenario file's findings of meaning (warnings only: an error refuses the file). */
  warnings: string[];
  scenario: string;
  seed: number;
  minutes: number;
  noise: boolean;
  changes: ScheduledChange[];
  rules: Rule[];
  format: 'jsonl' | 'table';
}

function intFlag(name: string, text: string | undefined, min: number, max: number): number {
  const n = text !== undefined && /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(`--${name}: expected an integer in ${min}–${max}, got ${JSON.stringify(text ?? '')}`);
  return n;
}

const OPTIONS = {
  model: { type: 'string' },
  scenario: { type: 'string' },
  'scenario-file': { type: 'string' },
  seed: { type: 'string' },
  minutes: { type: 'string' },
  noise: { type: 'string' },
  format: { type: 'string' },
  set: { type: 'string', multiple: true },
  on: { type: 'string', multiple: true },
  each: { type: 'string', multiple: true },
} as const;

/** node:util's parse, with its errors said as this CLI says them. */
function tokenize(argv: readonly string[]) {
  try {
    return parseArgv({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: true, tokens: true });
  } catch (e) {
    const msg = (e as Error).message;
    const unknown = /Unknown option '([^']+)'/.exec(msg);
    if (unknown) throw new UsageError(`unknown flag ${unknown[1]}`);
    const missing = /Option '(--[a-z]+)[^']*' argument missing/.exec(msg);
    if (missing) throw new UsageError(`${missing[1]} needs a value`);
    throw new UsageError(msg);
  }
}

/** A scenario file for `--scenario-file`: checked (an error is a usage error), and the model that plays it. */
export function scenarioFromFile(
  path: string,
  values: { model?: string; scenario?: string } = {},
): { model: SimModel; def: ScenarioDef; warnings: string[] } {
  if (values.model !== undefined || values.scenario !== undefined)
    throw new UsageError(
      '--scenario-file: the file names its simulator and scenario (leave out --model and --scenario)',
    );
  let checked: Checked;
  try {
    if (statSync(path).size > LIMITS.bytes)
      throw new ScenarioFileError([{ path: '', message: `the file is over ${LIMITS.bytes} bytes` }]);
    checked = acceptScenario(readFileSync(path, 'utf8'));
  } catch (e) {
    if (e instanceof ScenarioFileError) throw new UsageError(`--scenario-file ${path}: ${e.message}`);
    if ((e as NodeJS.ErrnoException).code) throw new UsageError(`--scenario-file ${path}: ${(e as Error).message}`);
    throw e;
  }
  const warnings = checked.findings.map((f) => (f.path ? `${f.path}: ${f.message}` : f.message));
  return { model: withScenario(getModel(checked.file.simulator), checked.def), def: checked.def, warnings };
}

export function parseArgs(argv: readonly string[]): CliOptions {
  const { values, tokens } = tokenize(argv);
  const seen = new Set<string>();
  for (const t of tokens) {
    if (t.kind !== 'option' || t.name === 'set' || t.name === 'on' || t.name === 'each') continue;
    if (seen.has(t.name)) throw new UsageError(`--${t.name} given twice`);
    seen.add(t.name);
  }
  const fromFile = values['scenario-file'] !== undefined ? scenarioFromFile(values['scenario-file'], values) : null;
  const modelId = fromFile?.model.id ?? values.model;
  if (!isSimulatorId(modelId))
    throw new UsageError(`--model: expected one of ${simulatorIds.join(', ')}, got ${JSON.stringify(modelId ?? '')}`);
  const model = fromFile?.model ?? getModel(modelId);
  const scenario = fromFile?.def.id ?? values.scenario;
  if (scenario === undefined)
    throw new UsageError(`--scenario is required: one of ${model.scenarios.map((s) => s.id).join(', ')}`);
  let def: ScenarioDef;
  try {
    def = scenarioDef(model, scenario);
  } catch (e) {
    if (e instanceof ScenarioError) throw new UsageError(`--scenario: ${e.message}`);
    throw e;
  }
  const seed = values.seed !== undefined ? intFlag('seed', values.seed, 0, 0xffffffff) : 1;
  const minutes =
    values.minutes !== undefined ? intFlag('minutes', values.minutes, 0, 1440) : (def.minutes ?? model.defaultMinutes);
  const noiseText = values.noise ?? 'on';
  if (noiseText !== 'on' && noiseText !== 'off')
    throw new UsageError(`--noise: expected on or off, got ${JSON.stringify(noiseText)}`);
  const format = values.format ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'table')
    throw new UsageError(`--format: expected jsonl or table, got ${JSON.stringify(format)}`);

  const changes: ScheduledChange[] = [];
  for (const text of values.set ?? []) {
    if (!/^[A-Za-z][A-Za-z0-9]*=/.test(text))
      throw new UsageError(`--set ${JSON.stringify(text)}: expected key=value or key=value@minute`);
    // key=value@minute: the minute follows the first @.
    const at = text.indexOf('@');
    const body = at < 0 ? text : text.slice(0, at);
    const change = asUsage(`--set ${text}`, () => parseChange(model, body));
    const minute = at < 0 ? 0 : intFlag(`set ${change.key} @minute`, text.slice(at + 1), 0, minutes);
    changes.push({ minute, ...change });
  }
  changes.sort((a, b) => a.minute - b.minute); // stable: same-minute changes keep their order

  // Each --on (--each) takes the key=value arguments that follow it.
  const rules: Rule[] = [];
  const flagOf = (r: Rule) => (r.each ? '--each' : '--on');
  for (const t of tokens) {
    if (t.kind === 'option' && (t.name === 'on' || t.name === 'each')) {
      const text = t.value;
      // node:util rejects a string option without its value before this, so this only guards the type.
      if (text === undefined) throw new UsageError(`--${t.name} needs a value`);
      const { on, delay } = asUsage(`--${t.name} ${text}`, () => parseTrigger(model, text));
      rules.push(t.name === 'each' ? { on, delay, changes: [], each: true } : { on, delay, changes: [] });
    } else if (t.kind === 'positional') {
      const rule = rules[rules.length - 1];
      const last = tokens[tokens.indexOf(t) - 1];
      if (!rule || !last || (last.kind === 'option' && last.name !== 'on' && last.name !== 'each'))
        throw new UsageError(`unexpected argument ${JSON.stringify(t.value)}`);
      rule.changes.push(
        asUsage(`${flagOf(rule)} ${formatTrigger(rule.on, rule.delay)} ${t.value}`, () => parseChange(model, t.value)),
      );
    } else if (t.kind === 'option-terminator') {
      throw new UsageError('unexpected argument "--"');
    }
  }
  for (const r of rules)
    if (r.changes.length === 0)
      throw new UsageError(`${flagOf(r)} ${formatTrigger(r.on, r.delay)}: give at least one key=value after it`);
  const warnings = fromFile?.warnings ?? [];
  return { model, warnings, scenario, seed, minutes, noise: noiseText === 'on', changes, rules, format };
}

function asUsage<T>(what: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof PlayError) throw new UsageError(`${what}: ${e.message}`);
    throw e;
  }
}

export function jsonLine(s: Snapshot): string {
  const line: Record<string, unknown> = { minute: s.minute };
  if (s.clock !== undefined) line.clock = formatClock(s.clock);
  line.indicators = s.indicators;
  line.controls = s.controls;
  line.events = s.events;
  if (s.na) line.na = s.na;
  return JSON.stringify(line);
}

/** The ledger at the last minute against doing nothing's (the score's reference). */
export interface LedgerSummary {
  total: number;
  /** Doing nothing's and the calm hour's totals at the same minute. */
  nothing: number;
  calm: number;
  saving: number;
}

export function resultLine(r: RoundResult, ledger: LedgerSummary): string {
  const goals = r.goals.map((g) => ({ id: g.id, value: g.value, target: g.target, met: g.met }));
  return JSON.stringify({ result: { goals, score: r.score, ledger } });
}

const STATUS_MARK = { normal: 'ok', warning: 'WARN', critical: 'CRIT' } as const;

export function table(
  model: SimModel,
  scenario: string,
  snapshots: readonly Snapshot[],
  result: RoundResult,
  ledger: LedgerSummary,
): string {
  const headline = model.indicators.filter((i) => i.headline);
  const extra = model.tableColumns.map((k) => indicatorDef(model, k));
  const cols = [...headline, ...extra];
  const hasClock = snapshots[0]?.clock !== undefined;
  const header = ['min', ...(hasClock ? ['clock'] : []), ...cols.map((c) => c.key)];
  const rows = snapshots.map((s) => [
    String(s.minute),
    ...(hasClock ? [s.clock === undefined ? '—' : formatClock(s.clock)] : []),
    ...cols.map((c) => {
      const text = s.na?.includes(c.key) ? '—' : formatDisplay(c.display, s.indicators[c.key]);
      const st = s.status[c.key];
      return st ? `${text} ${STATUS_MARK[st]}` : text;
    }),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r: string[]) => r.map((cell, i) => cell.padStart(widths[i])).join('  ');
  const lines = [fmt(header), ...rows.map(fmt)];
  const changes = snapshots.flatMap((s) =>
    s.events
      .filter((e) => e.kind === 'control')
      .map((e) => `  minute ${s.minute}: ${e.key} = ${formatControlValue(e.value)}`),
  );
  if (changes.length) lines.push('', 'control changes:', ...changes);
  const last = snapshots[snapshots.length - 1];
  const money = (key: string) => formatDisplay(indicatorDef(model, key).display, last.indicators[key]);
  lines.push('', `ledger (${model.ledger.currency}): ${model.ledger.items.map((k) => `${k} ${money(k)}`).join(', ')}`);
  const totalDisplay = indicatorDef(model, model.ledger.total).display;
  const other = (x: number) => formatDisplay(totalDisplay, x);
  lines.push(
    `  ${model.ledger.total} ${money(model.ledger.total)}; doing nothing ${other(ledger.nothing)}; a calm hour ${other(ledger.calm)}; saving s = ${ledger.saving.toFixed(3)}`,
  );
  const def = scenarioDef(model, scenario);
  if (def.goals.length === 0) {
    lines.push('', 'free play: no goals');
  } else {
    lines.push('', `goals (${scenario}):`);
    for (const g of result.goals) {
      const ind = indicatorDef(model, g.indicator);
      const goal = def.goals.find((x) => x.id === g.id);
      if (!goal) throw new Error(`${scenario} has no goal ${g.id}, though the round's result has one`);
      const how =
        goal.aggregate === 'final'
          ? 'at the end'
          : goal.aggregate === 'worst'
            ? `worst ${goal.stretch ?? WORST_STRETCH} minutes running from minute ${goal.from ?? 1}`
            : `mean from minute ${goal.from ?? 1}`;
      lines.push(
        `  ${g.met ? 'MET   ' : 'FAILED'} ${g.id}: ${g.indicator} ${how} = ${formatDisplay(ind.display, g.value)} (target ${g.op} ${formatDisplay(ind.display, g.target)})`,
      );
    }
    lines.push(`  score ${result.score}`);
  }
  return lines.join('\n');
}

/** Runs the CLI; returns what to print and the exit code. */
export function runCli(argv: readonly string[]): { stdout: string; stderr: string; code: number } {
  if (argv.includes('--help') || argv.includes('-h')) return { stdout: `${USAGE}\n`, stderr: '', code: 0 };
  let opts: CliOptions;
  try {
    opts = parseArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) return { stdout: '', stderr: `error: ${e.message}\n${USAGE}\n`, code: 2 };
    throw e;
  }
  const play: Play = { timed: opts.changes, rules: opts.rules };
  const stderr = opts.warnings.map((w) => `warning: ${w}\n`).join('');
  let snapshots: Snapshot[];
  try {
    snapshots = runPlay(opts.model, opts, play).snapshots;
  } catch (e) {
    // The scenario's story took a control away when the play changes it: refused, as the server refuses it.
    if (e instanceof ControlError && e.code === ControlErrorCode.UNAVAILABLE)
      return { stdout: '', stderr: `error: ${e.message}\n`, code: 2 };
    throw e;
  }
  const baseline: Baseline = baselineRun(opts.model, opts.scenario, opts.seed, opts.minutes, opts.noise);
  const def = scenarioDef(opts.model, opts.scenario);
  const result = evaluateRound(def, snapshots, baseline);
  const totals = ledgerTotals(snapshots, baseline);
  const ledger = {
    total: totals.ledger,
    nothing: totals.nothing,
    calm: totals.calm,
    saving: saving(totals.ledger, totals.nothing, totals.calm, scoreRuleOf(def)),
  };
  if (opts.format === 'table')
    return { stdout: `${table(opts.model, opts.scenario, snapshots, result, ledger)}\n`, stderr, code: 0 };
  return { stdout: `${[...snapshots.map(jsonLine), resultLine(result, ledger)].join('\n')}\n`, stderr, code: 0 };
}
