// Formula tests for shared/sim/math.ts and rng.ts: each formula against an independent computation
// (direct sums, numeric integration, seeded Monte Carlo) or published values.
import { describe, expect, it } from 'vitest';
import {
  clamp,
  erlangB,
  erlangBFast,
  erlangC,
  erlangCFast,
  expectedMinExp,
  expTail,
  lognormalCdf,
  lognormalMean,
  lognormalPartialMean,
  normalCdf,
} from '../../shared/sim/math.ts';
import { arrivalCount, exponential, normal, poisson, rngFromSeed, uniform } from '../../shared/sim/rng.ts';

/** Erlang B from its definition, (aᴺ/N!) / Σₖ aᵏ/k!, summed in log space so large N does not overflow. */
function erlangBDirect(a: number, n: number): number {
  const logTerms: number[] = [];
  let logFact = 0;
  for (let k = 0; k <= n; k++) {
    if (k > 0) logFact += Math.log(k);
    logTerms.push(k * Math.log(a) - logFact);
  }
  const max = Math.max(...logTerms);
  let sum = 0;
  for (const t of logTerms) sum += Math.exp(t - max);
  return Math.exp(logTerms[n] - max) / sum;
}

/** Erlang C from its definition: (aᴺ/N!)·N/(N−a) / (Σ_{k<N} aᵏ/k! + (aᴺ/N!)·N/(N−a)). */
function erlangCDirect(a: number, n: number): number {
  const logTerms: number[] = [];
  let logFact = 0;
  for (let k = 0; k <= n; k++) {
    if (k > 0) logFact += Math.log(k);
    logTerms.push(k * Math.log(a) - logFact);
  }
  logTerms[n] += Math.log(n / (n - a));
  const max = Math.max(...logTerms);
  let sum = 0;
  for (const t of logTerms) sum += Math.exp(t - max);
  return Math.exp(logTerms[n] - max) / sum;
}

/** Composite Simpson's rule on [lo, hi] with `n` (even) intervals. */
function simpson(f: (x: number) => number, lo: number, hi: number, n = 20000): number {
  const h = (hi - lo) / n;
  let s = f(lo) + f(hi);
  for (let i = 1; i < n; i++) s += (i % 2 === 1 ? 4 : 2) * f(lo + i * h);
  return (s * h) / 3;
}

const relErr = (x: number, ref: number) => Math.abs(x - ref) / Math.abs(ref);

describe('normalCdf', () => {
  // Reference values: Φ(x) = erfc(−x/√2)/2 from the C library's erfc (standard tables agree to their digits).
  const known: [number, number][] = [
    [0, 0.5],
    [0.5, 0.6914624612740131],
    [1, 0.8413447460685429],
    [1.96, 0.9750021048517795],
    [2.5, 0.9937903346742238],
    [3, 0.9986501019683699],
    [-1, 0.15865525393145707],
    [-3, 0.0013498980316300957],
    [-5, 2.866515718791946e-7],
    [-8, 6.220960574271819e-16],
  ];
  it.each(known)('Φ(%f) = %f', (x, p) => {
    expect(Math.abs(normalCdf(x) - p)).toBeLessThan(1e-14);
    // In the lower tail the relative error matters too (fraud rates live there, above −7σ; beyond
    // it the approximation's continued fraction is good to ~1e-8 relative, far below any shown digit).
    if (x < 0) expect(relErr(normalCdf(x), p)).toBeLessThan(x >= -7 ? 1e-9 : 1e-7);
  });
  it('is symmetric and monotone', () => {
    let prev = 0;
    for (let x = -10; x <= 10; x += 0.01) {
      const p = normalCdf(x);
      expect(p).toBeGreaterThanOrEqual(prev);
      expect(Math.abs(p + normalCdf(-x) - 1)).toBeLessThan(1e-15);
      prev = p;
    }
    expect(normalCdf(40)).toBe(1);
    expect(normalCdf(-40)).toBe(0);
  });
});

