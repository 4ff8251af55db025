// Web service: the seed's opening screen, the calibration duty (defaults lose, the documented play
// wins, seeds 1–5), the real command, and the CLI's errors for web-service keys.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../server/cli/sim-cli.ts';
import { formatClock, formatDisplay } from '../../shared/format.ts';
import { createRound } from '../../shared/sim/engine.ts';
import { webService } from '../../shared/sim/web-service/index.ts';
import { playCommand, SENSIBLE_PLAYS } from '../../shared/sim/web-service/plays.ts';

const ROOT = new URL('../../', import.meta.url);
const SEEDS = [1, 2, 3, 4, 5];
const CRISES = ['bad-deploy', 'traffic-surge', 'cache-flush'];

interface CliResult {
  goals: { id: string; value: number; target: number; met: boolean }[];
  score: number | null;
}

function cli(scenario: string, seed: number, sets: readonly string[]) {
  const argv = ['--model', 'web-service', '--scenario', scenario, '--seed', String(seed), ...sets.flatMap((s) => ['--set', s])];
  const out = runCli(argv);
  expect(out.code, out.stderr).toBe(0);
  const lines = out.stdout.trim().split('\n');
  return { lines, result: JSON.parse(lines[lines.length - 1]).result as CliResult };
}

describe('web service: calibration (free play, 08:00, defaults, noise off, minute 0)', () => {
  const seedScreen: Record<string, string> = {
    burnRate1h: '0.0 ×',
    requestsPerSec: '1,125 req/s',
    instancesServing: '10',
    instancesBooting: '0',
    cacheHitRatio: '77 %',
    dbLoad: '19 %',
    throttledShare: '0 %',
    fleetCostPerHour: '4.00 $/h',
    costSoFar: '0.00 $',
    cachedAnswerAgeS: '30 s',
    badBuildShare: '0 %',
    recommendationsAvailable: '100 %',
  };
  const state = createRound(webService, { scenario: 'free', seed: 1, noise: false });
  const snap = state.snapshot;

  it.each(Object.entries(seedScreen))('%s shows %s', (key, shown) => {
    const def = webService.indicators.find((i) => i.key === key);
    expect(def, key).toBeDefined();
    expect(formatDisplay(def!.display, snap.indicators[key], 'en')).toBe(shown);
  });

  it('opens at 08:00 with every headline indicator normal and the budget untouched', () => {
    expect(snap.minute).toBe(0);
    expect(formatClock(snap.clock!)).toBe('08:00');
    expect(Object.values(snap.status)).toEqual(['normal', 'normal', 'normal', 'normal']);
    expect(Object.keys(snap.status).sort()).toEqual(['dbLoad', 'errorRate', 'p99Ms', 'utilization']);
    expect(snap.indicators.errorBudgetRemaining).toBe(1);
    expect(snap.indicators.errorRate).toBeLessThan(1e-9);
  });

  it('the scenarios open at their clocks, budgets and cache (cache-flush: TTL 90 s ⇒ hit ≈ 85 %)', () => {
    const open = (scenario: string) => createRound(webService, { scenario, seed: 1, noise: false }).snapshot;
    expect(formatClock(open('bad-deploy').clock!)).toBe('09:00');
    expect(open('bad-deploy').indicators.errorBudgetRemaining).toBe(0.2);
    expect(formatClock(open('traffic-surge').clock!)).toBe('08:30');
    const flush = open('cache-flush');
    expect(formatClock(flush.clock!)).toBe('12:00');
    expect(flush.controls.cacheTtlS).toBe(90);
    expect(formatDisplay({ scale: 100, digits: 0, unit: '%' }, flush.indicators.cacheHitRatio)).toBe('85 %');
  });

  it('actions stay out of snapshot.controls; their progress is in detail', () => {
    expect(Object.keys(snap.controls).sort()).toEqual(['autoscaling', 'cacheTtlS', 'heavyFeature', 'minInstances', 'shedLowPriority', 'targetUtilization']);
    expect(snap.detail.warmUpMinutesLeft).toBe(0);
    expect(snap.detail.rollbackMinutesLeft).toBe(0);
  });
});

describe('web service: calibration duty (noise on, seeds 1–5)', () => {
  it.each(CRISES)('%s: the defaults fail at least one goal', (scenario) => {
    for (const seed of SEEDS) {
      const { result } = cli(scenario, seed, []);
      expect(result.goals.length).toBe(3);
      expect(result.goals.some((g) => !g.met), `${scenario} seed ${seed}: ${JSON.stringify(result.goals)}`).toBe(true);
    }
  });

  it.each(CRISES)('%s: the documented play meets every goal', (scenario) => {
    for (const seed of SEEDS) {
      const { result } = cli(scenario, seed, SENSIBLE_PLAYS[scenario]);
      expect(result.goals.every((g) => g.met), `${scenario} seed ${seed}: ${JSON.stringify(result.goals)}`).toBe(true);
    }
  });

  it('the model page quotes each documented play and each goal target', () => {
    const doc = readFileSync(new URL('docs/models/web-service.md', ROOT), 'utf8');
    for (const scenario of CRISES) expect(doc).toContain(playCommand(scenario));
    for (const scenario of webService.scenarios) {
      for (const g of scenario.goals) expect(doc, `${scenario.id}/${g.id}`).toContain(`\`${g.id}\``);
    }
  });

  it('free play has no goals and no score', () => {
    expect(cli('free', 1, []).result).toEqual({ goals: [], score: null });
  });

  it('the real command replays the documented bad-deploy play like the in-process CLI', async () => {
    const argv = ['--model', 'web-service', '--scenario', 'bad-deploy', '--seed', '1', '--set', 'rollback=press@11'];
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'server/cli/sim.ts', ...argv], { cwd: ROOT, encoding: 'utf8' });
    expect(stdout).toBe(runCli(argv).stdout);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(62);
    expect(JSON.parse(lines[0]).clock).toBe('09:00');
    expect((JSON.parse(lines[61]).result as CliResult).goals.every((g) => g.met)).toBe(true);
  });
});

describe('web service: CLI errors', () => {
  it.each([
    ['rollback=yes', 'rollback', 'press'],
    ['warmUp=1', 'warmUp', 'press'],
    ['targetUtilization=0.95', 'targetUtilization', '0.30–0.90'],
    ['minInstances=41', 'minInstances', '1–40'],
    ['minInstances=2.5', 'minInstances', '1–40'],
    ['cacheTtlS=5', 'cacheTtlS', '10–600'],
    ['shedLowPriority=1.5', 'shedLowPriority', '0.00–1.00'],
    ['heavyFeature=yes', 'heavyFeature', 'on/off'],
    ['autoscaling=1', 'autoscaling', 'on/off'],
  ])('--set %s exits 2 naming %s and %s', (set, key, allowed) => {
    const out = runCli(['--model', 'web-service', '--scenario', 'free', '--set', set]);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(key);
    expect(out.stderr).toContain(allowed);
  });

  it('an unknown web-service scenario exits 2 listing the scenarios', () => {
    const out = runCli(['--model', 'web-service', '--scenario', 'black-friday']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('free, bad-deploy, traffic-surge, cache-flush');
  });
});
