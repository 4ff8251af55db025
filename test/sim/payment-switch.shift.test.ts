// Payment switch: the full shifts' shocks (drawn from the seed at creation, kept in the state, shown on the
// desk), the fraud that adapts to the threshold [design], and collapse reading as collapse.
import { describe, expect, it } from 'vitest';
import { createRound, runRound, stepRound } from '../../shared/sim/engine.ts';
import { D_PRIME } from '../../shared/sim/payment-switch/constants.ts';
import { paymentSwitch, type PaymentSwitchState } from '../../shared/sim/payment-switch/index.ts';
import {
  ADAPT_FLOOR,
  ADAPT_MARGIN,
  RECIPES,
  adaptWave,
  shiftConditions,
  type ShiftPlan,
} from '../../shared/sim/payment-switch/shift.ts';
import type { ScheduledChange } from '../../shared/sim/types.ts';
import { fromColumns, toColumns } from '../../shared/replay/columns.ts';

const SHIFTS = Object.keys(RECIPES);
const plan = (scenario: string, seed: number, noise = true) =>
  (createRound(paymentSwitch, { scenario, seed, noise }) as PaymentSwitchState).plan!;
const inRange = (x: number, [lo, hi]: readonly [number, number]) => x >= lo && x <= hi;

describe('shocks are drawn from the seed when the round is created', () => {
  it.each(SHIFTS)(
    '%s: every figure within its range, the same for the same seed, different across seeds',
    (scenario) => {
      const r = RECIPES[scenario];
      const seen = new Set<string>();
      for (let seed = 1; seed <= 40; seed++) {
        const p = plan(scenario, seed);
        expect(plan(scenario, seed)).toEqual(p);
        seen.add(JSON.stringify(p));
        if (r.surge) {
          expect(inRange(p.surge!.start, r.surge.start)).toBe(true);
          expect(inRange(p.surge!.end - p.surge!.start, r.surge.length)).toBe(true);
          expect(inRange(p.surge!.size, r.surge.size)).toBe(true);
          expect(inRange(p.surge!.start - p.surge!.warnAt, r.surge.warn)).toBe(true);
        }
        if (r.fraud) {
          expect(inRange(p.fraud!.share, r.fraud.share)).toBe(true);
          expect(inRange(p.fraud!.learnAt - p.fraud!.start, r.fraud.learn)).toBe(true);
        }
        if (r.outage) {
          expect(inRange(p.outage!.meanS, r.outage.meanS)).toBe(true);
          expect(inRange(p.outage!.end - p.outage!.start, r.outage.length)).toBe(true);
        }
        if (r.flash) expect(inRange(p.flash!.start - p.surge!.start, r.flash.after)).toBe(true);
        if (r.backlog) expect(p.backlog!.start).toBe(p.outage!.end);
      }
      expect(seen.size).toBeGreaterThan(35);
    },
  );
  it("noise off takes the middle of every range and draws nothing; the seed's levels draw nothing at creation", () => {
    const off = plan('sale-day', 5, false);
    expect(off).toEqual(plan('sale-day', 99, false));
    expect(off.surge).toMatchObject({ start: 11, size: 2.05 });
    expect(
      (createRound(paymentSwitch, { scenario: 'sale-day', seed: 5, noise: false }) as PaymentSwitchState).rng.s,
    ).toBe(5);
    for (const s of ['free', 'sale-surge', 'fraud-wave', 'issuer-outage']) {
      const st = createRound(paymentSwitch, { scenario: s, seed: 7, noise: true }) as PaymentSwitchState;
      expect(st.rng.s).toBe(7);
      expect(st.plan).toBeUndefined();
    }
  });
  it('the plan stays in the state and survives JSON', () => {
    let s = createRound(paymentSwitch, { scenario: 'issuer-trouble', seed: 3, noise: true }) as PaymentSwitchState;
    for (let m = 0; m < 12; m++) s = stepRound(paymentSwitch, s);
    const copy = JSON.parse(JSON.stringify(s)) as PaymentSwitchState;
    expect(stepRound(paymentSwitch, copy)).toEqual(stepRound(paymentSwitch, s));
  });
});

