// The full shifts' recipes: the episodes each draws from the seed and the relations it adds
// (shocks.ts; docs/models/payment-switch.md, "Full shifts").
import type { Recipe, ShiftTerms } from './shocks.ts';

/** A shift day's terms: the switch owns 6 servers and rents the rest; customers give up more than the seed's. */
const TERMS: ShiftTerms = {
  groupBMeanS: 0.5,
  ownServers: 14,
  burstPerHour: 60,
  shedRetry: 0.9,
  backoffRetry: 0.5,
  lowPriority: 0.1,
  standInFee: 0.0005,
};
/** A straining issuer slows to 2.5–3.5 s; a failing one then falls over to 12–18 s. */
const STRAIN: readonly [number, number] = [2.5, 3.5];
const FAILING: readonly [number, number] = [12, 18];
/** Bots: a few, which the slots absorb, or a swarm, which only shedding stops. */
const FEW: readonly [number, number] = [0.3, 0.6];
const SWARM: readonly [number, number] = [5, 8];

export const RECIPES: Readonly<Record<string, Recipe>> = {
  // Black Friday: two announced sales with scalper bots in them, card testers after each, and two issuers
  // that strain — one of them falls over.
  'black-friday': {
    terms: TERMS,
    episodes: [
      { kind: 'issuer', start: [2, 4], length: [12, 14], meanS: { oneOf: [STRAIN, FAILING] }, ramp: [3, 5] },
      { kind: 'bots', start: [8, 10], length: [3, 5], size: { oneOf: [FEW, SWARM] }, warn: [3, 4] },
      { kind: 'bots', start: [17, 19], length: [3, 5], size: SWARM, warn: [3, 4] },
      { kind: 'sale', start: [23, 25], length: [8, 10], size: [3.8, 4.4], warn: [7, 9] },
      { kind: 'attack', start: [27, 30], length: [8, 10], share: [0.02, 0.035], learn: [3, 4], ramp: [7, 9] },
      { kind: 'issuer', start: [34, 37], length: [12, 14], meanS: { oneOf: [STRAIN, FAILING], notAs: 0 }, ramp: [3, 5] },
      { kind: 'bots', start: [39, 42], length: [3, 5], size: { oneOf: [FEW, SWARM], notAs: 1 }, warn: [3, 4] },
      { kind: 'attack', start: [43, 46], length: [7, 9], share: [0.02, 0.035], learn: [3, 4], ramp: [7, 9] },
      { kind: 'sale', start: [50, 52], length: [8, 10], size: [3.8, 4.4], warn: [7, 9] },
    ],
  },
};
