// Payment switch: the semantics of states and minutes — purity, noise, servers, scenario events,
// retry cohorts, stand-in amounts, Little's law — checked against hand computations from the spec.
import { describe, expect, it } from 'vitest';
import { ControlError } from '../../shared/sim/controls.ts';
import { createRound, runRound, stepRound } from '../../shared/sim/engine.ts';
import { expectedMinExp, expTail, lognormalPartialMean, normalCdf } from '../../shared/sim/math.ts';
import { simulateMinute, type MinuteInputs } from '../../shared/sim/payment-switch/flows.ts';
import { paymentSwitch, type PaymentSwitchState } from '../../shared/sim/payment-switch/index.ts';
import {
  emptyRetries,
  rowOf,
  schedule,
  takeDue,
  waiting,
  ISSUER_FAILED,
} from '../../shared/sim/payment-switch/retries.ts';
import type { ScheduledChange, Snapshot } from '../../shared/sim/types.ts';

const SCENARIOS = ['free', 'sale-surge', 'fraud-wave', 'issuer-outage'];

function run(scenario: string, seed: number, noise: boolean, changes: ScheduledChange[] = [], minutes = 60) {
  return runRound(paymentSwitch, { scenario, seed, noise, minutes, changes });
}
const at = (snaps: Snapshot[], m: number) => snaps[m].indicators;

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

function baseInputs(over: Partial<MinuteInputs> = {}): MinuteInputs {
  return {
    serversInService: 24,
    shedding: false,
    backoff: false,
    threshold: 3,
    band: 0,
    timeoutS: 8,
    standInLimit: 0,
    newCount: 24_000,
    fraudShare: 0.001,
    groupBMeanS: 0.25,
    scheduleRetries: true,
    ...over,
  };
}

describe('states are plain data, never mutated', () => {
  it('step leaves a frozen state untouched and returns a new one', () => {
    let s = createRound(paymentSwitch, { scenario: 'sale-surge', seed: 3, noise: true });
    for (let m = 1; m <= 8; m++) s = stepRound(paymentSwitch, s);
    const before = JSON.stringify(s);
    deepFreeze(s);
    const next = stepRound(paymentSwitch, s, [
      { key: 'servers', value: 12 },
      { key: 'retryPolicy', value: 'backoff' },
    ]);
    expect(JSON.stringify(s)).toBe(before);
    expect(next).not.toBe(s);
    expect(next.minute).toBe(9);
    expect(next.rng).not.toBe(s.rng);
    expect(next.controls).not.toBe(s.controls);
    expect(next.snapshot.controls).toMatchObject({ servers: 12, retryPolicy: 'backoff' });
    // A minute without a change shares the controls of the one before, in its state and its snapshot.
    const after = stepRound(paymentSwitch, next);
    expect(after.controls).toBe(next.controls);
    expect(after.snapshot.controls).toBe(next.controls);
  });
  it('a state survives JSON and steps to the same result', () => {
    let s = createRound(paymentSwitch, { scenario: 'issuer-outage', seed: 11, noise: true });
    for (let m = 1; m <= 7; m++)
      s = stepRound(paymentSwitch, s, m === 6 ? [{ key: 'retryPolicy', value: 'backoff' }] : []);
    const copy = JSON.parse(JSON.stringify(s)) as PaymentSwitchState;
    expect(copy).toEqual(s);
    expect(stepRound(paymentSwitch, copy)).toEqual(stepRound(paymentSwitch, s));
  });
});

describe('noise', () => {
  it('off: the generator is never drawn and every seed gives the same round', () => {
    for (const scenario of SCENARIOS) {
      const a = run(scenario, 1, false, [{ minute: 6, key: 'retryPolicy', value: 'backoff' }]);
      const b = run(scenario, 987654, false, [{ minute: 6, key: 'retryPolicy', value: 'backoff' }]);
      expect(a.final.rng.s).toBe(1);
      expect(b.final.rng.s).toBe(987654);
      expect(b.snapshots).toEqual(a.snapshots);
    }
  });
  it('the opening screen draws nothing even with noise on, and shows expected values', () => {
    const on = createRound(paymentSwitch, { scenario: 'sale-surge', seed: 42, noise: true });
    const off = createRound(paymentSwitch, { scenario: 'sale-surge', seed: 42, noise: false });
    expect(on.rng.s).toBe(42);
    expect(on.snapshot).toEqual(off.snapshot);
  });
  it('on: arrivals and group B latency vary by seed, within their spread', () => {
    const a = run('issuer-outage', 1, true);
    const b = run('issuer-outage', 2, true);
    expect(at(a.snapshots, 1).newTps).not.toBe(at(b.snapshots, 1).newTps);
    const lat = a.snapshots.slice(1).map((s) => s.indicators.groupBLatencyMs);
    for (const [i, l] of lat.entries()) {
      const base = i + 1 >= 5 ? 12_000 : 250;
      expect(l).toBeGreaterThanOrEqual(base * 0.85);
      expect(l).toBeLessThanOrEqual(base * 1.15);
    }
    expect(new Set(lat).size).toBe(lat.length); // a fresh wobble every minute
  });
});

