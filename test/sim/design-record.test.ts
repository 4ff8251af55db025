// The design report of record (docs/exercise-design.json, written by `npm run design-report -- --json`):
// every play it prints is a command line `npm run sim` takes, and its best fixed and best two-time plays,
// replayed through the sim CLI for every seed of the record, win exactly as often as the report says.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseArgs, runCli } from '../../server/cli/sim-cli.ts';

interface Figures {
  winRate: number;
  meanScore: number;
}
interface RecordReport {
  model: string;
  scenario: string;
  run: { fixed: Figures; twoTimes: Figures; adaptive: Figures; fixedBestScore: Figures };
  lines: Record<Printed, string[]>;
  shell: Record<Printed, string>;
}
type Printed = 'fixed' | 'fixedBestScore' | 'twoTimes' | 'adaptive';
const PRINTED: readonly Printed[] = ['fixed', 'fixedBestScore', 'twoTimes', 'adaptive'];

/** A printed shell line back into its arguments, as a POSIX shell splits it (the report quotes with '…'). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|(\S+)/g)) words.push(m[1] ?? m[2]);
  return words;
}
interface RecordFile {
  seeds: number;
  reports: RecordReport[];
}

const RECORD = JSON.parse(
  readFileSync(new URL('../../docs/exercise-design.json', import.meta.url), 'utf8'),
) as RecordFile;

/** The play's result on one seed, through the CLI exactly as a shell runs it. */
function cli(r: RecordReport, args: readonly string[], seed: number) {
  const out = runCli(['--model', r.model, '--scenario', r.scenario, '--seed', String(seed), ...args]);
  expect(out.code, out.stderr).toBe(0);
  const lines = out.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]).result as { goals: { met: boolean }[]; score: number };
}

describe.each(RECORD.reports.map((r) => [`${r.model} / ${r.scenario}`, r] as const))('%s', (_, r) => {
  it('every printed play is a shell line the sim CLI accepts', () => {
    for (const key of PRINTED) {
      expect(shellWords(r.shell[key])).toEqual(r.lines[key]);
      expect(() => parseArgs(['--model', r.model, '--scenario', r.scenario, ...r.lines[key]])).not.toThrow();
    }
  });

  it.each(['fixed', 'twoTimes'] as const)(
    'the best %s play wins through the CLI as often as the report says',
    (key) => {
      const seeds = Array.from({ length: RECORD.seeds }, (_, i) => i + 1);
      const results = seeds.map((seed) => cli(r, r.lines[key], seed));
      const wins = results.filter((x) => x.goals.every((g) => g.met)).length / seeds.length;
      const mean = results.reduce((s, x) => s + x.score, 0) / seeds.length;
      expect(wins).toBe(r.run[key].winRate);
      expect(mean).toBeCloseTo(r.run[key].meanScore, 6);
    },
  );
});
