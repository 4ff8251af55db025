// Web service: determinism, properties over random rounds, the queue's seam, and the dynamics each
// scenario is meant to teach.
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
const SCENARIOS = ['free', 'bad-deploy', 'traffic-surge', 'cache-flush'];

function play(scenario: string, seed: number, changes: ScheduledChange[] = [], noise = true, minutes = 60) {
  return runRound(webService, { scenario, seed, noise, minutes, changes });
}
const press = (key: string, minute: number): ScheduledChange => ({ key, value: PRESS, minute });
const set = (key: string, value: number | boolean, minute: number): ScheduledChange => ({ key, value, minute });
const series = (snaps: Snapshot[], key: string) => snaps.map((s) => s.indicators[key]);
const eventsOf = (snaps: Snapshot[], kind: string) => snaps.filter((s) => s.events.some((e) => e.kind === kind)).map((s) => s.minute);

describe('web service: determinism and randomness', () => {
  const argv = (seed: number) => ['--model', 'web-service', '--scenario', 'traffic-surge', '--seed', String(seed), '--set', 'warmUp=press@3'];

  it('the same seed gives the same JSON lines', () => {
    const a = runCli(argv(7));
    expect(a.code).toBe(0);
    expect(runCli(argv(7)).stdout).toBe(a.stdout);
  });

  it('different seeds give different arrivals and, in traffic-surge, different surge start or size', () => {
    const rates = (seed: number) => runCli(argv(seed)).stdout.trim().split('\n').slice(1, 61).map((l) => JSON.parse(l).indicators.requestsPerSec);
    expect(rates(1)).not.toEqual(rates(2));
    const surges = SEEDS.map((seed) => {
      const s = createRound(webService, { scenario: 'traffic-surge', seed, noise: true });
      expect(s.surgeStart).toBeGreaterThanOrEqual(10);
      expect(s.surgeStart).toBeLessThanOrEqual(30);
      expect(Number.isInteger(s.surgeStart)).toBe(true);
      expect(s.surgeSize).toBeGreaterThanOrEqual(2);
      expect(s.surgeSize).toBeLessThanOrEqual(3);
      return `${s.surgeStart}/${s.surgeSize}`;
    });
    expect(new Set(surges).size).toBe(SEEDS.length);
  });

  it('noise off draws nothing over a whole round and uses the means (surge at minute 20, ×2.5)', () => {
    for (const scenario of SCENARIOS) {
      const changes = [press('warmUp', 2), press('rollback', 3), set('minInstances', 25, 4), set('shedLowPriority', 0.5, 9)];
      const { final, snapshots } = play(scenario, 99, changes, false);
      expect(final.rng.s, scenario).toBe(99);
      // Arrivals are their mean: λ(t) of the daily cycle (times the surge).
      for (const s of snapshots) expect(s.indicators.requestsPerSec).toBeCloseTo(dailyRate(s.clock!) * s.detail.surgeFactor, 9);
    }
    const surge = createRound(webService, { scenario: 'traffic-surge', seed: 5, noise: false });
    expect([surge.surgeStart, surge.surgeSize]).toEqual([20, 2.5]);
    const { snapshots } = play('traffic-surge', 5, [], false);
    expect(eventsOf(snapshots, 'surge-start')).toEqual([20]);
    expect(snapshots.slice(19, 23).map((s) => s.detail.surgeFactor)).toEqual([1, 1.5, 2, 2.5]);
  });

  it('step never mutates the state it is given', () => {
    const s0 = createRound(webService, { scenario: 'bad-deploy', seed: 3, noise: true });
    const copy = JSON.parse(JSON.stringify(s0));
    stepRound(webService, s0, [{ key: 'rollback', value: PRESS }]);
    expect(s0).toEqual(copy);
  });
});

/** A random valid change for a random control. */
function randomChange(r: { s: number }): ControlChange {
  const def = webService.controls[Math.floor(uniform(r) * webService.controls.length)];
  return { key: def.key, value: randomControlValue(def, () => uniform(r)) };
}

