// Payment switch: the documented play of each full shift (shared/sim/payment-switch/plays.ts), run through
// the sim CLI for seeds 1–20: it reacts to the desk, never to known minutes; it wins on ≥ 90 % of the
// seeds, and on ≥ 60 % with every reaction 3 minutes later; doing nothing loses on ≥ 95 %; the model page quotes it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../server/cli/sim-cli.ts';
import { shellLine } from '../../shared/design/play.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';
import { PLAYS } from '../../shared/sim/payment-switch/plays.ts';

const DOC = readFileSync(new URL('../../docs/models/payment-switch.md', import.meta.url), 'utf8');
const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);
const SHIFTS = paymentSwitch.scenarios.filter((s) => s.kind === 'full-shift').map((s) => s.id);
const LEVELS = paymentSwitch.scenarios.filter((s) => s.kind === 'classic').map((s) => s.id);

function won(scenario: string, seed: number, play: readonly string[]): boolean {
  const out = runCli(['--model', 'payment-switch', '--scenario', scenario, '--seed', String(seed), ...play]);
  expect(out.code, out.stderr).toBe(0);
  const lines = out.stdout.trim().split('\n');
  const r = JSON.parse(lines[lines.length - 1]).result as { goals: { met: boolean }[] };
  return r.goals.every((g) => g.met);
}

/** Every reaction (`--on TRIGGER`, `--each TRIGGER`) d minutes later. */
function later(play: readonly string[], d: number): string[] {
  return play.map((a, i) => {
    if (play[i - 1] !== '--on' && play[i - 1] !== '--each') return a;
    const m = /^(.*?)(?:\+(\d+))?$/.exec(a)!;
    return `${m[1]}+${Number(m[2] ?? 0) + d}`;
  });
}

it('there are at least two full shifts, each with a documented play', () => {
  expect(SHIFTS.length).toBeGreaterThanOrEqual(2);
  for (const s of SHIFTS) expect(PLAYS[s], s).toBeDefined();
});

describe.each(SHIFTS)('%s', (scenario) => {
  const play = PLAYS[scenario];
  it('reacts to what the desk shows: changes before the opening screen and rules, no change at a known minute', () => {
    for (let i = 0; i < play.length; i++) if (play[i] === '--set') expect(play[i + 1], play[i + 1]).not.toContain('@');
    expect(play.filter((a) => a === '--on' || a === '--each').length).toBeGreaterThanOrEqual(4);
  });
  it('the documented play wins on at least 90 % of seeds 1–20', () => {
    expect(SEEDS.filter((seed) => won(scenario, seed, play)).length).toBeGreaterThanOrEqual(18);
  });
  // docs/exercise-design.md's target for a documented play three minutes late.
  it('with every reaction 3 minutes later it still wins on at least 60 %', () => {
    expect(SEEDS.filter((seed) => won(scenario, seed, later(play, 3))).length).toBeGreaterThanOrEqual(12);
  });
  it('doing nothing loses on at least 95 %', () => {
    expect(SEEDS.filter((seed) => won(scenario, seed, [])).length).toBeLessThanOrEqual(1);
  });
  it('the model page quotes the play as a command line', () => {
    expect(DOC).toContain(
      `npm run sim -- --model payment-switch --scenario ${scenario} --seed 1 ${shellLine(play)} --format table`,
    );
  });
});

describe.each(LEVELS)("%s (the seed's level, its timed play kept)", (scenario) => {
  it('the documented play wins on at least 90 % of seeds 1–20; doing nothing on none', () => {
    expect(SEEDS.filter((seed) => won(scenario, seed, PLAYS[scenario])).length).toBeGreaterThanOrEqual(18);
    expect(SEEDS.filter((seed) => won(scenario, seed, [])).length).toBe(0);
  });
});
