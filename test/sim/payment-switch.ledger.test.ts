// Payment switch: the team's ledger (u). Each line is its constant times the minute's flow; the
// threshold the ledger prefers in steady state is the debrief's analytic cost-optimal threshold; and no
// control at an extreme is free.
import { describe, expect, it } from 'vitest';
import { runRound } from '../../shared/sim/engine.ts';
import { lognormalMean } from '../../shared/sim/math.ts';
import {
  AMOUNT_SIGMA,
  BASE_FRAUD_SHARE,
  COST_PER_SERVER_HOUR,
  D_PRIME,
  FRAUD_AMOUNT_MU,
  FRAUD_LIABILITY,
  MARGIN_PER_TX,
  STAND_IN_LOSS,
  STEP_UP_COST,
} from '../../shared/sim/payment-switch/constants.ts';
import { FRAUD_WAVE } from '../../shared/sim/payment-switch/scenarios.ts';
import { paymentSwitch, type PaymentSwitchState } from '../../shared/sim/payment-switch/index.ts';
import type { ControlChange } from '../../shared/sim/types.ts';

/** The ledger's increase (server bill excluded: it does not depend on the threshold) in minute `minute`, noise off. */
function minuteCost(scenario: string, threshold: number, minute: number): number {
  // The model's own create/step, without the engine's grid check: the threshold is swept finer than its 0.1 step.
  const changes: ControlChange[] = [{ key: 'fraudThreshold', value: threshold }];
  let s = paymentSwitch.create({ scenario, seed: 1, noise: false, changes }) as PaymentSwitchState;
  for (let m = 1; m < minute; m++) s = paymentSwitch.step(s, []);
  const before = s.snapshot.indicators;
  const after = paymentSwitch.step(s, []).snapshot.indicators;
  return after.ledgerTotal - after.costSoFar - (before.ledgerTotal - before.costSoFar);
}

/**
 * The debrief's rule: decline when the likelihood ratio f₁(x)/f₀(x) = e^(d′x − d′²/2) exceeds the cost
 * ratio weighted by the base rate, (1 − π)/π · M/C_f, with M the margin of a good customer and C_f what an
 * approved fraud costs (its liability share of the mean fraud amount).
 */
function analyticThreshold(pi: number): number {
  const cf = FRAUD_LIABILITY * lognormalMean(FRAUD_AMOUNT_MU, AMOUNT_SIGMA);
  return D_PRIME / 2 + Math.log(((1 - pi) / pi) * (MARGIN_PER_TX / cf)) / D_PRIME;
}

function argminThreshold(scenario: string, minute: number, lo: number, hi: number): number {
  let best = lo;
  let bestCost = Infinity;
  for (let t = lo; t <= hi + 1e-9; t += 0.01) {
    const c = minuteCost(scenario, Math.round(t * 100) / 100, minute);
    if (c < bestCost) [best, bestCost] = [Math.round(t * 100) / 100, c];
  }
  return best;
}

describe('the threshold the ledger prefers is the analytic cost-optimal threshold', () => {
  it('normal base rate (0.1 %): about 3.0σ, the default "set for normal days"', () => {
    const t = analyticThreshold(BASE_FRAUD_SHARE);
    expect(t).toBeCloseTo(3.007, 3);
    expect(argminThreshold('free', 5, 2.5, 3.5)).toBeCloseTo(t, 2);
  });
  it("the fraud wave's base rate (1 %): about 0.9σ lower (ln 10 / d′), about 2.1σ", () => {
    const t = analyticThreshold(FRAUD_WAVE.share);
    expect(t).toBeCloseTo(2.082, 3);
    expect(analyticThreshold(BASE_FRAUD_SHARE) - t).toBeCloseTo(Math.log(10) / D_PRIME, 2);
    expect(argminThreshold('fraud-wave', FRAUD_WAVE.start + 5, 1.6, 2.6)).toBeCloseTo(t, 2);
  });
  it('on the control grid (0.1σ steps) the ledger picks 3.0 on a normal day and 2.1 in the wave', () => {
    const grid = (scenario: string, minute: number) => {
      const ts = Array.from({ length: 26 }, (_, i) => Math.round((1.5 + i * 0.1) * 10) / 10);
      return ts.reduce((a, b) => (minuteCost(scenario, b, minute) < minuteCost(scenario, a, minute) ? b : a));
    };
    expect(grid('free', 5)).toBe(3);
    expect(grid('fraud-wave', 10)).toBe(2.1);
  });
});

