// The full shifts' recipes: the episodes each draws from the seed and the relations it adds
// (shocks.ts; docs/models/payment-switch.md, "Full shifts").
import type { Recipe, ShiftTerms } from './shocks.ts';

/** A shift day's terms: the switch owns 6 servers and rents the rest; customers give up more than the seed's. */
const TERMS: ShiftTerms = {
  groupBMeanS: 0.5,
  ownServers: 14,
  burstPerHour: 45,
  shedRetry: 0.9,
  backoffRetry: 0.5,
  lowPriority: 0.1,
  standInFee: 0.001,
};
/** A straining issuer slows to 3–4 s; a failing one then falls over to 12–18 s. */
const STRAIN: readonly [number, number] = [3, 4];
const FAILING: readonly [number, number] = [12, 18];
/** Bots: a few, which the slots absorb, or a swarm, which only shedding stops. */
const FEW: readonly [number, number] = [0.2, 0.4];
const SWARM: readonly [number, number] = [1.8, 2.8];

export const RECIPES: Readonly<Record<string, Recipe>> = {
  // Black Friday: two announced sales with scalper bots in them, card testers after each, and two issuers
  // that strain — one of them falls over.
  'black-friday': {
    terms: TERMS,
    episodes: [
      { kind: 'issuer', start: [3, 5], length: [10, 12], meanS: { oneOf: [STRAIN, FAILING] }, ramp: [5, 7] },
      { kind: 'sale', start: [18, 20], length: [8, 10], size: [2.8, 3.6], warn: [5, 7] },
      { kind: 'bots', start: { after: 1, from: 'start', gap: [2, 4] }, length: [3, 5], size: { oneOf: [FEW, SWARM] } },
      { kind: 'attack', start: [28, 31], length: [7, 9], share: [0.015, 0.035], learn: [3, 4], ramp: [3, 5] },
      { kind: 'issuer', start: [33, 36], length: [10, 12], meanS: { oneOf: [STRAIN, FAILING], notAs: 0 }, ramp: [5, 7] },
      { kind: 'bots', start: [40, 42], length: [3, 4], size: SWARM },
      { kind: 'sale', start: [47, 49], length: [8, 10], size: [2.8, 3.6], warn: [5, 7] },
      { kind: 'bots', start: { after: 6, from: 'start', gap: [2, 4] }, length: [3, 5], size: { oneOf: [FEW, SWARM], notAs: 2 } },
      { kind: 'attack', start: [51, 54], length: [6, 8], share: [0.015, 0.035], learn: [3, 4], ramp: [3, 5] },
    ],
  },
};
