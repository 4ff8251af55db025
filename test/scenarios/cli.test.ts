// `npm run sim -- --scenario-file FILE` (in process) and `npm run design-report -- --scenario-file FILE` (as
// the command runs): a file is checked first, refused with its fields named, and played like a built-in.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { jsonLine, runCli } from '../../server/cli/sim-cli.ts';
import { runRound } from '../../shared/sim/engine.ts';
import { checkScenario } from '../../shared/scenarios/check.ts';
import { withScenario } from '../../shared/scenarios/model.ts';
import { getModel } from '../../shared/sim/registry.ts';

const EXAMPLE = new URL('../../docs/scenarios/late-sale.json', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'opsroom-scenario-'));
function fileWith(edit: (f: any) => void): string {
  const f = JSON.parse(readFileSync(EXAMPLE, 'utf8'));
  edit(f);
  const path = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(f));
  return path;
}

describe('npm run sim -- --scenario-file', () => {
  test('plays the file exactly as the engine plays its definition', () => {
    const out = runCli(['--scenario-file', EXAMPLE, '--seed', '5']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toBe('');
    const lines = out.stdout.trim().split('\n');
    const { def } = checkScenario(readFileSync(EXAMPLE, 'utf8'));
    const r = runRound(withScenario(getModel('payment-switch'), def), {
      scenario: 'late-sale',
      seed: 5,
      noise: true,
      minutes: 45,
    });
    expect(lines.slice(0, -1)).toEqual(r.snapshots.map(jsonLine));
    expect(JSON.parse(lines.at(-1) ?? '').result.goals.map((g: { id: string }) => g.id)).toEqual([
      'approval',
      'fraudRate',
      'cost',
    ]);
  });

  test('takes the other flags: a change at a minute, the table', () => {
    const out = runCli(['--scenario-file', EXAMPLE, '--set', 'servers=16@3', '--format', 'table', '--minutes', '10']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('goals (late-sale)');
  });

  test('says its warnings on stderr and still plays', () => {
    const out = runCli(['--scenario-file', fileWith((f) => (f.goals[2].from = 5)), '--minutes', '2']);
    expect(out.code).toBe(0);
    expect(out.stderr).toBe(
      'warning: goals[2].from: a window only matters to a mean: a final goal reads the last minute\n',
    );
  });

  test.each([
    [
      'an error of meaning',
      fileWith((f) => (f.controls.servers = 99)),
      'controls.servers: servers: 99 is out of range',
    ],
    ['an error of the schema', fileWith((f) => (f.goals[0].op = '>')), 'goals[0].op'],
    ['a file that is not there', join(dir, 'missing.json'), 'ENOENT'],
    ['markup in a brief', fileWith((f) => (f.briefs.en.brief = '<b>x</b>')), 'briefs.en.brief: is plain text'],
  ])('refuses %s, naming it, with exit code 2', (_, path, expected) => {
    const out = runCli(['--scenario-file', path]);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(`error: --scenario-file ${path}: `);
    expect(out.stderr).toContain(expected);
  });

  test('refuses --model or --scenario beside a file', () => {
    const out = runCli(['--scenario-file', EXAMPLE, '--scenario', 'sale-surge']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('leave out --model and --scenario');
  });
});

describe('npm run design-report -- --scenario-file', () => {
  const run = (args: string[]) =>
    spawnSync('npx', ['tsx', 'server/cli/design-report.ts', ...args], {
      cwd: new URL('../../', import.meta.url).pathname,
      encoding: 'utf8',
      timeout: 120_000,
    });

  test('reports the file like a built-in', () => {
    const r = run(['--scenario-file', EXAMPLE, '--budget', '20', '--seeds', '1', '--once', '--workers', '1']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('design report: 1 scenarios, seeds 1–1, budget 20');
    expect(r.stdout).toMatch(/payment-switch \/ late-sale \(full-shift, targets apply\)/);
    expect(r.stdout).toContain('| payment-switch / late-sale |');
  }, 120_000);

  test('refuses a bad file before any work, naming the field', () => {
    const r = run(['--scenario-file', fileWith((f) => (f.goals[0].indicator = 'mood'))]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('goals[0].indicator: payment-switch has no indicator "mood"');
    expect(r.stdout).toBe('');
  }, 60_000);
});
