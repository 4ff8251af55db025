// Seeded randomness. The generator's whole state is one uint32 kept inside the simulation state,
// so a round re-simulates bit for bit from its seed (as boardgame.io keeps its PRNG in state).

/** Mutable holder used during one step; the simulation state stores `s` as a plain number. */
export interface Rng {
  s: number;
}

export function rngFromSeed(seed: number): Rng {
  return { s: seed >>> 0 };
}

/** mulberry32: uniform in [0, 1). */
export function uniform(r: Rng): number {
  r.s = (r.s + 0x6d2b79f5) | 0;
  let t = r.s;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** Exponential with the given mean, by the inverse CDF. */
export function exponential(r: Rng, mean: number): number {
  return -mean * Math.log(1 - uniform(r));
}

/** Standard normal by Box–Muller (one value per call; the partner value is dropped to keep state a single number). */
export function normal(r: Rng): number {
  const u1 = 1 - uniform(r); // (0, 1]: log never sees 0
  const u2 = uniform(r);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** Poisson by Knuth's product method; only for small means (it takes ~mean draws). */
export function poisson(r: Rng, mean: number): number {
  if (!(mean >= 0) || mean > 60)
    throw new RangeError(`poisson: mean ${mean} outside [0, 60]; use the normal approximation`);
  const limit = Math.exp(-mean);
  let k = 0;
  let p = 1;
  do {
    k++;
    p *= uniform(r);
  } while (p > limit);
  return k - 1;
}

/**
 * Arrivals in one minute: N(60λ, √(60λ)) × (1 + N(0, burst)), never below 0 (the spec's Poisson
 * in its normal approximation, with burstiness). Noise off returns the mean and draws nothing.
 */
export function arrivalCount(r: Rng, ratePerSecond: number, burst: number, noise: boolean): number {
  const mean = 60 * ratePerSecond;
  if (!noise) return mean;
  const count = (mean + Math.sqrt(mean) * normal(r)) * (1 + burst * normal(r));
  return Math.max(count, 0);
}
