// `npm run sim`: plays one round headless and prints it as JSON lines or a table.
// Kept apart from main() so tests run it in-process.
import { ControlError, formatControlValue, parseControlValue } from '../../shared/sim/controls.ts';
import { runRound, ScenarioError, scenarioDef } from '../../shared/sim/engine.ts';
import { getModel, isSimulatorId, simulatorIds } from '../../shared/sim/registry.ts';
import type { RoundResult, ScheduledChange, SimModel, Snapshot } from '../../shared/sim/types.ts';
import { formatClock, formatDisplay } from '../../shared/format.ts';

export const USAGE = `usage: npm run sim -- --model payment-switch|web-service --scenario ID [--seed N] [--minutes M]
                    [--noise on|off] [--set key=value[@minute]]... [--format jsonl|table]
  --set key=value       applies from minute 0 (before the opening screen); key=value@m from minute m
                        booleans as on/off, the retry policy as immediate/backoff, buttons as press
  --seed N              integer 0–4294967295 (default 1)
  --minutes M           round length, 0–1440 (default 60; 0 prints only the opening screen)
  --noise on|off        random arrivals and draws (default on); off replaces each draw by its mean
  --format jsonl|table  default jsonl`;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface CliOptions {
  model: SimModel;
  scenario: string;
  seed: number;
  minutes: number;
  noise: boolean;
  changes: ScheduledChange[];
  format: 'jsonl' | 'table';
}

function intFlag(name: string, text: string | undefined, min: number, max: number): number {
  const n = text !== undefined && /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`--${name}: expected an integer in ${min}–${max}, got ${JSON.stringify(text ?? '')}`);
  return n;
}

export function parseArgs(argv: readonly string[]): CliOptions {
  const flags = new Map<string, string>();
  const sets: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const m = /^--([a-z]+)(?:=(.*))?$/.exec(arg);
    if (!m) throw new UsageError(`unexpected argument ${JSON.stringify(arg)}`);
    const name = m[1];
    if (!['model', 'scenario', 'seed', 'minutes', 'noise', 'set', 'format'].includes(name)) throw new UsageError(`unknown flag --${name}`);
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    if (name === 'set') sets.push(value);
    else if (flags.has(name)) throw new UsageError(`--${name} given twice`);
    else flags.set(name, value);
  }
  const modelId = flags.get('model');
  if (!isSimulatorId(modelId)) throw new UsageError(`--model: expected one of ${simulatorIds.join(', ')}, got ${JSON.stringify(modelId ?? '')}`);
  const model = getModel(modelId);
  const scenario = flags.get('scenario');
  if (scenario === undefined) throw new UsageError(`--scenario is required: one of ${model.scenarios.map((s) => s.id).join(', ')}`);
  try {
    scenarioDef(model, scenario);
  } catch (e) {
    if (e instanceof ScenarioError) throw new UsageError(`--scenario: ${e.message}`);
    throw e;
  }
  const seed = flags.has('seed') ? intFlag('seed', flags.get('seed'), 0, 0xffffffff) : 1;
  const minutes = flags.has('minutes') ? intFlag('minutes', flags.get('minutes'), 0, 1440) : model.defaultMinutes;
  const noiseText = flags.get('noise') ?? 'on';
  if (noiseText !== 'on' && noiseText !== 'off') throw new UsageError(`--noise: expected on or off, got ${JSON.stringify(noiseText)}`);
  const format = flags.get('format') ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'table') throw new UsageError(`--format: expected jsonl or table, got ${JSON.stringify(format)}`);

  const changes: ScheduledChange[] = [];
  for (const text of sets) {
    const sm = /^([A-Za-z][A-Za-z0-9]*)=([^@]*)(?:@(.*))?$/.exec(text);
    if (!sm) throw new UsageError(`--set ${JSON.stringify(text)}: expected key=value or key=value@minute`);
    const [, key, valueText, minuteText] = sm;
    let value;
    try {
      value = parseControlValue(model, key, valueText);
    } catch (e) {
      if (e instanceof ControlError) throw new UsageError(`--set ${text}: ${e.message}`);
      throw e;
    }
    const minute = minuteText === undefined ? 0 : intFlag(`set ${key} @minute`, minuteText, 0, minutes);
    changes.push({ minute, key, value });
  }
  changes.sort((a, b) => a.minute - b.minute); // stable: same-minute changes keep their order
  return { model, scenario, seed, minutes, noise: noiseText === 'on', changes, format };
}

