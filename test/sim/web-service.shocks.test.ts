// Web service: the shocks each scenario draws from the seed, what they do, and how the desk shows them
// (docs/models/web-service.md, "Shocks"). Seeds 1–5, noise on unless said.
import { describe, expect, it } from 'vitest';
import { createRound, runRound } from '../../shared/sim/engine.ts';
import { PRESS, type ScheduledChange, type Snapshot } from '../../shared/sim/types.ts';
import { BASE_RATE, DB_CAPACITY_QPS } from '../../shared/sim/web-service/constants.ts';
import { webService } from '../../shared/sim/web-service/index.ts';
import { crawlRate, dbCapacity, ramp, surgeFactor, type Shocks } from '../../shared/sim/web-service/shocks.ts';
import { deploys, launchStates } from './launch.ts';

const SEEDS = [1, 2, 3, 4, 5];

function play(scenario: string, seed: number, changes: ScheduledChange[] = [], noise = true) {
  return runRound(webService, { scenario, seed, noise, minutes: 60, changes }).snapshots;
}
const shocksOf = (scenario: string, seed: number): Shocks =>
  createRound(webService, { scenario, seed, noise: true }).shocks;
const press = (key: string, minute: number): ScheduledChange => ({ key, value: PRESS, minute });
const set = (key: string, value: number | boolean, minute: number): ScheduledChange => ({ key, value, minute });
const eventsOf = (snaps: Snapshot[], kind: string) =>
  snaps.filter((s) => s.events.some((e) => e.kind === kind)).map((s) => s.minute);

describe('web service: ramps', () => {
  it('an episode ramps up over its minutes and fades over 3 once it ends', () => {
    for (const [i, x] of [0, 0.25, 0.5, 0.75, 1].entries()) expect(ramp(10, null, 9 + i, 4)).toBeCloseTo(x, 12);
    for (const [i, x] of [1, 2 / 3, 1 / 3, 0].entries()) expect(ramp(10, 20, 19 + i)).toBeCloseTo(x, 12);
  });
});

describe('web service: bad deploy', () => {
  it('the build goes live at a drawn minute (8–20); left alone it drains the budget and the page fires', () => {
    for (const seed of SEEDS) {
      const { deployAt } = shocksOf('bad-deploy', seed);
      expect(deployAt).toBeGreaterThanOrEqual(8);
      expect(deployAt).toBeLessThanOrEqual(20);
      const left = play('bad-deploy', seed);
      expect(eventsOf(left, 'deploy')).toEqual([deployAt]);
      for (const [i, beta] of [0.2, 0.4, 0.6, 0.8, 1, 1].entries())
        expect(left[deployAt! + i].indicators.badBuildShare).toBeCloseTo(beta, 12);
      for (let m = deployAt! + 1; m <= 60; m++)
        expect(left[m].indicators.errorBudgetRemaining).toBeLessThan(left[m - 1].indicators.errorBudgetRemaining);
      const [page] = eventsOf(left, 'page');
      expect(left[page].indicators.burnRate1h).toBeGreaterThanOrEqual(14.4);
      expect(left[page - 1].indicators.burnRate1h).toBeLessThan(14.4);
    }
  });

  it('the rollback stops the burn, but the old build cannot read the new build’s cache entries', () => {
    for (const seed of SEEDS) {
      const { deployAt } = shocksOf('bad-deploy', seed);
      const d = deployAt!;
      const snaps = play('bad-deploy', seed, [press('rollback', d + 1)]);
      expect(eventsOf(snaps, 'rollback-done')).toEqual([d + 6]);
      for (let m = d + 6; m <= 60; m++) expect(snaps[m].indicators.badBuildShare).toBe(0);
      // The switch keeps only 1 − β of the cache: β was 1, so the cache is cold and the database takes every request.
      expect(snaps[d + 5].detail.warm).toBeGreaterThan(0.95);
      expect(snaps[d + 6].detail.warm).toBe(0);
      expect(snaps[d + 6].indicators.dbLoad).toBeGreaterThan(0.85);
      // Switching the feature off for the switch keeps the fleet out of overload.
      const calm = play('bad-deploy', seed, [
        press('rollback', d + 1),
        set('heavyFeature', false, d + 5),
        press('warmUp', d + 7),
      ]);
      expect(snaps[d + 6].indicators.errorRate).toBeGreaterThan(0.1);
      // Then the budget stops falling (a rounding's worth aside).
      for (let m = d + 6; m <= 60; m++) {
        expect(calm[m].indicators.errorRate).toBeLessThan(0.001);
        expect(calm[m].indicators.errorBudgetRemaining - calm[m - 1].indicators.errorBudgetRemaining).toBeGreaterThan(
          -1e-5,
        );
      }
      // Billed twice while the fresh fleet is prepared.
      expect(snaps[d + 1].detail.rollbackMinutesLeft).toBe(5);
      expect(snaps[d + 1].indicators.fleetCostPerHour).toBeCloseTo(0.4 * 2 * snaps[d + 1].detail.rollbackFleet, 9);
    }
  });

  it('a rollback before the build is live only costs money; pressing again restarts the preparation', () => {
    const { deployAt } = shocksOf('bad-deploy', 1);
    const early = play('bad-deploy', 1, [press('rollback', 1)]);
    expect(eventsOf(early, 'rollback-done')).toEqual([6]);
    expect(early[deployAt! + 6].indicators.badBuildShare).toBe(1);
    const twice = play('bad-deploy', 1, [press('rollback', deployAt! + 1), press('rollback', deployAt! + 3)]);
    expect(eventsOf(twice, 'rollback-done')).toEqual([deployAt! + 8]);
    expect(twice.slice(deployAt! + 3, deployAt! + 8).map((s) => s.detail.rollbackMinutesLeft)).toEqual([5, 4, 3, 2, 1]);
    for (let m = deployAt! + 1; m < deployAt! + 8; m++) expect(twice[m].detail.rollbackFleet).toBeGreaterThan(0);
  });
});

