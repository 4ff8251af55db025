// Web service: determinism, the seeded draws, properties over random rounds, the queue's seam, the
// fleet and the warm-up job. The shocks' dynamics are in web-service.shocks.test.ts, the ledger's in
// web-service.ledger.test.ts.
import { describe, expect, it } from 'vitest';
import { randomControlValue } from '../../shared/sim/controls.ts';
import { runCli } from '../../server/cli/sim-cli.ts';
import { createRound, runRound, stepRound } from '../../shared/sim/engine.ts';
import { rngFromSeed, uniform } from '../../shared/sim/rng.ts';
import { PRESS, type ControlChange, type ScheduledChange, type Snapshot } from '../../shared/sim/types.ts';
import { LN100, TIMEOUT_S } from '../../shared/sim/web-service/constants.ts';
import { dailyRate, queue } from '../../shared/sim/web-service/flows.ts';
import { webService, type WebServiceState } from '../../shared/sim/web-service/index.ts';

const SEEDS = [1, 2, 3, 4, 5];
const SCENARIOS = webService.scenarios.map((s) => s.id);

function play(scenario: string, seed: number, changes: ScheduledChange[] = [], noise = true, minutes = 60) {
  return runRound(webService, { scenario, seed, noise, minutes, changes });
}
const press = (key: string, minute: number): ScheduledChange => ({ key, value: PRESS, minute });
const set = (key: string, value: number | boolean, minute: number): ScheduledChange => ({ key, value, minute });
const _series = (snaps: Snapshot[], key: string) => snaps.map((s) => s.indicators[key]);
const eventsOf = (snaps: Snapshot[], kind: string) =>
  snaps.filter((s) => s.events.some((e) => e.kind === kind)).map((s) => s.minute);

describe('web service: determinism and randomness', () => {
  const argv = (seed: number) => [
    '--model',
    'web-service',
    '--scenario',
    'traffic-surge',
    '--seed',
    String(seed),
    '--set',
    'warmUp=press@3',
  ];

  it('the same seed gives the same JSON lines', () => {
    const a = runCli(argv(7));
    expect(a.code).toBe(0);
    expect(runCli(argv(7)).stdout).toBe(a.stdout);
  });

  it('different seeds give different arrivals and different shocks, each within its drawn range', () => {
    const rates = (seed: number) =>
      runCli(argv(seed))
        .stdout.trim()
        .split('\n')
        .slice(1, 61)
        .map((l) => JSON.parse(l).indicators.requestsPerSec);
    expect(rates(1)).not.toEqual(rates(2));
    for (const scenario of SCENARIOS.filter((x) => x !== 'free')) {
      const drawn = SEEDS.map((seed) => {
        const st = createRound(webService, { scenario, seed, noise: true });
        return { shocks: st.shocks, episodes: st.episodes };
      });
      expect(new Set(drawn.map((d) => JSON.stringify(d))).size, scenario).toBeGreaterThanOrEqual(3);
    }
    for (const seed of SEEDS) {
      const sh = createRound(webService, { scenario: 'traffic-surge', seed, noise: true }).shocks;
      expect(sh.surgeAt).toBeGreaterThanOrEqual(10);
      expect(sh.surgeAt).toBeLessThanOrEqual(25);
      expect(Number.isInteger(sh.surgeAt)).toBe(true);
      expect(sh.surgeSize).toBeGreaterThanOrEqual(2.2);
      expect(sh.surgeSize).toBeLessThanOrEqual(2.5);
      expect(sh.deployAt! - sh.surgeAt!).toBeGreaterThanOrEqual(8);
      expect(sh.deployAt! - sh.surgeAt!).toBeLessThanOrEqual(14);
    }
  });

  it('noise off draws nothing over a whole round and uses the means', () => {
    for (const scenario of SCENARIOS) {
      const changes = [
        press('warmUp', 2),
        press('rollback', 3),
        set('minInstances', 25, 4),
        set('shedLowPriority', 0.5, 9),
      ];
      const { final } = play(scenario, 99, changes, false);
      expect(final.rng.s, scenario).toBe(99);
    }
    // Arrivals are their mean: λ(t) of the daily cycle times the surge (no crawler in free play or bad-deploy).
    for (const scenario of ['free', 'bad-deploy']) {
      for (const s of play(scenario, 5, [], false).snapshots)
        expect(s.indicators.requestsPerSec).toBeCloseTo(dailyRate(s.clock!) * s.detail.surgeFactor, 9);
    }
    // traffic-surge: start 10–25 → 17, size 2.2–2.5 → 2.35, ramping over 8 minutes.
    const sh = createRound(webService, { scenario: 'traffic-surge', seed: 5, noise: false }).shocks;
    expect([sh.surgeAt, sh.surgeSize, sh.surgeRamp]).toEqual([17, 2.35, 8]);
    const { snapshots } = play('traffic-surge', 5, [], false);
    expect(eventsOf(snapshots, 'surge-start')).toEqual([17]);
    for (const [k, s] of snapshots.slice(16, 26).entries())
      expect(s.detail.surgeFactor).toBeCloseTo(1 + 1.35 * Math.min(1, Math.max(0, k) / 8), 12);
  });

  it('step never mutates the state it is given', () => {
    const s0 = createRound(webService, { scenario: 'bad-deploy', seed: 3, noise: true });
    const copy = JSON.parse(JSON.stringify(s0));
    stepRound(webService, s0, [{ key: 'rollback', value: PRESS }]);
    expect(s0).toEqual(copy);
  });
  it('a minute without a change shares the controls; a change makes new ones and leaves the last minute as it was', () => {
    const s0 = createRound(webService, { scenario: 'bad-deploy', seed: 3, noise: true });
    const s1 = stepRound(webService, s0);
    expect(s1.controls).toBe(s0.controls);
    expect(s1.snapshot.controls).toBe(s1.controls);
    const before = JSON.stringify(s1);
    const s2 = stepRound(webService, s1, [
      { key: 'cacheTtlS', value: 120 },
      { key: 'warmUp', value: PRESS },
    ]);
    expect(JSON.stringify(s1)).toBe(before);
    expect(s2.controls).not.toBe(s1.controls);
    expect(s2.snapshot.controls.cacheTtlS).toBe(120);
    expect(s1.snapshot.controls.cacheTtlS).not.toBe(120);
  });
});