describe('Erlang B and C', () => {
  it('matches published table values', () => {
    // Erlang B tables: 10 erlangs on 10 lines → 0.2146; 5 erlangs on 10 lines → 0.0184.
    expect(erlangB(10, 10)).toBeCloseTo(0.2146, 4);
    expect(erlangB(5, 10)).toBeCloseTo(0.0184, 4);
    // Small cases by hand: B(1,1) = 1/2; B(2,2) = (4/2)/(1+2+2) = 0.4; C(1,2) = 1/3.
    expect(erlangB(1, 1)).toBeCloseTo(0.5, 15);
    expect(erlangB(2, 2)).toBeCloseTo(0.4, 15);
    expect(erlangC(1, 2)).toBeCloseTo(1 / 3, 15);
  });
  const cases: [number, number][] = [
    [0.5, 1],
    [3, 5],
    [8, 10],
    [9.9, 10],
    [50, 64],
    [131.8, 192],
    [180, 192],
    [300, 320],
    [600, 768],
    [760, 768],
  ];
  it.each(cases)('B and C at a = %f, N = %i agree with the factorial definition', (a, n) => {
    expect(relErr(erlangB(a, n), erlangBDirect(a, n))).toBeLessThan(1e-10);
    expect(relErr(erlangC(a, n), erlangCDirect(a, n))).toBeLessThan(1e-10);
    expect(relErr(erlangBFast(a, n), erlangB(a, n))).toBeLessThan(1e-12);
    expect(relErr(erlangCFast(a, n), erlangC(a, n))).toBeLessThan(1e-12);
  });
  it('the fast forms agree with the recursion over a grid, including overflow to B = 0', () => {
    for (const n of [1, 2, 3, 5, 7, 32, 64, 191, 192, 193, 768]) {
      for (const load of [1e-9, 0.001, 0.1, 0.5, 0.9, 0.99, 1, 1.5, 4]) {
        const a = load * n;
        const b = erlangB(a, n);
        const fast = erlangBFast(a, n);
        if (b < 1e-250) expect(fast).toBeLessThan(1e-250);
        else expect(relErr(fast, b)).toBeLessThan(1e-12);
        const c = erlangC(a, n);
        const cf = erlangCFast(a, n);
        if (c < 1e-250) expect(cf).toBeLessThan(1e-250);
        else expect(relErr(cf, c)).toBeLessThan(1e-12);
      }
    }
  });
  it('C is 0 without load, 1 at or above capacity, and rises with load', () => {
    expect(erlangC(0, 10)).toBe(0);
    expect(erlangC(10, 10)).toBe(1);
    expect(erlangC(12, 10)).toBe(1);
    expect(erlangCFast(10, 10)).toBe(1);
    let prev = 0;
    for (let a = 0.5; a < 192; a += 0.5) {
      const c = erlangCFast(a, 192);
      expect(c).toBeGreaterThanOrEqual(prev);
      expect(c).toBeGreaterThanOrEqual(erlangBFast(a, 192)); // waiting is likelier than blocking
      prev = c;
    }
  });
});

describe('issuer latency: E[min(L, T)] and P(L > T) for L ~ Exp(m)', () => {
  it.each([
    [0.25, 8],
    [12, 8],
    [12, 1],
    [0.25, 0.5],
    [3, 3],
  ])('mean %f s, timeout %f s: numeric integration', (m, t) => {
    // E[min(L, T)] = ∫₀ᵀ P(L > x) dx.
    expect(
      relErr(
        expectedMinExp(m, t),
        simpson((x) => Math.exp(-x / m), 0, t),
      ),
    ).toBeLessThan(1e-10);
    expect(expTail(m, t)).toBeCloseTo(Math.exp(-t / m), 15);
  });
  it('agrees with a seeded Monte Carlo', () => {
    const r = rngFromSeed(2024);
    const m = 12;
    const t = 8;
    const n = 200_000;
    let sumMin = 0;
    let over = 0;
    for (let i = 0; i < n; i++) {
      const l = exponential(r, m);
      sumMin += Math.min(l, t);
      if (l > t) over++;
    }
    // Standard errors: min(L, T) has sd < T/2 → 0.009 s; the share ±0.0011.
    expect(Math.abs(sumMin / n - expectedMinExp(m, t))).toBeLessThan(0.04);
    expect(Math.abs(over / n - expTail(m, t))).toBeLessThan(0.005);
  });
});