describe('web service: traffic surge', () => {
  it('the surge ramps over 8 minutes and the viral pages cool the cache by the drawn share meanwhile', () => {
    for (const seed of SEEDS) {
      const sh = shocksOf('traffic-surge', seed);
      const s0 = sh.surgeAt!;
      const snaps = play('traffic-surge', seed);
      expect(eventsOf(snaps, 'surge-start')).toEqual([s0]);
      expect(snaps[s0 + 7].detail.surgeFactor).toBeCloseTo(sh.surgeSize, 12);
      expect(snaps[s0 + 3].detail.surgeFactor).toBeCloseTo(surgeFactor(sh, s0 + 3), 12);
      expect(surgeFactor(sh, s0 + 3)).toBeLessThan(sh.surgeSize);
      // Warm falls by (1 − cold)^(1/8) each ramp minute (less the refill): by the end of the ramp below 1 − cold + 10 %.
      expect(snaps[s0 - 1].detail.warm).toBeGreaterThan(0.95);
      expect(snaps[s0].detail.warm).toBeLessThan(snaps[s0 - 1].detail.warm);
      expect(snaps[s0 + 8].detail.warm).toBeLessThan(1 - sh.surgeCold + 0.1);
    }
  });

  it('with an 8-minute boot, instances ordered at the surge serve 8 minutes later', () => {
    for (const seed of SEEDS) {
      const s0 = shocksOf('traffic-surge', seed).surgeAt!;
      const snaps = play('traffic-surge', seed, [set('minInstances', 20, s0 + 1)]);
      expect(snaps[s0 + 1].indicators.instancesBooting).toBeGreaterThanOrEqual(10);
      expect(snaps[s0 + 8].indicators.instancesServing).toBeLessThan(20);
      expect(snaps[s0 + 9].indicators.instancesServing).toBeGreaterThanOrEqual(20);
    }
  });

  it('bots follow the link: a crawler’s requests all miss the cache, shedding takes them away, they carry no revenue', () => {
    for (const seed of SEEDS) {
      const drawn = shocksOf('traffic-surge', seed);
      expect(drawn.crawlAt! - drawn.surgeAt!).toBeGreaterThanOrEqual(12);
      expect(drawn.crawlAt! - drawn.surgeAt!).toBeLessThanOrEqual(20);
    }
    {
      // Noise off (the draws' means); fleet and cache ready for the surge, so only the crawler moves.
      const seed = 1;
      const sh = createRound(webService, { scenario: 'traffic-surge', seed, noise: false }).shocks;
      const c = sh.crawlAt!;
      const ready = [set('minInstances', 30, sh.surgeAt! + 1), press('warmUp', sh.surgeAt! + 8)];
      const snaps = play('traffic-surge', seed, ready, false);
      const shed = play('traffic-surge', seed, [...ready, set('shedLowPriority', 1, c + 1)], false);
      expect(eventsOf(snaps, 'crawler-start')).toEqual([c]);
      expect(eventsOf(snaps, 'crawler-end')).toEqual([sh.crawlEndAt]);
      const full = c + sh.crawlRamp;
      expect(snaps[full].indicators.requestsPerSec - snaps[c - 1].indicators.requestsPerSec).toBeGreaterThan(
        0.5 * crawlRate(sh, full),
      );
      expect(snaps[full].indicators.cacheHitRatio).toBeLessThan(snaps[c - 1].indicators.cacheHitRatio - 0.15);
      expect(snaps[full].indicators.dbLoad).toBeGreaterThan(snaps[c - 1].indicators.dbLoad + 0.3);
      expect(shed[full].indicators.dbLoad).toBeLessThan(snaps[c - 1].indicators.dbLoad);
      // Shedding everything low-priority while the crawler runs costs only the regular low-priority traffic's value.
      const lost = shed[full].indicators.lostToShedding - shed[full - 1].indicators.lostToShedding;
      const regularLow = 0.3 * (shed[full].indicators.requestsPerSec - crawlRate(sh, full)) * 60;
      expect(lost).toBeCloseTo(regularLow * 0.5 * 0.000005, 6);
    }
  });
});

