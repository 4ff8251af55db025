// Payment switch: the dynamics the crises teach — the retry storm that outlives late capacity and what
// breaks it, the fraud threshold trade-off, and one slow issuer filling every slot. Noise off, so the
// figures are the model's expected values (the model page quotes them).
import { describe, expect, it } from 'vitest';
import { runRound } from '../../shared/sim/engine.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';
import type { ControlValue, ScheduledChange, Snapshot } from '../../shared/sim/types.ts';

function play(scenario: string, sets: [string, ControlValue, number][], noise = false, seed = 1): Snapshot[] {
  const changes: ScheduledChange[] = sets.map(([key, value, minute]) => ({ key, value, minute }));
  return runRound(paymentSwitch, { scenario, seed, noise, minutes: 60, changes }).snapshots;
}
const ind = (s: Snapshot[], m: number) => s[m].indicators;
const mean = (s: Snapshot[], key: string, from: number, to: number) => {
  let sum = 0;
  for (let m = from; m <= to; m++) sum += s[m].indicators[key];
  return sum / (to - from + 1);
};

describe('sale surge: the retry storm', () => {
  const alone = play('sale-surge', []);

  it('left alone, retries lock the switch: offered load near 3.7× the new traffic, nothing approved', () => {
    expect(ind(alone, 6).queueDropShare).toBeGreaterThan(0.1); // 653 tx/s against ~582 of capacity
    for (let m = 12; m <= 49; m++) {
      expect(ind(alone, m).offeredTps).toBeGreaterThan(3.4 * ind(alone, m).newTps);
      expect(ind(alone, m).goodApproval).toBeLessThan(0.01);
      expect(alone[m].status.goodApproval).toBe('critical');
    }
    // 800 tx/s × (1 + 0.95 + 0.95² + 0.95³) ≈ 2968 tx/s: every attempt fails and is retried to the cap.
    expect(ind(alone, 30).offeredTps).toBeCloseTo(800 * (1 + 0.95 + 0.95 ** 2 + 0.95 ** 3), 0);
    expect(ind(alone, 30).awaitingRetry).toBeGreaterThan(100_000);
    expect(ind(alone, 30).authTimeMs).toBeGreaterThan(800);
  });

  it('outlives servers added late: 10 servers (enough for the sale) ready at minute 25 do not end it', () => {
    const late = play('sale-surge', [['servers', 10, 20]]);
    expect(ind(late, 25).serversInService).toBe(10);
    // 10 servers would carry 800 tx/s at 82 % busy, yet the storm holds until the sale ends.
    for (let m = 30; m <= 49; m++) {
      expect(ind(late, m).offeredTps).toBeGreaterThan(2.9 * ind(late, m).newTps);
      expect(ind(late, m).goodApproval).toBeLessThan(0.5);
    }
    expect(mean(late, 'goodApproval', 5, 60)).toBeLessThan(0.45);
    const fresh = play('free', [['servers', 10, 0]]);
    expect(ind(fresh, 10).slotsBusy).toBeLessThan(0.5); // the same fleet at 400 tx/s is mostly idle
  });

  it('shedding breaks it: with the same late servers the storm is gone ten minutes later', () => {
    const shed = play('sale-surge', [
      ['servers', 10, 20],
      ['shedding', true, 20],
    ]);
    expect(ind(shed, 20).shedTps).toBeGreaterThan(1000); // the excess is answered at once instead of queueing
    expect(ind(shed, 20).goodApproval).toBeGreaterThan(0.4); // from 0 the minute before
    for (let m = 35; m <= 60; m++) {
      expect(ind(shed, m).retryTps).toBeLessThan(1);
      expect(ind(shed, m).goodApproval).toBeGreaterThan(0.998);
      expect(ind(shed, m).authTimeMs).toBeLessThan(340);
    }
    expect(shed[35].detail.retryStorm).toBe(0);
    expect(shed.some((s) => s.events.some((e) => e.kind === 'retry-storm-over'))).toBe(true);
  });

  it('switching to backoff as capacity is ordered breaks it; immediate retries keep it going', () => {
    const immediate = play('sale-surge', [['servers', 10, 6]]);
    const backoff = play('sale-surge', [
      ['servers', 10, 6],
      ['retryPolicy', 'backoff', 6],
    ]);
    for (let m = 30; m <= 49; m++) {
      expect(ind(immediate, m).goodApproval).toBeLessThan(0.5);
      expect(ind(immediate, m).offeredTps).toBeGreaterThan(2.9 * ind(immediate, m).newTps);
      expect(ind(backoff, m).goodApproval).toBeGreaterThan(0.998);
      expect(ind(backoff, m).offeredTps).toBeLessThan(1.02 * ind(backoff, m).newTps);
    }
    expect(mean(immediate, 'goodApproval', 5, 60)).toBeLessThan(0.6);
    expect(mean(backoff, 'goodApproval', 5, 60)).toBeGreaterThan(0.97);
  });

  it('backoff spreads the same retries over later minutes; it does not remove them', () => {
    // One minute of overload, then enough capacity: the failed attempts come back later, not fewer.
    const immediate = play('sale-surge', [['servers', 24, 1]]);
    const backoff = play('sale-surge', [
      ['servers', 24, 1],
      ['retryPolicy', 'backoff', 1],
    ]);
    expect(ind(immediate, 6).queueDropShare).toBe(0); // servers ready at minute 6: no storm at all
    expect(ind(backoff, 60).goodLostSoFar).toBeCloseTo(ind(immediate, 60).goodLostSoFar, 0);
  });
});