describe('every line is its constant times the minute flow it prices', () => {
  const run = (
    changes: { minute: number; key: string; value: number | boolean | string }[],
    scenario = 'issuer-outage',
  ) => runRound(paymentSwitch, { scenario, seed: 4, noise: true, minutes: 30, changes }).snapshots;
  const snaps = run([
    { minute: 6, key: 'issuerTimeoutS', value: 1 },
    { minute: 6, key: 'standInLimit', value: 60 },
    { minute: 6, key: 'stepUpBand', value: 1.2 },
    { minute: 6, key: 'servers', value: 9 },
  ]);
  const d = (k: string, m: number) => snaps[m].indicators[k] - snaps[m - 1].indicators[k];
  it('customers: the margin of each good customer lost; fraud: the liability share of fraud approved', () => {
    for (const m of [3, 8, 20]) {
      expect(d('ledgerCustomers', m)).toBeCloseTo(MARGIN_PER_TX * d('goodLostSoFar', m), 9);
      expect(d('ledgerFraud', m)).toBeCloseTo(FRAUD_LIABILITY * d('fraudApprovedSoFar', m), 9);
    }
  });
  it("friction is paid per challenge; stand-in losses on the genuine part of the exposure; the bill is the seed's", () => {
    const m = 20;
    const attempts = snaps[m].indicators.offeredTps * 60;
    expect(d('ledgerFriction', m)).toBeGreaterThan(0);
    // Challenges are at most the screened attempts × the challenged share.
    expect(d('ledgerFriction', m) / STEP_UP_COST).toBeLessThanOrEqual(
      attempts * snaps[m].indicators.stepUpShare * 1.0001,
    );
    expect(d('ledgerStandIn', m)).toBeGreaterThan(0);
    expect(d('ledgerStandIn', m)).toBeLessThan(STAND_IN_LOSS * d('standInExposure', m));
    expect(snaps[30].indicators.costSoFar).toBeCloseTo((COST_PER_SERVER_HOUR / 60) * (6 * 5 + 9 * 25), 9);
  });
  it('the total is the sum of the lines at every minute, and nothing is counted at the opening', () => {
    for (const s of snaps) {
      const sum = paymentSwitch.ledger.items.reduce((a, k) => a + s.indicators[k], 0);
      expect(s.indicators.ledgerTotal).toBeCloseTo(sum, 9);
    }
    expect(snaps[0].indicators.ledgerTotal).toBe(0);
  });
});

describe('no control at an extreme is free (a calm hour, free play, seeds 1–3)', () => {
  const total = (changes: { key: string; value: number | boolean | string }[]) =>
    [1, 2, 3].map(
      (seed) =>
        runRound(paymentSwitch, {
          scenario: 'free',
          seed,
          noise: true,
          minutes: 60,
          changes: changes.map((c) => ({ minute: 0, ...c })),
        }).snapshots[60].indicators.ledgerTotal,
    );
  const calm = total([]);
  it.each([
    { name: '24 servers', changes: [{ key: 'servers', value: 24 }] },
    { name: 'threshold 0.5σ', changes: [{ key: 'fraudThreshold', value: 0.5 }] },
    { name: 'threshold 5σ', changes: [{ key: 'fraudThreshold', value: 5 }] },
    { name: 'step-up band 3σ', changes: [{ key: 'stepUpBand', value: 3 }] },
    {
      name: 'timeout 0.5 s with stand-in up to 1000 u',
      changes: [
        { key: 'issuerTimeoutS', value: 0.5 },
        { key: 'standInLimit', value: 1000 },
      ],
    },
  ])('$name costs more than the defaults, by at least 10 % of a calm hour', ({ changes }) => {
    const t = total(changes);
    for (let i = 0; i < 3; i++) expect(t[i] - calm[i]).toBeGreaterThan(0.1 * calm[i]);
  });
});