describe('every shock shows on the desk', () => {
  it.each(SHIFTS)('%s: its events come at the drawn minutes, and the indicators move with them', (scenario) => {
    for (const seed of [1, 2, 3]) {
      const { snapshots, final } = runRound(paymentSwitch, { scenario, seed, noise: true, minutes: 60 });
      const p = (final as PaymentSwitchState).plan!;
      const minuteOf = (kind: string) => snapshots.findIndex((s) => s.events.some((e) => e.kind === kind));
      if (p.surge) {
        expect(minuteOf('sale-announced')).toBe(p.surge.warnAt);
        expect(minuteOf('surge-start')).toBe(p.surge.start);
        expect(snapshots[p.surge.start + 4].indicators.newTps).toBeGreaterThan(
          1.3 * snapshots[p.surge.warnAt].indicators.newTps,
        );
      }
      if (p.flash) expect(minuteOf('flash-sale-start')).toBe(p.flash.start);
      if (p.fraud) {
        expect(minuteOf('card-testing-start')).toBe(p.fraud.start);
        expect(minuteOf('card-testing-over')).toBe(p.fraud.end);
      }
      if (p.outage) {
        expect(minuteOf('issuer-slow')).toBe(p.outage.start);
        expect(snapshots[p.outage.start + p.outage.ramp].indicators.groupBLatencyMs).toBeGreaterThan(
          0.8 * 1000 * p.outage.meanS,
        );
        expect(snapshots[p.outage.end].indicators.groupBLatencyMs).toBeLessThan(400);
      }
    }
  });
  it('card testers build up (a quadratic ramp), a failing issuer slows down geometrically', () => {
    const p: ShiftPlan = {
      fraud: { start: 10, end: 20, share: 0.02, learnAt: 14, ramp: 4 },
      outage: { start: 30, end: 40, meanS: 16, ramp: 4 },
    };
    expect(shiftConditions(p, 9).waveShare).toBe(0);
    expect(shiftConditions(p, 10).fraudShare - 0.001).toBeCloseTo(0.02 / 16, 12);
    expect(shiftConditions(p, 13).fraudShare - 0.001).toBeCloseTo(0.02, 12);
    expect(shiftConditions(p, 20).fraudShare).toBe(0.001);
    expect(shiftConditions(p, 31).groupBMeanS).toBeCloseTo(0.25 * 64 ** 0.5, 9);
    expect(shiftConditions(p, 33).groupBMeanS).toBeCloseTo(16, 9);
  });
});

describe('fraud adapts to the threshold in force [design]', () => {
  const p: ShiftPlan = { fraud: { start: 10, end: 30, share: 0.02, learnAt: 15, ramp: 2 } };
  it('nothing moves before the attackers have learnt, nor when the threshold leaves d′ unchallenged', () => {
    expect(adaptWave(p, 12, D_PRIME, 2.0)).toBe(D_PRIME);
    expect(adaptWave(p, 20, D_PRIME, 3.0)).toBe(D_PRIME);
  });
  it('after learning they move toward the threshold minus the margin, never below the floor; a new attack starts afresh', () => {
    let m = D_PRIME;
    for (let minute = 15; minute < 30; minute++) m = adaptWave(p, minute, m, 2.0);
    expect(m).toBeCloseTo(2.0 - ADAPT_MARGIN, 1);
    let low = D_PRIME;
    for (let minute = 15; minute < 30; minute++) low = adaptWave(p, minute, low, 0.5);
    expect(low).toBeGreaterThanOrEqual(ADAPT_FLOOR);
    expect(adaptWave(p, 30, low, 0.5)).toBe(D_PRIME);
  });
  it('in a round: a lowered threshold stops the attack at first, then the fraud rate creeps back', () => {
    const base = runRound(paymentSwitch, { scenario: 'sale-day', seed: 1, noise: false, minutes: 45 });
    const f = (base.final as PaymentSwitchState).plan!.fraud!;
    const changes: ScheduledChange[] = [{ minute: f.start + 1, key: 'fraudThreshold', value: 2.1 }];
    const r = runRound(paymentSwitch, { scenario: 'sale-day', seed: 1, noise: false, minutes: 45, changes });
    // Against doing nothing at the same minute: the lower threshold halves the fraud rate until the
    // attackers have learnt it, then the rate creeps back toward doing nothing's.
    const ratio = (m: number) => r.snapshots[m].indicators.fraudRateBp / base.snapshots[m].indicators.fraudRateBp;
    expect(ratio(f.learnAt)).toBeLessThan(0.6);
    expect(ratio(f.end - 1)).toBeGreaterThan(ratio(f.learnAt) + 0.2);
  });
});

describe('collapse reads as collapse', () => {
  it('half or more of the attempts failing: every headline is critical, none "normal" or "warning"', () => {
    const r = runRound(paymentSwitch, { scenario: 'sale-surge', seed: 1, noise: false, minutes: 30 });
    const collapsed = r.snapshots.filter((s) => s.indicators.goodApproval < 0.5);
    expect(collapsed.length).toBeGreaterThan(10);
    for (const s of collapsed)
      expect(Object.values(s.status)).toEqual(['critical', 'critical', 'critical', 'critical']);
  });
  it('a fraud rate with nothing approved is listed in `na` (shown "—"), its value stays 0, and the fraud goal skips it', () => {
    const r = runRound(paymentSwitch, {
      scenario: 'fraud-wave',
      seed: 1,
      noise: false,
      minutes: 30,
      changes: [{ minute: 10, key: 'servers', value: 2 }],
    });
    const empty = r.snapshots.filter((s) => s.na?.includes('fraudRateBp'));
    expect(empty.length).toBeGreaterThan(0);
    for (const s of empty) expect(s.indicators.fraudRateBp).toBe(0);
    expect(fromColumns(toColumns(r.snapshots))).toEqual(r.snapshots); // the replay's columns keep `na`
    expect(
      toColumns(runRound(paymentSwitch, { scenario: 'free', seed: 1, noise: false, minutes: 3 }).snapshots).na,
    ).toBeNull();
    const fraud = r.result.goals.find((g) => g.id === 'fraudRate')!;
    const counted = r.snapshots.filter((s) => s.minute >= 1 && !s.na?.includes('fraudRateBp'));
    expect(fraud.value).toBeCloseTo(counted.reduce((a, s) => a + s.indicators.fraudRateBp, 0) / counted.length, 9);
  });
});
