// The crisis scenarios (spec "Crisis scenarios"): the list, and the seed's levels' timelines. Their goals and
// starting controls are in their files (the seed's goal numbers).
import { PAYMENT_SWITCH_FILES } from '../../scenarios/builtin/payment-switch.ts';
import { builtInList, toFace } from '../../scenarios/face.ts';
import type { ScenarioDef, ScenarioFace, SimEvent } from '../types.ts';
import { BASE_FRAUD_SHARE, ISSUER_MEAN_S } from './constants.ts';

/** Built-ins still defined in code: each becomes a file with `npm run scenario-export` (docs/scenarios.md). */
export const IN_CODE: readonly ScenarioDef[] = [];

/**
 * Every scenario's id, in the order they are offered: the built-in files (shared/scenarios/builtin/payment-switch/)
 * and the definitions above. The retired shifts (shift.ts) are kept so that their stored rounds replay and keep
 * their scores; they are not offered.
 */
export const ORDER: readonly string[] = [
  'free',
  'sale-surge',
  'fraud-wave',
  'issuer-outage',
  'black-friday',
  'sale-day',
  'issuer-trouble',
];

/** The list as the screens draw it (the meta's): without the shocks, which the engine's list (model.ts) adds. */
export const FACES: readonly ScenarioFace[] = builtInList(ORDER, PAYMENT_SWITCH_FILES, IN_CODE, toFace);

/**
 * The timelines in code a scenario may name: the seed's levels (and a calm day), the retired shifts' (shift.ts) and
 * the recipes' (recipes.ts). Listed by name, so that the desk does not load the code that draws them; a test keeps
 * the list and the code alike.
 */
export const TIMELINES: readonly string[] = [
  'free',
  'sale-surge',
  'fraud-wave',
  'issuer-outage',
  'sale-day',
  'issuer-trouble',
  'black-friday',
];

/** Level 1: the sale opens at minute 5 and doubles traffic for 45 minutes (minutes 5–49). */
export const SALE = { start: 5, end: 50, surge: 2 } as const;
/** Level 2: from minute 5 fraud is 1 % of traffic (to the end of the round). */
export const FRAUD_WAVE = { start: 5, share: 0.01 } as const;
/** Level 3: from minute 5 group B's issuers answer in 12 s on average (to the end of the round). */
export const OUTAGE = { start: 5, meanS: 12 } as const;

/** What the scenario imposes in one minute. */
export interface Conditions {
  /** Target of the traffic multiplier (the lagged value follows it). */
  surgeTarget: number;
  fraudShare: number;
  /** Group B's mean issuer latency before the wobble (s). */
  groupBMeanS: number;
}

export function conditions(scenario: string, minute: number): Conditions {
  return {
    surgeTarget: scenario === 'sale-surge' && minute >= SALE.start && minute < SALE.end ? SALE.surge : 1,
    fraudShare: scenario === 'fraud-wave' && minute >= FRAUD_WAVE.start ? FRAUD_WAVE.share : BASE_FRAUD_SHARE,
    groupBMeanS: scenario === 'issuer-outage' && minute >= OUTAGE.start ? OUTAGE.meanS : ISSUER_MEAN_S,
  };
}

/** The scenario's happenings of one minute, as stable keys. */
export function scenarioEvents(scenario: string, minute: number): SimEvent[] {
  if (scenario === 'sale-surge') {
    if (minute === SALE.start) return [{ kind: 'sale-start' }];
    if (minute === SALE.end) return [{ kind: 'sale-end' }];
  } else if (scenario === 'fraud-wave' && minute === FRAUD_WAVE.start) {
    return [{ kind: 'fraud-wave-start' }];
  } else if (scenario === 'issuer-outage' && minute === OUTAGE.start) {
    return [{ kind: 'issuer-slow', group: 'B' }];
  }
  return [];
}