describe('the opening screen (minute 0)', () => {
  it('applies changes before the screen, accumulates nothing and schedules nothing', () => {
    // Lowering at minute 0 removes serving servers at once: two servers cannot carry 400 tx/s.
    const s = createRound(paymentSwitch, {
      scenario: 'free',
      seed: 1,
      noise: true,
      changes: [{ key: 'servers', value: 2 }],
    }).snapshot;
    expect(s.indicators.serversInService).toBe(2);
    expect(s.indicators.queueDropShare).toBeGreaterThan(0.3);
    for (const k of ['costSoFar', 'standInExposure', 'fraudApprovedSoFar', 'goodLostSoFar', 'awaitingRetry'])
      expect(s.indicators[k]).toBe(0);
    expect(s.controls.servers).toBe(2);
    expect(s.events).toEqual([{ kind: 'control', key: 'servers', value: 2 }]);
  });
  it('servers added before the opening boot like any other (in service at minute 5)', () => {
    const r = run('free', 1, false, [{ minute: 0, key: 'servers', value: 8 }], 6);
    expect(at(r.snapshots, 0).serversInService).toBe(6);
    expect(at(r.snapshots, 0).serversBooting).toBe(2);
    expect(at(r.snapshots, 0).costRatePerHour).toBe(48);
    expect(at(r.snapshots, 4).serversBooting).toBe(2);
    expect(at(r.snapshots, 5).serversInService).toBe(8);
    expect(r.snapshots[5].events).toContainEqual({ kind: 'servers-ready', count: 2 });
  });
});

describe('servers (§10)', () => {
  it('boot 5 minutes, are billed while booting, and are ready with an event', () => {
    const r = run('free', 1, false, [{ minute: 3, key: 'servers', value: 10 }], 10);
    for (let m = 3; m <= 7; m++) {
      expect(at(r.snapshots, m).serversInService).toBe(6);
      expect(at(r.snapshots, m).serversBooting).toBe(4);
      expect(at(r.snapshots, m).costRatePerHour).toBe(60);
      expect(r.snapshots[m].detail.nextServerReadyIn).toBe(8 - m);
    }
    expect(at(r.snapshots, 8).serversInService).toBe(10);
    expect(at(r.snapshots, 8).serversBooting).toBe(0);
    expect(r.snapshots[8].events).toContainEqual({ kind: 'servers-ready', count: 4 });
    // 6 servers in minutes 1–2, 10 in minutes 3–10, 0.1 u per server-minute.
    expect(at(r.snapshots, 10).costSoFar).toBe(9.2);
  });
  it('lowering removes the newest booting servers first, then serving ones at once', () => {
    const r = run(
      'free',
      1,
      false,
      [
        { minute: 2, key: 'servers', value: 9 }, // 3 booting, ready at 7
        { minute: 3, key: 'servers', value: 12 }, // 3 more, ready at 8
        { minute: 4, key: 'servers', value: 8 }, // removes the 3 of minute 3 and 1 of minute 2
        { minute: 9, key: 'servers', value: 3 },
      ],
      10,
    );
    expect(at(r.snapshots, 4).serversInService).toBe(6);
    expect(at(r.snapshots, 4).serversBooting).toBe(2);
    expect(at(r.snapshots, 7).serversInService).toBe(8);
    expect(at(r.snapshots, 8).serversInService).toBe(8);
    expect(at(r.snapshots, 9).serversInService).toBe(3);
    expect(at(r.snapshots, 9).costRatePerHour).toBe(18);
  });
  it('cost so far is exact at the goal boundary (75 u = 750 server-minutes)', () => {
    const r = run('sale-surge', 1, false, [
      { minute: 1, key: 'servers', value: 12 },
      { minute: 11, key: 'servers', value: 13 },
      { minute: 51, key: 'servers', value: 12 },
    ]);
    // 12·10 + 13·40 + 12·10 = 760 server-minutes → 76 u; and the pure 12 × 60 − 10 → check integers.
    expect(at(r.snapshots, 60).costSoFar).toBe(76);
    const exact = run(
      'free',
      1,
      false,
      [
        { minute: 1, key: 'servers', value: 12 },
        { minute: 31, key: 'servers', value: 13 },
      ],
      60,
    );
    expect(at(exact.snapshots, 60).costSoFar).toBe((12 * 30 + 13 * 30) / 10);
  });
});