describe('fraud wave: the threshold trade-off', () => {
  it('ten times more fraud: lowering the threshold stops fraud but declines good customers; step-up buys both', () => {
    const defaults = play('fraud-wave', []);
    const low = play('fraud-wave', [['fraudThreshold', 2.1, 6]]); // 3σ − ln 10 / d′ ≈ 2.1σ
    const stepUp = play('fraud-wave', [
      ['fraudThreshold', 2.7, 6],
      ['stepUpBand', 1.4, 6],
    ]);
    expect(ind(defaults, 10).fraudRateBp).toBeGreaterThan(100);
    expect(defaults[10].status.fraudRateBp).toBe('critical');
    // Fraud passing falls from Φ(0.5) ≈ 69 % to Φ(−0.4) ≈ 34 %.
    expect(ind(low, 10).fraudRateBp).toBeLessThan(0.55 * ind(defaults, 10).fraudRateBp);
    expect(ind(low, 10).goodDeclinedByRule).toBeGreaterThan(0.015); // 1 − Φ(2.1) ≈ 1.8 %
    expect(ind(stepUp, 10).fraudRateBp).toBeLessThan(25);
    expect(ind(stepUp, 10).goodDeclinedByRule).toBeLessThan(0.005);
    expect(ind(stepUp, 10).goodApproval).toBeGreaterThan(0.98);
    expect(ind(stepUp, 10).stepUpShare).toBeGreaterThan(0.08);
    expect(ind(stepUp, 60).fraudApprovedSoFar).toBeLessThan(ind(defaults, 60).fraudApprovedSoFar / 3);
  });
});

describe('issuer outage: one slow issuer fills every slot', () => {
  it("slots fill as group B slows (Little's law) and the healthy issuers' customers are lost with B's", () => {
    const alone = play('issuer-outage', []);
    expect(ind(alone, 4).slotsBusy).toBeLessThan(0.7);
    expect(ind(alone, 5).slotsBusy).toBe(1);
    expect(ind(alone, 5).healthyApproval).toBeLessThan(0.01);
    expect(mean(alone, 'healthyApproval', 1, 60)).toBeLessThan(0.1);
  });
  it('with room to spare, busy slots climb with group B latency minute by minute', () => {
    // 24 servers from minute 5 and a 2 s timeout: B's wobble (noise on) moves the busy share with it.
    const roomy = play(
      'issuer-outage',
      [
        ['servers', 24, 0],
        ['issuerTimeoutS', 2, 0],
      ],
      true,
      4,
    );
    const pairs = roomy.slice(6).map((s) => [s.indicators.groupBLatencyMs, s.indicators.slotsBusy]);
    const sorted = [...pairs].sort((a, b) => a[0] - b[0]);
    // Not exact (arrivals vary too), but the slowest-B minutes are busier than the fastest ones.
    const avg = (xs: number[][]) => xs.reduce((s, p) => s + p[1], 0) / xs.length;
    expect(avg(sorted.slice(-10))).toBeGreaterThan(avg(sorted.slice(0, 10)));
    const normalDay = play('free', [
      ['servers', 24, 0],
      ['issuerTimeoutS', 2, 0],
    ]);
    for (let m = 6; m <= 60; m++) expect(ind(roomy, m).slotsBusy).toBeGreaterThan(ind(normalDay, m).slotsBusy + 0.15);
  });
  it('a short timeout frees the slots; stand-in serves group B at a price in exposure', () => {
    const base: [string, ControlValue, number][] = [
      ['issuerTimeoutS', 1, 6],
      ['servers', 9, 6],
      ['shedding', true, 6],
    ];
    const shortOnly = play('issuer-outage', base);
    const withStandIn = play('issuer-outage', [...base, ['standInLimit', 60, 6]]);
    expect(ind(shortOnly, 30).slotsBusy).toBeLessThan(0.95);
    expect(ind(withStandIn, 30).standInTps).toBeGreaterThan(50);
    expect(ind(withStandIn, 60).standInExposure).toBeGreaterThan(4e6);
    expect(ind(shortOnly, 60).standInExposure).toBe(0);
    expect(mean(withStandIn, 'goodApproval', 6, 60)).toBeGreaterThan(mean(shortOnly, 'goodApproval', 6, 60));
  });
});