export function jsonLine(s: Snapshot): string {
  const line: Record<string, unknown> = { minute: s.minute };
  if (s.clock !== undefined) line.clock = formatClock(s.clock);
  line.indicators = s.indicators;
  line.controls = s.controls;
  line.events = s.events;
  return JSON.stringify(line);
}

export function resultLine(r: RoundResult): string {
  return JSON.stringify({ result: { goals: r.goals.map((g) => ({ id: g.id, value: g.value, target: g.target, met: g.met })), score: r.score } });
}

const STATUS_MARK = { normal: 'ok', warning: 'WARN', critical: 'CRIT' } as const;

export function table(model: SimModel, scenario: string, snapshots: readonly Snapshot[], result: RoundResult): string {
  const headline = model.indicators.filter((i) => i.headline);
  const extra = model.tableColumns.map((k) => model.indicators.find((i) => i.key === k)!);
  const cols = [...headline, ...extra];
  const hasClock = snapshots[0]?.clock !== undefined;
  const header = ['min', ...(hasClock ? ['clock'] : []), ...cols.map((c) => c.key)];
  const rows = snapshots.map((s) => [
    String(s.minute),
    ...(hasClock ? [formatClock(s.clock!)] : []),
    ...cols.map((c) => {
      const text = formatDisplay(c.display, s.indicators[c.key]);
      const st = s.status[c.key];
      return st ? `${text} ${STATUS_MARK[st]}` : text;
    }),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r: string[]) => r.map((cell, i) => cell.padStart(widths[i])).join('  ');
  const lines = [fmt(header), ...rows.map(fmt)];
  const changes = snapshots.flatMap((s) => s.events.filter((e) => e.kind === 'control').map((e) => `  minute ${s.minute}: ${e.key} = ${formatControlValue(e.value)}`));
  if (changes.length) lines.push('', 'control changes:', ...changes);
  const def = scenarioDef(model, scenario);
  if (def.goals.length === 0) {
    lines.push('', 'free play: no goals');
  } else {
    lines.push('', `goals (${scenario}):`);
    for (const g of result.goals) {
      const ind = model.indicators.find((i) => i.key === g.indicator)!;
      const goal = def.goals.find((x) => x.id === g.id)!;
      const how = goal.aggregate === 'final' ? 'at the end' : `mean from minute ${goal.from ?? 1}`;
      lines.push(`  ${g.met ? 'MET   ' : 'FAILED'} ${g.id}: ${g.indicator} ${how} = ${formatDisplay(ind.display, g.value)} (target ${g.op} ${formatDisplay(ind.display, g.target)})`);
    }
    lines.push(`  score ${result.score}`);
  }
  return lines.join('\n');
}

/** Runs the CLI; returns what to print and the exit code. */
export function runCli(argv: readonly string[]): { stdout: string; stderr: string; code: number } {
  if (argv.includes('--help') || argv.includes('-h')) return { stdout: USAGE + '\n', stderr: '', code: 0 };
  let opts: CliOptions;
  try {
    opts = parseArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) return { stdout: '', stderr: `error: ${e.message}\n${USAGE}\n`, code: 2 };
    throw e;
  }
  const { snapshots, result } = runRound(opts.model, opts);
  if (opts.format === 'table') return { stdout: table(opts.model, opts.scenario, snapshots, result) + '\n', stderr: '', code: 0 };
  return { stdout: [...snapshots.map(jsonLine), resultLine(result)].join('\n') + '\n', stderr: '', code: 0 };
}

