// Web service: the seed's opening screen, each scenario's opening, the real command against the
// in-process CLI, and the CLI's errors for web-service keys.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../server/cli/sim-cli.ts';
import { formatClock, formatDisplay } from '../../shared/format.ts';
import { createRound } from '../../shared/sim/engine.ts';
import { webService } from '../../shared/sim/web-service/index.ts';
import { PLAYS } from '../../shared/sim/web-service/plays.ts';

const ROOT = new URL('../../', import.meta.url);

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

  it('opens at 08:00 with every headline indicator normal, the budget untouched and an empty ledger', () => {
    expect(snap.minute).toBe(0);
    expect(formatClock(snap.clock!)).toBe('08:00');
    expect(Object.values(snap.status)).toEqual(['normal', 'normal', 'normal', 'normal']);
    expect(Object.keys(snap.status).sort()).toEqual(['dbLoad', 'errorRate', 'p99Ms', 'utilization']);
    expect(snap.indicators.errorBudgetRemaining).toBe(1);
    expect(snap.indicators.errorRate).toBeLessThan(1e-9);
    for (const k of [...webService.ledger.items, webService.ledger.total]) expect(snap.indicators[k], k).toBe(0);
    expect(snap.na).toBeUndefined();
  });

  it('the scenarios open at their clocks, budgets, cache and fleet', () => {
    const open = (scenario: string) => createRound(webService, { scenario, seed: 1, noise: false }).snapshot;
    expect(formatClock(open('bad-deploy').clock!)).toBe('09:00');
    expect(open('bad-deploy').indicators.errorBudgetRemaining).toBe(0.2);
    expect(formatClock(open('traffic-surge').clock!)).toBe('08:30');
    const flush = open('cache-flush');
    expect(formatClock(flush.clock!)).toBe('12:00');
    expect(flush.controls.cacheTtlS).toBe(90);
    // TTL 90 s at the 12:00 peak gives the 85 % hit ratio the seed's database was sized for.
    expect(formatDisplay({ scale: 100, digits: 0, unit: '%' }, flush.indicators.cacheHitRatio)).toBe('85 %');
    for (const shift of ['launch-day', 'failover']) {
      const s = open(shift);
      expect(s.indicators.errorBudgetRemaining, shift).toBe(0.5);
      // The autoscaler is off for the afternoon: the fleet is what the fleet role sets.
      expect(s.controls.autoscaling, shift).toBe(false);
    }
    expect(formatClock(open('launch-day').clock!)).toBe('11:10');
    expect(formatClock(open('failover').clock!)).toBe('14:00');
  });

  it('actions stay out of snapshot.controls; their progress is in detail', () => {
    expect(Object.keys(snap.controls).sort()).toEqual([
      'autoscaling',
      'cacheTtlS',
      'heavyFeature',
      'minInstances',
      'shedLowPriority',
      'targetUtilization',
    ]);
    expect(snap.detail.warmUpMinutesLeft).toBe(0);
    expect(snap.detail.rollbackMinutesLeft).toBe(0);
  });
});

describe('web service: the CLI', () => {
  it('free play has no goals and no score', () => {
    const out = runCli(['--model', 'web-service', '--scenario', 'free']);
    const lines = out.stdout.trim().split('\n');
    const { result } = JSON.parse(lines[lines.length - 1]);
    expect(result.goals).toEqual([]);
    expect(result.score).toBeNull();
  });

  it('the real command replays the documented bad-deploy play like the in-process CLI', async () => {
    const argv = ['--model', 'web-service', '--scenario', 'bad-deploy', '--seed', '1', ...PLAYS['bad-deploy']];
    const { stdout } = await promisify(execFile)('npx', ['tsx', 'server/cli/sim.ts', ...argv], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(stdout).toBe(runCli(argv).stdout);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(62);
    expect(JSON.parse(lines[0]).clock).toBe('09:00');
    const { result } = JSON.parse(lines[61]);
    expect(result.goals.every((g: { met: boolean }) => g.met)).toBe(true);
    expect(result.score).toBeGreaterThan(1000);
  });

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
    expect(out.stderr).toContain('free, product-launch, bad-deploy, traffic-surge, cache-flush, launch-day, failover');
  });

  it('a trigger on an unknown event or indicator is refused, not ignored', () => {
    const bad = runCli(['--model', 'web-service', '--scenario', 'free', '--on', 'cacheHitRate<0.5', 'warmUp=press']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('cacheHitRate');
  });
});
