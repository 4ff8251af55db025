// What each scenario sets up besides its controls and goals (docs/models/web-service.md, "Scenarios"):
// the clock, the boot delay, the error budget left, and the shocks it draws from the seed.
import type { ScenarioShocks } from '../types.ts';
import { BOOT_MINUTES, BASE_RATE } from './constants.ts';
import type { EpisodeSpec } from './episodes.ts';
import { type Draw, NO_SHOCKS, type Shocks } from './shocks.ts';

export interface ScenarioSetup {
  /** Time of day at minute 0, minutes after midnight. */
  clock: number;
  bootMinutes: number;
  budget: number;
  /** The round's shocks, drawn in create (noise off: the draws' means). */
  shocks(d: Draw): Shocks;
  /** A shift's episodes and release train (episodes.ts), drawn after `shocks`. */
  plan?: readonly EpisodeSpec[];
}

/** The autoscaler is being migrated all day: autoscaling is off and cannot be turned on. */
const NO_AUTOSCALER: EpisodeSpec = { kind: 'no-autoscaler', start: [0, 0], length: [61, 61] };

export const SETUPS: Record<string, ScenarioSetup> = {
  // Product launch: two surges into the lunch peak, one small and one large in the seed's order (the banner says
  // which: the fleet is sized by reading it), the first with new pages the cache has never seen; a swarm of
  // crawlers after each, an eviction storm, and the release train — seven builds, five of them bad.
  // The built-in's file (shared/scenarios/builtin/web-service/product-launch.json) carries the same episodes; this
  // setup is the timeline a scenario file may name (test/scenarios/builtin.test.ts: both play the same rounds).
  'product-launch': {
    clock: 11 * 60 + 10,
    bootMinutes: BOOT_MINUTES,
    budget: 0.5,
    shocks: () => NO_SHOCKS,
    plan: [
      NO_AUTOSCALER,
      {
        kind: 'surge',
        start: [9, 12],
        length: [12, 15],
        size: {
          oneOf: [
            [1.7, 2.1],
            [3.2, 3.8],
          ],
        },
        ramp: [9, 12],
        cold: [0.3, 0.45],
        warn: [6, 8],
      },
      { kind: 'crawl', start: [14, 20], length: [6, 9], size: [1.2, 1.6], ramp: [4, 6] },
      { kind: 'flush', start: [27, 33], size: [0.5, 0.7], ramp: [5, 8] },
      {
        kind: 'surge',
        start: { after: 1, from: 'end', gap: [8, 12] },
        length: [11, 14],
        size: {
          oneOf: [
            [1.7, 2.1],
            [3, 3.5],
          ],
          notAs: 1,
        },
        ramp: [9, 12],
        warn: [6, 8],
      },
      { kind: 'crawl', start: [42, 48], length: [6, 9], size: [1.2, 1.6], ramp: [4, 6] },
      { kind: 'train', start: [6, 10], every: [6, 9], count: 7, bad: 5, error: [0.1, 0.16] },
    ],
  },
  free: { clock: 8 * 60, bootMinutes: BOOT_MINUTES, budget: 1, shocks: () => NO_SHOCKS },
  'bad-deploy': {
    clock: 9 * 60,
    bootMinutes: BOOT_MINUTES,
    budget: 0.2,
    shocks: (d) => ({ ...NO_SHOCKS, deployAt: d.int(8, 20), keyChange: true }),
  },
  'traffic-surge': {
    clock: 8 * 60 + 30,
    bootMinutes: 8,
    budget: 1,
    shocks: (d) => {
      const surgeAt = d.int(10, 25);
      const surgeSize = d.real(2.2, 2.5);
      const crawlAt = surgeAt + d.int(12, 20);
      return {
        ...NO_SHOCKS,
        surgeAt,
        surgeSize,
        surgeRamp: 8,
        surgeCold: d.real(0.55, 0.65),
        crawlAt,
        crawlEndAt: crawlAt + d.int(8, 12),
        crawlRate: BASE_RATE * d.real(0.65, 0.8),
        crawlRamp: 5,
        deployAt: surgeAt + d.int(8, 14),
      };
    },
  },
  'cache-flush': {
    clock: 12 * 60,
    bootMinutes: BOOT_MINUTES,
    budget: 1,
    shocks: (d) => ({ ...NO_SHOCKS, deployAt: d.int(3, 12), buildErrors: false, flushEvery: d.int(10, 15) }),
  },
  'launch-day': {
    clock: 11 * 60 + 10,
    bootMinutes: BOOT_MINUTES,
    budget: 0.5,
    shocks: (d) => {
      const surgeAt = d.int(5, 15);
      const crawlAt = surgeAt + d.int(12, 20);
      return {
        ...NO_SHOCKS,
        surgeAt,
        surgeSize: d.real(1.5, 2),
        surgeRamp: 6,
        crawlAt,
        crawlEndAt: crawlAt + d.int(8, 12),
        crawlRate: BASE_RATE * d.real(1, 1.4),
        crawlRamp: 8,
        deployAt: d.int(15, 22),
        flushAt: d.int(45, 50),
        flushDepth: d.real(0.5, 0.7),
        flushRamp: 8,
      };
    },
  },
  failover: {
    clock: 14 * 60,
    bootMinutes: BOOT_MINUTES,
    budget: 0.5,
    shocks: (d) => {
      const dbAt = d.int(5, 12);
      const dbEndAt = dbAt + d.int(15, 22);
      const crawlAt = dbEndAt + d.int(3, 10);
      const surgeAt = d.int(35, 45);
      return {
        ...NO_SHOCKS,
        dbAt,
        dbEndAt,
        dbShare: d.real(0.08, 0.12),
        dbRamp: 5,
        crawlAt,
        crawlEndAt: crawlAt + d.int(8, 12),
        crawlRate: BASE_RATE * d.real(1.2, 1.5),
        crawlRamp: 8,
        deployAt: d.int(15, 30),
        surgeAt,
        surgeSize: d.real(1.8, 2.3),
        surgeRamp: 5,
        surgeEndAt: surgeAt + d.int(12, 20),
      };
    },
  },
};

/** A scenario's shocks (checked by `shared/scenarios`): its day (`setting`) and the episodes it draws. */
export function setupOf(shocks: ScenarioShocks): ScenarioSetup {
  const { clock, bootMinutes, budget } = shocks.setting as { clock: number; bootMinutes: number; budget: number };
  return { clock, bootMinutes, budget, shocks: () => NO_SHOCKS, plan: shocks.episodes as readonly EpisodeSpec[] };
}

/** The day a round plays: its own (an authored scenario's) or its named setup's. */
export function dayOf(s: { scenario: string; timeline?: string; day?: Day }): Day {
  return s.day ?? SETUPS[s.timeline ?? s.scenario];
}

/** What a round's minutes need of its day after create. */
export interface Day {
  /** Time of day at minute 0, minutes after midnight. */
  clock: number;
  bootMinutes: number;
}
