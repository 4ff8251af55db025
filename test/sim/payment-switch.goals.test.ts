// Payment switch: every crisis is losable (the defaults fail a goal) and winnable (the play documented
// in docs/models/payment-switch.md meets every goal), seeds 1–5 with noise on. The command lines and
// the figure tables are read from the model page itself, so page and behaviour cannot drift apart;
// the full shifts' plays are checked over seeds 1–20 in payment-switch.plays.test.ts.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../server/cli/sim-cli.ts';
import { formatDisplay } from '../../shared/format.ts';
import { scenarioDef } from '../../shared/sim/engine.ts';
import { WORST_STRETCH } from '../../shared/sim/score.ts';
import type { GoalDef } from '../../shared/sim/types.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';

const ROOT = new URL('../../', import.meta.url);
const DOC = readFileSync(new URL('docs/models/payment-switch.md', ROOT), 'utf8');
const SEEDS = [1, 2, 3, 4, 5];
const CRISES = ['sale-surge', 'fraud-wave', 'issuer-outage'];
const SHIFTS = ['black-friday', 'sale-day', 'issuer-trouble'];

interface CliResult {
  goals: { id: string; value: number; target: number; met: boolean }[];
  score: number | null;
}

/** The documented play of a scenario: the argv of its `npm run sim --` command line. */
function documentedPlay(scenario: string): string[] {
  const m = new RegExp(`<!-- play:${scenario} -->\\s*\`\`\`sh\\n(npm run sim -- [^\\n]+)\\n\`\`\``).exec(DOC);
  if (!m) throw new Error(`docs/models/payment-switch.md has no play for ${scenario}`);
  // Shell words: a quoted word ('newTps<450') loses its quotes.
  return [
    ...m[1]
      .replace('npm run sim -- ', '')
      .trim()
      .matchAll(/'([^']*)'|(\S+)/g),
  ].map((w) => w[1] ?? w[2]);
}

/** The same command line without its --set flags: the defaults. */
function withoutSets(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--set') i++;
    else out.push(argv[i]);
  }
  return out;
}

/** argv with the seed replaced and JSON lines as output. */
function forSeed(argv: readonly string[], seed: number): string[] {
  const out = [...argv];
  out[out.indexOf('--seed') + 1] = String(seed);
  out[out.indexOf('--format') + 1] = 'jsonl';
  return out;
}

function result(argv: readonly string[]): { stdout: string; result: CliResult } {
  const out = runCli(argv);
  expect(out.code, out.stderr).toBe(0);
  const lines = out.stdout.trim().split('\n');
  return { stdout: out.stdout, result: JSON.parse(lines[lines.length - 1]).result as CliResult };
}

/** How a goal's value is taken, as the page's table heads say it. */
function aggregateWords(g: GoalDef): string {
  if (g.aggregate === 'final') return 'final';
  if (g.aggregate === 'worst') return `worst ${g.stretch ?? WORST_STRETCH} minutes`;
  return `mean from ${g.from ?? 1}`;
}

/** The figure table the page shows for a command line, seeds 1–5, in the indicators' own displays. */
function figuresTable(scenario: string, argv: readonly string[]): string {
  const goals = scenarioDef(paymentSwitch, scenario).goals;
  const display = (indicator: string) => paymentSwitch.indicators.find((i) => i.key === indicator)!.display;
  const head = goals.map(
    (g) => `${g.id}: ${aggregateWords(g)} ${g.op} ${formatDisplay(display(g.indicator), g.target)}`,
  );
  const rows = SEEDS.map((seed) => {
    const r = result(forSeed(argv, seed)).result;
    const cells = r.goals.map((g, i) => `${formatDisplay(display(goals[i].indicator), g.value)} ${g.met ? '✓' : '✗'}`);
    return `| ${seed} | ${cells.join(' | ')} | ${r.score} |`;
  });
  return [`| seed | ${head.join(' | ')} | score |`, `|---|${goals.map(() => '---|').join('')}---|`, ...rows].join('\n');
}

function documentedTable(scenario: string, variant: 'defaults' | 'play'): string {
  const m = new RegExp(`<!-- figures:${scenario}:${variant} -->\\n([\\s\\S]*?)\\n<!-- /figures -->`).exec(DOC);
  if (!m) throw new Error(`docs/models/payment-switch.md has no ${variant} figures for ${scenario}`);
  return m[1].trim();
}

describe.each(CRISES)('%s', (scenario) => {
  const play = documentedPlay(scenario);

  it('the documented command line is for this scenario, seed 1, table output, and only sets controls from minute 1 on', () => {
    expect(play.slice(0, 4)).toEqual(['--model', 'payment-switch', '--scenario', scenario]);
    expect(play[play.indexOf('--seed') + 1]).toBe('1');
    expect(play[play.indexOf('--format') + 1]).toBe('table');
    const sets = play.filter((_, i) => play[i - 1] === '--set');
    expect(sets.length).toBeGreaterThan(0);
    for (const s of sets) expect(s).toMatch(/^[A-Za-z]+=[^@]+@[1-9]\d*$/);
  });

  it('the defaults fail at least one goal for seeds 1–5', () => {
    for (const seed of SEEDS) {
      const r = result(forSeed(withoutSets(play), seed)).result;
      expect(
        r.goals.some((g) => !g.met),
        `seed ${seed}`,
      ).toBe(true);
    }
  });

  it('the documented play meets every goal for seeds 1–5', () => {
    for (const seed of SEEDS) {
      const r = result(forSeed(play, seed)).result;
      for (const g of r.goals) expect(g.met, `seed ${seed}, goal ${g.id} = ${g.value}`).toBe(true);
    }
  });

  it('the figure tables on the model page are what the model gives', () => {
    expect(documentedTable(scenario, 'defaults')).toBe(figuresTable(scenario, withoutSets(play)));
    expect(documentedTable(scenario, 'play')).toBe(figuresTable(scenario, play));
  });
});

describe.each(SHIFTS)('%s (full shift)', (scenario) => {
  const play = documentedPlay(scenario);
  it('the documented command line is for this scenario, seed 1, table output', () => {
    expect(play.slice(0, 4)).toEqual(['--model', 'payment-switch', '--scenario', scenario]);
    expect(play[play.indexOf('--seed') + 1]).toBe('1');
    expect(play[play.indexOf('--format') + 1]).toBe('table');
  });
  it('the figure tables on the model page are what the model gives', () => {
    const defaults = play.slice(0, play.indexOf('--seed') + 2).concat(['--format', 'table']);
    expect(documentedTable(scenario, 'defaults')).toBe(figuresTable(scenario, defaults));
    expect(documentedTable(scenario, 'play')).toBe(figuresTable(scenario, play));
  });
});

describe('the real command', () => {
  it('`npx tsx server/cli/sim.ts` plays the documented issuer-outage play exactly as in process', async () => {
    const argv = forSeed(documentedPlay('issuer-outage'), 3);
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'server/cli/sim.ts', ...argv], {
      cwd: ROOT,
      timeout: 60_000,
    });
    expect(stdout).toBe(runCli(argv).stdout);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(62); // minutes 0–60 and the result
    const r = JSON.parse(lines[61]).result as CliResult;
    expect(r.goals.map((g) => g.met)).toEqual([true, true, true, true]);
  });
});