describe('web service: cache flush', () => {
  it('the release’s script empties the cache as it rolls out, then again every few minutes until rolled back', () => {
    for (const seed of SEEDS) {
      const sh = shocksOf('cache-flush', seed);
      const d = sh.deployAt!;
      expect(sh.buildErrors).toBe(false);
      expect(sh.flushEvery).toBeGreaterThanOrEqual(10);
      const left = play('cache-flush', seed);
      const expected = [d];
      for (let m = d + sh.flushEvery!; m <= 60; m += sh.flushEvery!) expected.push(m);
      expect(eventsOf(left, 'cache-flush')).toEqual(expected);
      expect(eventsOf(left, 'deploy')).toEqual([d]);
      // 20 % of the cache per minute of rollout: warm at the start of d … d + 4 is 0.8, 0.6, … of before, then 0.
      const before = left[d - 1].detail.warm;
      expect(left[d].detail.warm).toBeCloseTo(0.8 * before, 2);
      expect(left[d + 4].detail.warm).toBe(0);
      // This release carries no error of its own: with the feature off nothing fails during the rollout.
      const off = play('cache-flush', seed, [set('heavyFeature', false, d + 1)]);
      for (let m = d + 1; m < d + sh.flushEvery!; m++) expect(off[m].indicators.errorRate).toBe(0);
      // Rolled back in time, the script never runs again.
      const rb = play('cache-flush', seed, [press('rollback', d + 1)]);
      expect(eventsOf(rb, 'cache-flush')).toEqual([d]);
    }
  });

  it('warm-up pressed on a saturated database makes it worse; with the feature off it refills without errors', () => {
    for (const seed of SEEDS) {
      const d = shocksOf('cache-flush', seed).deployAt!;
      const left = play('cache-flush', seed, [press('rollback', d + 1)]);
      const warm = play('cache-flush', seed, [press('rollback', d + 1), press('warmUp', d + 5)]);
      expect(warm[d + 5].indicators.dbLoad).toBeGreaterThan(left[d + 5].indicators.dbLoad + 0.1);
      expect(warm[d + 5].indicators.errorRate).toBeGreaterThan(left[d + 5].indicators.errorRate);
      const calm = play('cache-flush', seed, [
        press('rollback', d + 1),
        set('heavyFeature', false, d + 1),
        press('warmUp', d + 6),
      ]);
      for (let m = d + 6; m <= d + 12; m++) expect(calm[m].indicators.errorRate).toBeLessThan(0.001);
      expect(calm[d + 13].indicators.cacheHitRatio).toBeGreaterThan(left[d + 13].indicators.cacheHitRatio + 0.4);
    }
  });
});