describe('scenario timelines and events', () => {
  it('sale: the target doubles at minute 5 and traffic follows with the 2-minute lag', () => {
    const r = run('sale-surge', 1, false);
    expect(at(r.snapshots, 4).newTps).toBe(400);
    for (let m = 5; m <= 49; m++) expect(at(r.snapshots, m).newTps).toBeCloseTo(400 * (2 - Math.exp(-(m - 4) / 2)), 9);
    expect(r.snapshots[5].detail.surge).toBeCloseTo(2 - Math.exp(-0.5), 12);
    expect(at(r.snapshots, 50).newTps).toBeLessThan(at(r.snapshots, 49).newTps);
    expect(r.snapshots[5].events).toContainEqual({ kind: 'sale-start' });
    expect(r.snapshots[50].events).toContainEqual({ kind: 'sale-end' });
  });
  it('fraud wave: 1 % fraud from minute 5 — the fraud rate follows the binormal formula', () => {
    const r = run('fraud-wave', 1, false);
    expect(r.snapshots[5].events).toEqual([{ kind: 'fraud-wave-start' }]);
    const pass = normalCdf(3 - 2.5);
    const fraud = 0.01 * pass * 60 * Math.exp(0.5);
    const genuine = 0.99 * normalCdf(3) * 40 * Math.exp(0.5);
    expect(at(r.snapshots, 5).fraudRateBp).toBeCloseTo((fraud / (fraud + genuine)) * 1e4, 6);
    expect(at(r.snapshots, 4).fraudRateBp).toBeCloseTo(at(r.snapshots, 0).fraudRateBp, 12);
  });
  it('issuer outage: group B at 12 s from minute 5, with its event and picture flag', () => {
    const r = run('issuer-outage', 1, false);
    expect(at(r.snapshots, 4).groupBLatencyMs).toBe(250);
    expect(at(r.snapshots, 5).groupBLatencyMs).toBe(12_000);
    expect(r.snapshots[5].events).toContainEqual({ kind: 'issuer-slow', group: 'B' });
    expect(r.snapshots[4].detail.groupBSlow).toBe(0);
    expect(r.snapshots[5].detail.groupBSlow).toBe(1);
  });
  it('stand-in shows as active in the picture when a limit is set', () => {
    const r = run('issuer-outage', 1, false, [{ minute: 6, key: 'standInLimit', value: 80 }], 6);
    expect(r.snapshots[5].detail.standInActive).toBe(0);
    expect(r.snapshots[6].detail.standInActive).toBe(1);
  });
});

describe('fraud screening (§3)', () => {
  it('threshold and step-up band: declined, challenged, stopped as the binormal model says', () => {
    const f = simulateMinute(baseInputs({ threshold: 2.6, band: 1.3, fraudShare: 0.01 }), emptyRetries());
    expect(f.goodDeclinedByRule).toBeCloseTo(1 - normalCdf(2.6), 15);
    const gChal = normalCdf(2.6) - normalCdf(1.3);
    const fChal = normalCdf(0.1) - normalCdf(-1.2);
    expect(f.stepUpShare).toBeCloseTo(0.99 * gChal + 0.01 * fChal, 12);
    expect(f.fraudStopped).toBeCloseTo(1 - normalCdf(0.1) + 0.95 * fChal, 12);
    // Without technical failures good approval is Φ(t − b) + 0.85 × challenged.
    expect(f.goodApproval).toBeCloseTo(normalCdf(1.3) + 0.85 * gChal, 9);
  });
});