/** A random valid change for a random control. */
function randomChange(r: { s: number }): ControlChange {
  const def = webService.controls[Math.floor(uniform(r) * webService.controls.length)];
  return { key: def.key, value: randomControlValue(def, () => uniform(r)) };
}

describe('web service: properties over 1,000 random rounds', () => {
  it('shares stay in [0, 1], the budget never rises, no ledger line falls, a collapse reads critical, nothing is NaN', () => {
    const r = rngFromSeed(20240601);
    const shares = [
      'errorRate',
      'utilization',
      'cacheHitRatio',
      'throttledShare',
      'badBuildShare',
      'recommendationsAvailable',
      'errorBudgetRemaining',
    ];
    // Plain checks collected per step (an expect() per value would make 60,000 steps slow).
    const failures: string[] = [];
    const check = (ok: boolean, what: () => string) => {
      if (!ok && failures.length < 10) failures.push(what());
    };
    let pages = 0;
    let overloaded = 0;
    let collapsed = 0;
    for (let round = 0; round < 1000; round++) {
      const scenario = SCENARIOS[round % SCENARIOS.length];
      let s: WebServiceState = createRound(webService, {
        scenario,
        seed: Math.floor(uniform(r) * 1e9),
        noise: round % 10 !== 0,
      });
      for (let m = 1; m <= 60; m++) {
        const changes: ControlChange[] = [];
        while (uniform(r) < 0.15) {
          // A control the story has made unavailable is refused (test/sim/story.test.ts): not sent.
          const c = randomChange(r);
          if (!s.snapshot.unavailable?.[c.key]) changes.push(c);
        }
        const prev = s.snapshot;
        s = stepRound(webService, s, changes);
        const { indicators: ind, detail } = s.snapshot;
        const at = (k: string) => () => `${scenario} round ${round} m${m} ${k}=${ind[k] ?? detail[k]}`;
        for (const [k, v] of [...Object.entries(ind), ...Object.entries(detail)]) check(Number.isFinite(v), at(k));
        for (const k of shares) check(ind[k] >= 0 && ind[k] <= 1, at(k));
        check(ind.dbLoad >= 0, at('dbLoad'));
        check(ind.errorBudgetRemaining <= prev.indicators.errorBudgetRemaining, at('errorBudgetRemaining'));
        // Every ledger line is a running total; the total is their sum.
        let sum = 0;
        for (const k of webService.ledger.items) {
          check(ind[k] >= prev.indicators[k], at(k));
          sum += ind[k];
        }
        check(Math.abs(ind.ledgerTotal - sum) < 1e-9, at('ledgerTotal'));
        // Half the requests or more unanswered: the whole headline reads critical.
        const unanswered = ind.throttledShare + (1 - ind.throttledShare) * ind.errorRate;
        if (unanswered >= 0.5) {
          collapsed++;
          check(
            Object.values(s.snapshot.status).every((x) => x === 'critical'),
            at('status'),
          );
        }
        check(s.snapshot.na === undefined, at('na'));
        check(ind.instancesServing + ind.instancesBooting <= 40 && ind.instancesServing >= 1, at('instancesServing'));
        check(ind.p99Ms <= 1000 * TIMEOUT_S + detail.serviceTimeMs * LN100 + 1e-6, at('p99Ms'));
        check(ind.errorRate >= detail.failedShare, at('errorRate'));
        if (ind.utilization === 1) overloaded++;
      }
      const pageEvents = s.snapshot.events.filter((e) => e.kind === 'page').length;
      check(pageEvents <= 1, () => `round ${round}: ${pageEvents} pages in one minute`);
      if (s.paged) pages++;
    }
    expect(failures).toEqual([]);
    // The random play reaches the interesting corners: pages and saturated fleets.
    expect(pages).toBeGreaterThan(10);
    expect(overloaded).toBeGreaterThan(100);
    expect(collapsed).toBeGreaterThan(10);
  });

  it('the failed share and p99 never fall as load rises, and the seam is continuous', () => {
    for (const [serviceS, workers] of [
      [0.074, 160],
      [0.31, 160],
      [0.07, 16],
      [0.82, 640],
      [0.05, 48],
    ]) {
      const capacity = workers / serviceS;
      let last = queue(0, serviceS, workers);
      for (let i = 1; i <= 3000; i++) {
        const q = queue((capacity * 3 * i) / 3000, serviceS, workers);
        expect(q.failed).toBeGreaterThanOrEqual(last.failed);
        expect(q.p99S).toBeGreaterThanOrEqual(last.p99S - 1e-12);
        expect(q.failed).toBeLessThanOrEqual(1);
        last = q;
      }
      // No seam: just below and just above capacity agree (the tail's C tends to 1, its decay to κ).
      const below = queue(capacity * (1 - 1e-12), serviceS, workers);
      const above = queue(capacity * (1 + 1e-12), serviceS, workers);
      expect(Math.abs(above.failed - below.failed)).toBeLessThan(1e-6);
      expect(Math.abs(above.p99S - below.p99S)).toBeLessThan(1e-6);
      // At capacity the tail decays at κ = 2/s: e^(−4) fail; far above, the overload share 1 − N/a.
      expect(queue(capacity, serviceS, workers).failed).toBeCloseTo(Math.exp(-4), 6);
      expect(queue(capacity * 2, serviceS, workers).failed).toBeCloseTo(0.5, 9);
    }
  });
});