describe('web service: properties over 1,000 random rounds', () => {
  it('shares stay in [0, 1], the budget never rises, cost never falls, nothing is NaN', () => {
    const r = rngFromSeed(20240601);
    const shares = ['errorRate', 'utilization', 'cacheHitRatio', 'throttledShare', 'badBuildShare', 'recommendationsAvailable', 'errorBudgetRemaining'];
    // Plain checks collected per step (an expect() per value would make 60,000 steps slow).
    const failures: string[] = [];
    const check = (ok: boolean, what: () => string) => {
      if (!ok && failures.length < 10) failures.push(what());
    };
    let pages = 0;
    let overloaded = 0;
    for (let round = 0; round < 1000; round++) {
      const scenario = SCENARIOS[round % SCENARIOS.length];
      let s: WebServiceState = createRound(webService, { scenario, seed: Math.floor(uniform(r) * 1e9), noise: round % 10 !== 0 });
      for (let m = 1; m <= 60; m++) {
        const changes: ControlChange[] = [];
        while (uniform(r) < 0.15) changes.push(randomChange(r));
        const prev = s.snapshot;
        s = stepRound(webService, s, changes);
        const { indicators: ind, detail } = s.snapshot;
        const at = (k: string) => () => `${scenario} round ${round} m${m} ${k}=${ind[k] ?? detail[k]}`;
        for (const [k, v] of [...Object.entries(ind), ...Object.entries(detail)]) check(Number.isFinite(v), at(k));
        for (const k of shares) check(ind[k] >= 0 && ind[k] <= 1, at(k));
        check(ind.dbLoad >= 0, at('dbLoad'));
        check(ind.errorBudgetRemaining <= prev.indicators.errorBudgetRemaining, at('errorBudgetRemaining'));
        check(ind.costSoFar >= prev.indicators.costSoFar, at('costSoFar'));
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
  });

  it('the failed share and p99 never fall as load rises, and the seam is continuous', () => {
    for (const [serviceS, workers] of [[0.074, 160], [0.31, 160], [0.07, 16], [0.82, 640], [0.05, 48]]) {
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

describe('web service: dynamics that teach', () => {
  it('bad deploy: the budget drains until the rollback switches, then stops falling', () => {
    for (const seed of SEEDS) {
      const { snapshots } = play('bad-deploy', seed, [press('rollback', 11)]);
      const budget = series(snapshots, 'errorBudgetRemaining');
      expect(eventsOf(snapshots, 'deploy')).toEqual([10]);
      expect(eventsOf(snapshots, 'rollback-done')).toEqual([16]);
      [0.2, 0.4, 0.6, 0.8, 1, 1].forEach((beta, i) => expect(snapshots[10 + i].indicators.badBuildShare).toBeCloseTo(beta, 12));
      for (let m = 1; m <= 9; m++) expect(budget[m]).toBe(0.2);
      for (let m = 10; m <= 15; m++) expect(budget[m], `seed ${seed} m${m}`).toBeLessThan(budget[m - 1]);
      for (let m = 16; m <= 60; m++) {
        expect(snapshots[m].indicators.badBuildShare).toBe(0);
        expect(budget[m] - budget[m - 1], `seed ${seed} m${m}`).toBeGreaterThan(-1e-9);
      }
      // Billed twice while the fresh fleet is prepared (minutes 11–15).
      expect(snapshots[11].detail.rollbackMinutesLeft).toBe(5);
      expect(snapshots[11].detail.rollbackFleet).toBe(snapshots[11].indicators.instancesServing + snapshots[11].indicators.instancesBooting);
      expect(snapshots[11].indicators.fleetCostPerHour).toBeCloseTo(0.4 * 2 * snapshots[11].detail.rollbackFleet, 9);
      // Left alone, it drains to the end and the fast-burn page fires (burn (1 h) ≥ 14.4×).
      const left = play('bad-deploy', seed).snapshots;
      for (let m = 15; m <= 60; m++) expect(left[m].indicators.errorBudgetRemaining).toBeLessThan(left[m - 1].indicators.errorBudgetRemaining);
      const [page] = eventsOf(left, 'page');
      expect(left[page].indicators.burnRate1h).toBeGreaterThanOrEqual(14.4);
      expect(left[page - 1].indicators.burnRate1h).toBeLessThan(14.4);
      expect(eventsOf(snapshots, 'page')).toEqual([]);
    }
  });

  it('bad deploy: pressing rollback again restarts the preparation and bills it longer', () => {
    const once = play('bad-deploy', 1, [press('rollback', 11)]).snapshots;
    const twice = play('bad-deploy', 1, [press('rollback', 11), press('rollback', 13)]).snapshots;
    expect(eventsOf(twice, 'rollback-done')).toEqual([18]);
    expect(twice[13].detail.rollbackMinutesLeft).toBe(5);
    expect(twice[60].indicators.costSoFar).toBeGreaterThan(once[60].indicators.costSoFar);
    expect(twice[60].indicators.errorBudgetRemaining).toBeLessThan(once[60].indicators.errorBudgetRemaining);
    // Before any bad build is live a rollback only costs money.
    const early = play('bad-deploy', 1, [press('rollback', 2)]).snapshots;
    expect(eventsOf(early, 'rollback-done')).toEqual([7]);
    expect(early[20].indicators.badBuildShare).toBe(1);
  });

  it('traffic surge: with an 8-minute boot, raising the floor at the surge is too late', () => {
    for (const seed of SEEDS) {
      const start = createRound(webService, { scenario: 'traffic-surge', seed, noise: true }).surgeStart!;
      const early = play('traffic-surge', seed, [set('minInstances', 18, 1)]).snapshots;
      const late = play('traffic-surge', seed, [set('minInstances', 18, start + 1)]).snapshots;
      expect(eventsOf(late, 'surge-start')).toEqual([start]);
      expect(late[start + 1].indicators.instancesBooting).toBeGreaterThanOrEqual(8);
      expect(eventsOf(early, 'instances-ready')[0]).toBe(9);
      // During the late boot (minutes start+2 … start+8) requests fail and p99 hits the timeout.
      const boot = (snaps: Snapshot[]) => snaps.slice(start + 2, start + 9);
      const worstLate = Math.max(...boot(late).map((s) => s.indicators.errorRate));
      expect(worstLate, `seed ${seed}`).toBeGreaterThan(0.05);
      expect(Math.max(...boot(late).map((s) => s.indicators.p99Ms))).toBeGreaterThan(1000);
      for (const s of boot(early)) {
        expect(s.indicators.errorRate).toBeLessThan(0.001);
        expect(s.indicators.p99Ms).toBeLessThan(500);
      }
      expect(late[start + 9].indicators.instancesServing).toBeGreaterThanOrEqual(18);
    }
  });

  it('cache flush: graceful degradation or shedding brings the database below saturation', () => {
    for (const seed of SEEDS) {
      const left = play('cache-flush', seed).snapshots;
      expect(eventsOf(left, 'cache-flush')).toEqual([5]);
      expect(left[5].indicators.cacheHitRatio).toBe(0);
      expect(left[6].indicators.dbLoad).toBeGreaterThan(0.85);
      expect(left[6].indicators.errorRate).toBeGreaterThan(0.1);
      for (const fix of [set('heavyFeature', false, 6), set('shedLowPriority', 1, 6)]) {
        const snaps = play('cache-flush', seed, [fix]).snapshots;
        for (let m = 6; m <= 60; m++) {
          expect(snaps[m].indicators.dbLoad, `${fix.key} seed ${seed} m${m}`).toBeLessThan(0.8);
          expect(snaps[m].indicators.errorRate).toBeLessThan(0.001);
        }
      }
    }
  });

  it('cache flush: warm-up pressed on a saturated database makes it worse during the job', () => {
    for (const seed of SEEDS) {
      const left = play('cache-flush', seed).snapshots;
      const warm = play('cache-flush', seed, [press('warmUp', 6)]).snapshots;
      expect(warm[6].detail.warmUpMinutesLeft).toBe(6);
      expect(eventsOf(warm, 'warmup-done')).toEqual([12]);
      expect(warm[6].indicators.dbLoad).toBeGreaterThan(1);
      expect(warm[6].indicators.dbLoad).toBeGreaterThan(left[6].indicators.dbLoad + 0.1);
      expect(warm[6].indicators.errorRate).toBeGreaterThan(left[6].indicators.errorRate);
      const jobErrors = (snaps: Snapshot[]) => snaps.slice(6, 12).reduce((a, s) => a + s.indicators.errorRate, 0);
      expect(jobErrors(warm), `seed ${seed}`).toBeGreaterThan(jobErrors(left));
      // The same button with the feature off (database at ~60 %) refills the cache without errors.
      const calm = play('cache-flush', seed, [set('heavyFeature', false, 6), press('warmUp', 7)]).snapshots;
      for (let m = 7; m <= 12; m++) expect(calm[m].indicators.errorRate).toBeLessThan(0.001);
      expect(calm[13].indicators.cacheHitRatio).toBeGreaterThan(left[13].indicators.cacheHitRatio + 0.4);
    }
  });

  it('pressing warm-up during a job restarts it; the cache never overfills', () => {
    const snaps = play('free', 1, [press('warmUp', 3), press('warmUp', 5)]).snapshots;
    expect(snaps.slice(3, 12).map((s) => s.detail.warmUpMinutesLeft)).toEqual([6, 5, 6, 5, 4, 3, 2, 1, 0]);
    expect(eventsOf(snaps, 'warmup-done')).toEqual([11]);
    for (const s of snaps) expect(s.detail.warm).toBeLessThanOrEqual(1);
  });

  it('fleet: autoscaling off means exactly minInstances; on, the floor boots and scale-in waits 10 quiet minutes', () => {
    const off = play('free', 1, [set('autoscaling', false, 2), set('minInstances', 6, 3), set('minInstances', 9, 5)], false).snapshots;
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
      if (surge[m].indicators.instancesBooting > surge[m - 1].indicators.instancesBooting && surge[m - 1].indicators.instancesBooting > 0) {
        throw new Error(`scale-out at minute ${m} while booting`);
      }
    }
  });
});