describe('retry cohorts (§9)', () => {
  it('backoff: retry k lands j minutes later with P = e^(−(j−1)/m) − e^(−j/m), m = 1, 2, 4, and none is lost', () => {
    for (const [k, mean] of [1, 2, 4].entries()) {
      const cells = emptyRetries();
      const row = rowOf(1, ISSUER_FAILED, k + 1);
      schedule(cells, row, 100, true);
      let landed = 0;
      for (let j = 1; j <= 120; j++) {
        const due = takeDue(cells, row);
        expect(due).toBeCloseTo(100 * (Math.exp(-(j - 1) / mean) - Math.exp(-j / mean)), 12);
        landed += due;
      }
      // What has not landed after 120 minutes is still waiting: nothing disappears.
      expect(waiting(cells)).toBeCloseTo(100 * Math.exp(-120 / mean), 12);
      expect(landed + waiting(cells)).toBeCloseTo(100, 12);
    }
  });
  it('immediate lands all next minute; a backoff pool goes on landing beside it', () => {
    const cells = emptyRetries();
    const row = rowOf(1, ISSUER_FAILED, 3);
    schedule(cells, row, 100, false);
    schedule(cells, row, 50, true);
    schedule(cells, row, 0, false);
    expect(waiting(cells)).toBe(150);
    expect(takeDue(cells, row)).toBeCloseTo(100 + 50 * (1 - Math.exp(-1 / 4)), 12);
    expect(takeDue(cells, row)).toBeCloseTo(50 * Math.exp(-1 / 4) * (1 - Math.exp(-1 / 4)), 12);
    // Other rows were not touched.
    expect(takeDue(cells, rowOf(0, ISSUER_FAILED, 3))).toBe(0);
  });
  it('technical failures come back next minute with p = 0.95, keep their issuer group, and give up after 3 retries', () => {
    // Nearly every group-B attempt times out (T = 2 s vs 120 s), group A almost never (e^−8): B is retried.
    const ring = emptyRetries();
    const inp = baseInputs({ timeoutS: 2, groupBMeanS: 120 });
    const tauB = expTail(120, 2);
    const tauA = expTail(0.25, 2);
    const m1 = simulateMinute(inp, ring);
    const fwdB = 24_000 * 0.25 * (0.999 * normalCdf(3) + 0.001 * normalCdf(0.5));
    const fwdA = 3 * fwdB;
    expect(m1.awaitingRetry).toBeCloseTo(0.95 * (fwdB * tauB + fwdA * tauA), 6);
    const m2 = simulateMinute({ ...inp, newCount: 0 }, ring);
    expect(m2.retryTps * 60).toBeCloseTo(m1.awaitingRetry, 6);
    // Retried B attempts are not screened again and time out again: ~0.95·τ of them return.
    const m3 = simulateMinute({ ...inp, newCount: 0 }, ring);
    const m4 = simulateMinute({ ...inp, newCount: 0 }, ring);
    expect(m3.retryTps / m2.retryTps).toBeCloseTo(0.95 * tauB, 2);
    expect(m4.awaitingRetry).toBe(0); // third retries are final
    const m5 = simulateMinute({ ...inp, newCount: 0 }, ring);
    expect(m5.offeredTps).toBe(0);
  });
  it('in the outage, healthy issuers keep their approval while group B drags the total down', () => {
    const r = run('issuer-outage', 1, false, [
      { minute: 0, key: 'servers', value: 24 },
      { minute: 0, key: 'issuerTimeoutS', value: 2 },
    ]);
    const m = at(r.snapshots, 30);
    expect(m.queueDropShare).toBeLessThan(1e-6);
    expect(m.healthyApproval).toBeGreaterThan(0.998);
    // B's approval over up to 4 attempts of P(L ≤ 2 s) = 1 − e^(−1/6) each, 5 % giving up after each failure.
    const p = 1 - Math.exp(-2 / 12);
    const q = 0.95 * (1 - p);
    const bApproval = normalCdf(3) * p * (1 + q + q * q + q * q * q);
    expect(m.goodApproval).toBeCloseTo(0.75 * m.healthyApproval + 0.25 * bApproval, 2);
  });
  it('in a storm retries exceed new traffic, with its event', () => {
    const r = run('sale-surge', 1, false);
    const start = r.snapshots.findIndex((s) => s.events.some((e) => e.kind === 'retry-storm'));
    expect(start).toBeGreaterThan(5);
    expect(r.snapshots[start].indicators.retryTps).toBeGreaterThanOrEqual(0.5 * r.snapshots[start].indicators.newTps);
    expect(r.snapshots[20].detail.retryStorm).toBe(1);
  });
});