describe('web service: full shifts', () => {
  it('launch day: four shocks, one per role, at drawn minutes; the eviction storm empties its share over 8 minutes', () => {
    for (const seed of SEEDS) {
      const sh = shocksOf('launch-day', seed);
      const snaps = play('launch-day', seed);
      for (const [kind, at] of [
        ['surge-start', sh.surgeAt],
        ['crawler-start', sh.crawlAt],
        ['deploy', sh.deployAt],
        ['cache-flush', sh.flushAt],
      ] as const) {
        expect(eventsOf(snaps, kind), kind).toEqual([at]);
      }
      expect(sh.flushAt).toBeGreaterThanOrEqual(45);
      const f = sh.flushAt!;
      // Each eviction minute keeps (1 − depth)^(1/8) of the cache (the refill adds a little back).
      expect(sh.flushRamp).toBe(8);
      const step = (1 - sh.flushDepth) ** (1 / 8);
      expect(snaps[f + 1].detail.warm / snaps[f].detail.warm).toBeGreaterThan(step);
      expect(snaps[f + 1].detail.warm / snaps[f].detail.warm).toBeLessThan(step + 0.02);
    }
  });

  it('failover: the database hands over to a small replica over 5 minutes and back; a longer TTL carries it', () => {
    for (const seed of SEEDS) {
      const sh = shocksOf('failover', seed);
      const a = sh.dbAt!;
      expect(sh.crawlAt! - sh.dbEndAt!).toBeGreaterThanOrEqual(3);
      const left = play('failover', seed);
      expect(eventsOf(left, 'db-failover')).toEqual([a]);
      expect(eventsOf(left, 'db-restored')).toEqual([sh.dbEndAt]);
      expect(left[a].detail.dbCapacityQps).toBeCloseTo(dbCapacity(sh, a), 9);
      expect(left[a + 4].detail.dbCapacityQps).toBeCloseTo(DB_CAPACITY_QPS * sh.dbShare, 9);
      expect(left[sh.dbEndAt! + 2].detail.dbCapacityQps).toBe(DB_CAPACITY_QPS);
      expect(left[a + 5].indicators.dbLoad).toBeGreaterThan(1);
      const ttl = play('failover', seed, [set('cacheTtlS', 200, a + 1)]);
      expect(ttl[a + 5].indicators.dbLoad).toBeLessThan(0.9);
      expect(ttl[a + 5].indicators.errorRate).toBeLessThan(0.001);
      // A crawler comes after the primary is back, big enough to saturate even the full database.
      expect(sh.crawlRate).toBeGreaterThanOrEqual(1.2 * BASE_RATE);
    }
  });
});

