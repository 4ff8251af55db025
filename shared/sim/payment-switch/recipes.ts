// The full shifts' recipes: the episodes each draws from the seed and the relations it adds
// (shocks.ts; docs/models/payment-switch.md, "Full shifts").
import type { Recipe, ShiftTerms } from './shocks.ts';

/**
 * A shift day's terms: the switch owns 14 servers and rents the rest dear; customers give up more than the seed's;
 * the switch bears four times the seed's share of the fraud it approves (every minute a screen lets card testers
 * through costs money).
 */
const TERMS: ShiftTerms = {
  groupBMeanS: 0.5,
  ownServers: 14,
  burstPerHour: 300,
  shedRetry: 0.9,
  backoffRetry: 0.5,
  lowPriority: 0.1,
  standInFee: 0.002,
  retryP: 0.6,
  retryUnavailable: false,
  saleShopperShift: 1,
  saleBasket: 3,
  fraudLiability: 0.0025,
};
/** A straining issuer slows to 2.5–3.5 s; a failing one then falls over to 12–18 s. */
const STRAIN: readonly [number, number] = [2.5, 3.5];
const FAILING: readonly [number, number] = [12, 18];
/** A sale the own fleet carries, or one that needs every server the switch can rent (24 serve about 1,800 tx/s). */
const SMALL_SALE: readonly [number, number] = [1.8, 2.4];
const BIG_SALE: readonly [number, number] = [4.4, 4.8];
/** Bots: a few, which the slots absorb, or a swarm, which only shedding stops. */
const FEW: readonly [number, number] = [0.3, 0.6];
const SWARM: readonly [number, number] = [5, 8];

export const RECIPES: Readonly<Record<string, Recipe>> = {
  // Black Friday: two announced sales — one small, one big, in either order — with scalper bots in them, card
  // testers after each, and two issuers that strain — one of them falls over.
  'black-friday': {
    terms: TERMS,
    episodes: [
      { kind: 'issuer', start: [2, 4], length: [14, 16], meanS: { oneOf: [STRAIN, FAILING] }, ramp: [3, 4] },
      { kind: 'bots', start: [18, 20], length: [8, 10], size: SWARM, warn: [5, 6] },
      { kind: 'sale', start: [25, 27], length: [7, 9], size: { oneOf: [SMALL_SALE, BIG_SALE] }, warn: [7, 9] },
      { kind: 'bots', start: { after: 2, from: 'start', gap: [2, 4] }, length: [3, 5], size: FEW, warn: [3, 4] },
      { kind: 'attack', start: [29, 32], length: [7, 9], share: [0.025, 0.04], learn: [4, 5], ramp: [6, 8] },
      {
        kind: 'issuer',
        start: [34, 36],
        length: [14, 16],
        meanS: { oneOf: [STRAIN, FAILING], notAs: 0 },
        ramp: [3, 4],
      },
      { kind: 'attack', start: [42, 45], length: [7, 9], share: [0.025, 0.04], learn: [4, 5], ramp: [6, 8] },
      { kind: 'bots', start: [45, 47], length: [8, 10], size: SWARM, warn: [5, 6] },
      {
        kind: 'sale',
        start: [52, 54],
        length: [6, 8],
        size: { oneOf: [SMALL_SALE, BIG_SALE], notAs: 2 },
        warn: [7, 9],
      },
    ],
  },
};