describe('web service: the fleet and the warm-up job', () => {
  it('pressing warm-up during a job restarts it; the cache never overfills', () => {
    const snaps = play('free', 1, [press('warmUp', 3), press('warmUp', 5)]).snapshots;
    expect(snaps.slice(3, 12).map((s) => s.detail.warmUpMinutesLeft)).toEqual([6, 5, 6, 5, 4, 3, 2, 1, 0]);
    expect(eventsOf(snaps, 'warmup-done')).toEqual([11]);
    for (const s of snaps) expect(s.detail.warm).toBeLessThanOrEqual(1);
  });

  it('fleet: autoscaling off means exactly minInstances; on, the floor boots and scale-in waits 10 quiet minutes', () => {
    const off = play(
      'free',
      1,
      [set('autoscaling', false, 2), set('minInstances', 6, 3), set('minInstances', 9, 5)],
      false,
    ).snapshots;
    expect(off[3].indicators.instancesServing).toBe(6);
    expect([off[5].indicators.instancesServing, off[5].indicators.instancesBooting]).toEqual([6, 3]);
    expect(eventsOf(off, 'instances-ready')).toEqual([9]);
    expect(off[9].indicators.instancesServing).toBe(9);

    const on = play('free', 1, [set('minInstances', 20, 1), set('minInstances', 10, 6)], false).snapshots;
    expect(on[1].indicators.instancesBooting).toBe(10);
    expect(on[5].indicators.instancesServing).toBe(20);
    const sizes = on.map((s) => s.indicators.instancesServing + s.indicators.instancesBooting);
    // Scale-in steps of at most 20 % of the fleet, never below the floor.
    for (let m = 2; m <= 60; m++) {
      expect(sizes[m]).toBeGreaterThanOrEqual(10);
      expect(sizes[m - 1] - sizes[m]).toBeLessThanOrEqual(Math.floor(0.2 * sizes[m - 1]));
    }
    // Quiet from the opening minute's measurement on: the tenth quiet minute removes 20 % (20 → 16).
    expect(sizes.slice(1, 10)).toEqual(new Array(9).fill(20));
    expect([sizes[10], sizes[20], sizes[30], sizes[40]]).toEqual([16, 13, 11, 10]);
    expect(sizes[60]).toBe(10);
    // A saturated fleet grows step by step: no new scale-out while instances boot.
    const surge = play('traffic-surge', 1, [], false).snapshots;
    for (let m = 1; m <= 60; m++) {
      if (
        surge[m].indicators.instancesBooting > surge[m - 1].indicators.instancesBooting &&
        surge[m - 1].indicators.instancesBooting > 0
      ) {
        throw new Error(`scale-out at minute ${m} while booting`);
      }
    }
  });
});