describe('lognormal amounts', () => {
  const mu = Math.log(40);
  const sigma = 1;
  const pdf = (x: number) =>
    Math.exp(-((Math.log(x) - mu) ** 2) / (2 * sigma * sigma)) / (x * sigma * Math.sqrt(2 * Math.PI));
  // Integrate over u = ln x so the grid follows the distribution: ∫ g(x) dx = ∫ g(eᵘ) eᵘ du.
  const integrate = (g: (x: number) => number, limit: number) =>
    simpson((u) => g(Math.exp(u)) * Math.exp(u), mu - 12 * sigma, Math.log(limit));
  it.each([1, 10, 40, 80, 90, 250, 1000])('share and truncated volume under %f u', (limit) => {
    expect(Math.abs(lognormalCdf(limit, mu, sigma) - integrate(pdf, limit))).toBeLessThan(1e-9);
    expect(
      relErr(
        lognormalPartialMean(limit, mu, sigma),
        integrate((x) => x * pdf(x), limit),
      ),
    ).toBeLessThan(1e-8);
  });
  it('means: 40·e^0.5 ≈ 65.9 u genuine, 60·e^0.5 ≈ 98.9 u fraud; no limit, no volume', () => {
    expect(lognormalMean(mu, sigma)).toBeCloseTo(65.949, 3);
    expect(lognormalMean(Math.log(60), sigma)).toBeCloseTo(98.923, 3);
    expect(lognormalCdf(0, mu, sigma)).toBe(0);
    expect(lognormalPartialMean(0, mu, sigma)).toBe(0);
    expect(relErr(lognormalPartialMean(1e9, mu, sigma), lognormalMean(mu, sigma))).toBeLessThan(1e-12);
  });
});

describe('mulberry32 and the distributions', () => {
  it('gives the known first outputs for seed 1', () => {
    const r = rngFromSeed(1);
    expect(uniform(r)).toBe(0.6270739405881613);
    // The generator's whole state is one uint32 in `s`: copying it replays the stream.
    const copy = { s: r.s };
    expect(uniform(copy)).toBe(uniform(r));
  });
  it('stays in [0, 1) with mean 1/2', () => {
    const r = rngFromSeed(7);
    let sum = 0;
    let lo = 1;
    let hi = 0;
    for (let i = 0; i < 100_000; i++) {
      const u = uniform(r);
      lo = Math.min(lo, u);
      hi = Math.max(hi, u);
      sum += u;
    }
    expect(lo).toBeGreaterThanOrEqual(0);
    expect(hi).toBeLessThan(1);
    expect(Math.abs(sum / 100_000 - 0.5)).toBeLessThan(0.004); // 4 standard errors
  });
  it('exponential, normal and Poisson samples have the right means (and the normal its variance)', () => {
    const r = rngFromSeed(99);
    const n = 50_000;
    let e = 0;
    let z = 0;
    let z2 = 0;
    let p4 = 0;
    let p30 = 0;
    for (let i = 0; i < n; i++) {
      e += exponential(r, 2);
      const x = normal(r);
      z += x;
      z2 += x * x;
      p4 += poisson(r, 4);
      p30 += poisson(r, 30);
    }
    expect(Math.abs(e / n - 2)).toBeLessThan(4 * (2 / Math.sqrt(n)));
    expect(Math.abs(z / n)).toBeLessThan(4 / Math.sqrt(n));
    expect(Math.abs(z2 / n - 1)).toBeLessThan(4 * Math.sqrt(2 / n));
    expect(Math.abs(p4 / n - 4)).toBeLessThan(4 * Math.sqrt(4 / n));
    expect(Math.abs(p30 / n - 30)).toBeLessThan(4 * Math.sqrt(30 / n));
  });
  it('Poisson refuses large means', () => {
    expect(() => poisson(rngFromSeed(1), 61)).toThrow(RangeError);
  });
  it('arrivalCount: noise off is the mean and draws nothing; noise on has that mean and spread, never below 0', () => {
    const r = rngFromSeed(5);
    expect(arrivalCount(r, 400, 0.03, false)).toBe(24_000);
    expect(r.s).toBe(5);
    const n = 20_000;
    let sum = 0;
    let sum2 = 0;
    let lo = Infinity;
    for (let i = 0; i < n; i++) {
      const c = arrivalCount(r, 400, 0.03, true);
      lo = Math.min(lo, c);
      sum += c;
      sum2 += c * c;
    }
    const mean = sum / n;
    const sd = Math.sqrt(sum2 / n - mean * mean);
    expect(lo).toBeGreaterThanOrEqual(0);
    // sd of N(μ, √μ)·(1 + N(0, 0.03)) ≈ √(μ + (0.03μ)²) = √(24000 + 720²) ≈ 736.5.
    expect(Math.abs(mean - 24_000)).toBeLessThan(4 * (736.5 / Math.sqrt(n)));
    expect(Math.abs(sd / 736.5 - 1)).toBeLessThan(0.03);
    expect(arrivalCount(rngFromSeed(3), 0, 0.03, true)).toBe(0);
  });
  it('clamp', () => {
    expect(clamp(5, 0, 1)).toBe(1);
    expect(clamp(-5, 0, 1)).toBe(0);
    expect(clamp(0.3, 0, 1)).toBe(0.3);
  });
});