describe('issuer answers and stand-in (§7–8)', () => {
  it('stand-in approves the timed-out attempts under the limit, with the truncated lognormal volume', () => {
    const inp = baseInputs({ timeoutS: 1, groupBMeanS: 12, standInLimit: 80 });
    const f = simulateMinute(inp, emptyRetries());
    expect(f.queueDropShare).toBeLessThan(1e-9);
    const mu = Math.log(40);
    let volume = 0;
    let count = 0;
    for (const [share, m] of [
      [0.75, 0.25],
      [0.25, 12],
    ]) {
      const tau = expTail(m, 1);
      const g = 24_000 * share * 0.999 * normalCdf(3) * tau;
      const fr = 24_000 * share * 0.001 * normalCdf(0.5) * tau;
      volume += g * lognormalPartialMean(80, mu, 1) + fr * lognormalPartialMean(80, Math.log(60), 1);
      count += g * normalCdf(Math.log(80 / 40)) + fr * normalCdf(Math.log(80 / 60));
    }
    expect(f.standInVolume).toBeCloseTo(volume, 6);
    expect(f.standInTps).toBeCloseTo(count / 60, 9);
  });
  it('a retry of an "issuer unavailable" decline is over the limit: it is never stood in', () => {
    const ring = emptyRetries();
    const inp = baseInputs({ timeoutS: 1, groupBMeanS: 12, standInLimit: 80 });
    simulateMinute(inp, ring);
    const m2 = simulateMinute({ ...inp, newCount: 0 }, ring);
    expect(m2.retryTps).toBeGreaterThan(10);
    expect(m2.issuerTimeoutShare).toBeGreaterThan(0.5);
    expect(m2.standInTps).toBe(0);
    expect(m2.standInVolume).toBe(0);
  });
  it("the exposure so far adds each minute's stand-in volume", () => {
    const r = run('issuer-outage', 1, false, [
      { minute: 6, key: 'issuerTimeoutS', value: 1 },
      { minute: 6, key: 'standInLimit', value: 80 },
    ]);
    expect(at(r.snapshots, 5).standInExposure).toBe(0);
    expect(at(r.snapshots, 7).standInExposure).toBeGreaterThan(at(r.snapshots, 6).standInExposure);
  });
});

describe("slots and Little's law (§4–6)", () => {
  it('busy slots = λ·S / N, climbing as group B slows', () => {
    let prev = 0;
    for (const mB of [0.25, 0.5, 1, 2, 4, 8, 12]) {
      const f = simulateMinute(baseInputs({ groupBMeanS: mB, timeoutS: 15 }), emptyRetries());
      const phiG = 0.999 * normalCdf(3);
      const phiF = 0.001 * normalCdf(0.5);
      const hold = (m: number) => expectedMinExp(m, 15) + expTail(m, 15) * 0.08;
      const s = 0.08 + (phiG + phiF) * (0.75 * hold(0.25) + 0.25 * hold(mB));
      expect(f.slotsBusy).toBeCloseTo(Math.min(1, (400 * s) / (24 * 32)), 12);
      if (prev < 1) expect(f.slotsBusy).toBeGreaterThan(prev);
      prev = f.slotsBusy;
    }
    expect(prev).toBe(1); // at 12 s, S ≈ 2.4 s: 400 tx/s would need ~960 of the 768 slots
  });
  it('the issuer outage fills every slot of the 6 servers at minute 5', () => {
    const r = run('issuer-outage', 1, false);
    expect(at(r.snapshots, 4).slotsBusy).toBeCloseTo(0.687, 3);
    expect(at(r.snapshots, 5).slotsBusy).toBe(1);
    expect(at(r.snapshots, 5).authTimeMs).toBeGreaterThan(2000);
    expect(r.snapshots[5].status.slotsBusy).toBe('critical');
  });
});

describe('the engine guards the controls', () => {
  it('rejects out-of-range, off-step and mistyped values with ControlError and never clamps', () => {
    const s = createRound(paymentSwitch, { scenario: 'free', seed: 1, noise: false });
    const before = JSON.stringify(s);
    const bad: [string, unknown, string][] = [
      ['servers', 30, 'OUT_OF_RANGE'],
      ['servers', 1, 'OUT_OF_RANGE'],
      ['fraudThreshold', 2.55, 'OFF_STEP'],
      ['issuerTimeoutS', 0.4, 'OUT_OF_RANGE'],
      ['standInLimit', 1001, 'OUT_OF_RANGE'],
      ['shedding', 'yes', 'BAD_TYPE'],
      ['retryPolicy', 'never', 'BAD_TYPE'],
      ['capacity', 3, 'UNKNOWN_CONTROL'],
    ];
    for (const [key, value, code] of bad) {
      let err: unknown;
      try {
        stepRound(paymentSwitch, s, [{ key, value: value as number }]);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ControlError);
      expect((err as ControlError).code).toBe(code);
      expect((err as ControlError).key).toBe(key);
    }
    expect(JSON.stringify(s)).toBe(before);
    expect(() =>
      createRound(paymentSwitch, { scenario: 'free', seed: 1, noise: false, changes: [{ key: 'servers', value: 30 }] }),
    ).toThrow(ControlError);
  });
});
