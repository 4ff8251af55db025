// Payment switch: properties over many random rounds (seeded generator: scenario, seed, noise and
// control changes by minute) and over the queue function's whole load range.
import { describe, expect, it } from 'vitest';
import { randomControlValue } from '../../shared/sim/controls.ts';
import { advanceTo, changesByMinute, createRound } from '../../shared/sim/engine.ts';
import { paymentSwitch, type PaymentSwitchState } from '../../shared/sim/payment-switch/index.ts';
import { queueMinute } from '../../shared/sim/payment-switch/queue.ts';
import { rngFromSeed, uniform, type Rng } from '../../shared/sim/rng.ts';
import type { ControlValue, ScheduledChange } from '../../shared/sim/types.ts';

const SHARES = [
  'goodApproval',
  'healthyApproval',
  'slotsBusy',
  'goodDeclinedByRule',
  'stepUpShare',
  'fraudStopped',
  'queueDropShare',
  'issuerTimeoutShare',
];
/** The running totals, as the model marks them (trend 'rising'). */
const CUMULATIVE = paymentSwitch.indicators.filter((i) => i.trend === 'rising').map((i) => i.key);
const SCENARIOS = paymentSwitch.scenarios.map((s) => s.id);

const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(uniform(r) * xs.length)];

/** A random valid value of a control, on its step grid. */
const randomValue = (r: Rng, key: string): ControlValue =>
  randomControlValue(paymentSwitch.controls.find((c) => c.key === key)!, () => uniform(r));

function randomChanges(r: Rng, minutes: number): ScheduledChange[] {
  const n = Math.floor(uniform(r) * 12);
  const out: ScheduledChange[] = [];
  for (let i = 0; i < n; i++) {
    const key = pick(r, paymentSwitch.controls).key;
    out.push({ minute: Math.floor(uniform(r) * (minutes + 1)), key, value: randomValue(r, key) });
  }
  return out.sort((a, b) => a.minute - b.minute);
}

describe('random rounds', () => {
  it('1,200 random control sequences: shares in [0, 1], totals never fall, nothing NaN or negative', () => {
    const gen = rngFromSeed(20240601);
    const problems: string[] = [];
    let minutesPlayed = 0;
    for (let round = 0; round < 1200 && problems.length < 5; round++) {
      const scenario = pick(gen, SCENARIOS);
      const seed = Math.floor(uniform(gen) * 0xffffffff);
      const noise = uniform(gen) < 0.75;
      const minutes = 30 + Math.floor(uniform(gen) * 31);
      const changes = randomChanges(gen, minutes);
      const byMinute = changesByMinute(changes);
      const first = createRound(paymentSwitch, { scenario, seed, noise, changes: byMinute.get(0) ?? [] });
      const where = (m: number) =>
        `${scenario} seed ${seed} noise ${noise} changes ${JSON.stringify(changes)} minute ${m}`;
      let prev: PaymentSwitchState = first;
      const check = (s: PaymentSwitchState) => {
        minutesPlayed++;
        const ind = s.snapshot.indicators;
        for (const [k, v] of Object.entries(ind))
          if (!Number.isFinite(v) || v < 0) problems.push(`${k} = ${v} at ${where(s.minute)}`);
        for (const k of SHARES) if (!(ind[k] <= 1)) problems.push(`${k} = ${ind[k]} > 1 at ${where(s.minute)}`);
        for (const k of s.snapshot.na ?? [])
          if (ind[k] !== 0 || !SHARES.concat('fraudRateBp').includes(k))
            problems.push(`na ${k} = ${ind[k]} at ${where(s.minute)}`);
        const items = paymentSwitch.ledger.items.reduce((sum, k) => sum + ind[k], 0);
        if (Math.abs(items - ind.ledgerTotal) > 1e-9 * Math.max(1, items))
          problems.push(`ledger ${ind.ledgerTotal} ≠ Σ ${items} at ${where(s.minute)}`);
        if (s.minute > 0) {
          for (const k of CUMULATIVE)
            if (ind[k] < prev.snapshot.indicators[k]) problems.push(`${k} fell at ${where(s.minute)}`);
        }
        for (const x of s.retries)
          if (!Number.isFinite(x) || x < 0) problems.push(`retry cohort ${x} at ${where(s.minute)}`);
        if (!noise && s.rng.s !== seed >>> 0) problems.push(`noise off drew at ${where(s.minute)}`);
        if (ind.serversInService < 2 || ind.serversInService + ind.serversBooting !== s.controls.servers)
          problems.push(
            `fleet ${ind.serversInService}+${ind.serversBooting} ≠ ${s.controls.servers} at ${where(s.minute)}`,
          );
        prev = s;
      };
      check(first);
      advanceTo(paymentSwitch, first, minutes, byMinute, check);
    }
    expect(problems).toEqual([]);
    expect(minutesPlayed).toBeGreaterThan(1200 * 30);
    expect(CUMULATIVE).toEqual([
      'costSoFar',
      'standInExposure',
      'fraudApprovedSoFar',
      'goodLostSoFar',
      ...paymentSwitch.ledger.items.filter((k) => k !== 'costSoFar'),
      'ledgerTotal',
    ]);
  });
});

describe('the queue (§6)', () => {
  it('the dropped share never falls as the offered load rises, stays in [0, 1] and is continuous', () => {
    const problems: string[] = [];
    for (const servers of [2, 3, 6, 9, 12, 24]) {
      for (const holdS of [0.08, 0.25, 0.33, 0.6, 1.2, 2.4, 6.5]) {
        const slots = servers * 32;
        const mu = slots / holdS;
        // From idle to beyond where goodput reaches 0 (μ/ω).
        const top = 1.2 * (mu / 0.3);
        let prev = queueMinute(0, holdS, slots);
        expect(prev.drop).toBe(0);
        const n = 4000;
        for (let i = 1; i <= n; i++) {
          const lambda = (top * i) / n;
          const q = queueMinute(lambda, holdS, slots);
          const at = `N = ${slots}, S = ${holdS}, λ = ${lambda}`;
          if (q.drop < prev.drop) problems.push(`drop fell ${prev.drop} → ${q.drop} at ${at}`);
          if (!(q.drop >= 0 && q.drop <= 1)) problems.push(`drop ${q.drop} at ${at}`);
          if (!(q.wait >= 0 && q.wait <= 2)) problems.push(`wait ${q.wait} at ${at}`);
          // No jumps: one step of top/4000 in load moves the share by little.
          if (q.drop - prev.drop > 0.02) problems.push(`jump ${prev.drop} → ${q.drop} at ${at}`);
          prev = q;
        }
        expect(prev.drop).toBe(1);
        // At the seam: just below and just above capacity agree.
        const below = queueMinute(mu * (1 - 1e-9), holdS, slots).drop;
        const above = queueMinute(mu * (1 + 1e-9), holdS, slots).drop;
        expect(Math.abs(above - below)).toBeLessThan(1e-6);
        expect(below).toBeCloseTo(Math.exp(-4), 6); // C → 1, decay → κ = 2/s over the 2 s timeout
      }
    }
    expect(problems).toEqual([]);
  });
  it('busy slots follow Little up to saturation and the wait is C / max(μ − λ, κ)', () => {
    const q = queueMinute(400, 0.33, 192);
    expect(q.busy).toBeCloseTo((400 * 0.33) / 192, 12);
    expect(queueMinute(1000, 0.33, 192).busy).toBe(1);
    expect(queueMinute(1000, 0.33, 192).wait).toBeCloseTo(0.5, 12);
  });
});