describe('web service: the product launch’s surges', () => {
  it('one small and one large, in the seed’s order, each announced with its size and the minutes until it starts', () => {
    const order = new Set<string>();
    for (const seed of SEEDS) {
      const states = launchStates(seed);
      const surges = states[0].episodes.episodes.filter((e) => e.kind === 'surge');
      expect(surges).toHaveLength(2);
      const sizes = surges.map((e) => e.size);
      const small = sizes.filter((x) => x >= 1.7 && x <= 2.1);
      const large = sizes.filter((x) => x >= 3 && x <= 3.8);
      expect([small.length, large.length]).toEqual([1, 1]);
      order.add(sizes[0] < 3 ? 'small first' : 'large first');
      const announced = states.flatMap((s) => s.snapshot.events.filter((e) => e.kind === 'surge-announced'));
      expect(announced.map((e) => e.size)).toEqual(sizes.map((x) => Math.round(x * 10) / 10));
      // The banner's minutes are exact: the surge starts that many minutes after the minute it shows, 6–8 ahead.
      const at = states.filter((s) => s.snapshot.events.some((e) => e.kind === 'surge-announced'));
      const starts = states.filter((s) => s.snapshot.events.some((e) => e.kind === 'surge-start'));
      expect(
        at.map((s) => s.snapshot.minute + (s.snapshot.events.find((e) => e.kind === 'surge-announced')?.in as number)),
      ).toEqual(starts.map((s) => s.snapshot.minute));
      for (const e of announced) expect(e.in).toBeGreaterThanOrEqual(6);
      for (const e of announced) expect(e.in).toBeLessThanOrEqual(8);
    }
    expect(order.size).toBe(2);
  });
});

describe('web service: the product launch’s release train', () => {
  it('seven builds in a drawn order, five of them bad, each bad one failing a drawn 10–16 % of its answers', () => {
    for (const seed of SEEDS) {
      const { builds } = launchStates(seed)[0].episodes;
      expect(builds).toHaveLength(7);
      expect(builds.filter((b) => b.bad)).toHaveLength(5);
      for (const b of builds) {
        if (b.bad) expect(b.error).toBeGreaterThanOrEqual(0.1);
        expect(b.error).toBeLessThanOrEqual(b.bad ? 0.16 : 0);
      }
      for (let k = 1; k < builds.length; k++) expect(builds[k].at - builds[k - 1].at).toBeGreaterThanOrEqual(6);
    }
    // The order is the seed's: not every seed starts with the same kind of build.
    expect(new Set(SEEDS.map((seed) => launchStates(seed)[0].episodes.builds[0].bad)).size).toBe(2);
  });

  // A seed whose first build is good, and one whose first is bad (the order is the seed's).
  const opening = (bad: boolean): number => {
    const seed = SEEDS.find((x) => launchStates(x)[0].episodes.builds[0].bad === bad);
    if (seed === undefined) throw new Error(`no seed opens with a ${bad ? 'bad' : 'good'} build`);
    return seed;
  };

  it('a good build is promoted without an error; a bad one fails its share, gets worse and holds the train', () => {
    const good = launchStates(opening(false));
    const g = deploys(good)[0];
    expect(good[g].episodes.builds[good[g].train.current!].bad).toBe(false);
    expect(good[g].snapshot.indicators.errorRate).toBe(0);
    expect(good[g + 6].snapshot.events.map((e) => e.kind)).toContain('deploy-done');
    const bad = launchStates(opening(true));
    const b = deploys(bad)[0];
    const build = bad[b].episodes.builds[bad[b].train.current!];
    expect(build.bad).toBe(true);
    expect(bad[b].snapshot.indicators.errorRate).toBeCloseTo(0.2 * build.error, 6);
    // Left in place it reaches every answer, then gets worse; nothing else ships behind it.
    expect(bad[b + 12].snapshot.indicators.badBuildShare).toBe(1);
    expect(deploys(bad)).toEqual([b]);
  });

  it('a rolled-back bad build is gone; a rolled-back good build has to ship again', () => {
    // Roll back the first build the minute after it shows: the switch comes 5 minutes later, the train pauses 3.
    const badSeed = opening(true);
    const bad = launchStates(badSeed, [press('rollback', deploys(launchStates(badSeed))[0] + 1)]);
    const [b1, b2] = deploys(bad);
    expect(bad[b2].train.current).toBe(bad[b1].train.current! + 1);
    const goodSeed = opening(false);
    const good = launchStates(goodSeed, [press('rollback', deploys(launchStates(goodSeed))[0] + 1)]);
    const [g1, g2] = deploys(good);
    expect(g2).toBe(g1 + 1 + 5 + 3);
    expect(good[g2].train.current).toBe(good[g1].train.current);
  });
});
