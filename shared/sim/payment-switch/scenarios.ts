// The crisis scenarios (spec "Crisis scenarios"): their goals, starting controls and timelines.
// Goal numbers are the seed's.
import type { ScenarioDef, SimEvent } from '../types.ts';
import { BASE_FRAUD_SHARE, ISSUER_MEAN_S } from './constants.ts';

export const SCENARIOS: readonly ScenarioDef[] = [
  { id: 'free', kind: 'free', goals: [] },
  {
    id: 'sale-surge',
    kind: 'classic',
    level: 1,
    controls: { servers: 6, shedding: false, retryPolicy: 'immediate' },
    goals: [
      { id: 'approval', indicator: 'goodApproval', aggregate: 'mean', from: 5, op: '>=', target: 0.95 },
      { id: 'authTime', indicator: 'authTimeMs', aggregate: 'mean', op: '<=', target: 500 },
      { id: 'cost', indicator: 'costSoFar', aggregate: 'final', op: '<=', target: 75 },
    ],
  },
  {
    id: 'fraud-wave',
    kind: 'classic',
    level: 2,
    controls: { fraudThreshold: 3.0, stepUpBand: 0 },
    goals: [
      { id: 'fraudRate', indicator: 'fraudRateBp', aggregate: 'mean', op: '<=', target: 25 },
      { id: 'approval', indicator: 'goodApproval', aggregate: 'mean', op: '>=', target: 0.98 },
      { id: 'declinedByRule', indicator: 'goodDeclinedByRule', aggregate: 'mean', op: '<=', target: 0.005 },
    ],
  },
  {
    id: 'issuer-outage',
    kind: 'classic',
    level: 3,
    controls: { servers: 6, issuerTimeoutS: 8, standInLimit: 0 },
    goals: [
      { id: 'healthyApproval', indicator: 'healthyApproval', aggregate: 'mean', op: '>=', target: 0.9 },
      { id: 'approval', indicator: 'goodApproval', aggregate: 'mean', op: '>=', target: 0.86 },
      { id: 'exposure', indicator: 'standInExposure', aggregate: 'final', op: '<=', target: 9e6 },
      { id: 'cost', indicator: 'costSoFar', aggregate: 'final', op: '<=', target: 65 },
    ],
  },
  // Full shifts: the shocks are drawn from the seed (recipes.ts); the goals are ours (docs/models/payment-switch.md).
  {
    id: 'black-friday',
    kind: 'full-shift',
    splitView: true,
    minutes: 60,
    controls: { servers: 14 },
    goals: [
      { id: 'approval', indicator: 'goodApproval', aggregate: 'mean', op: '>=', target: 0.885 },
      { id: 'healthyApproval', indicator: 'healthyApproval', aggregate: 'mean', op: '>=', target: 0.922 },
      { id: 'fraudRate', indicator: 'fraudRateBp', aggregate: 'mean', op: '<=', target: 36 },
      { id: 'stepUp', indicator: 'stepUpShare', aggregate: 'mean', op: '<=', target: 0.04 },
      { id: 'cost', indicator: 'costSoFar', aggregate: 'final', op: '<=', target: 940 },
      { id: 'exposure', indicator: 'standInExposure', aggregate: 'final', op: '<=', target: 1.3e6 },
    ],
  },
  // Retired shifts (shift.ts): kept so that their stored rounds replay and keep their scores; not offered.
  {
    id: 'sale-day',
    kind: 'full-shift',
    retired: true,
    scoreRule: 1,
    splitView: true,
    minutes: 60,
    goals: [
      { id: 'approval', indicator: 'goodApproval', aggregate: 'mean', op: '>=', target: 0.975 },
      { id: 'fraudRate', indicator: 'fraudRateBp', aggregate: 'mean', op: '<=', target: 20 },
      { id: 'stepUp', indicator: 'stepUpShare', aggregate: 'mean', op: '<=', target: 0.017 },
      { id: 'cost', indicator: 'costSoFar', aggregate: 'final', op: '<=', target: 58 },
    ],
  },
  {
    id: 'issuer-trouble',
    kind: 'full-shift',
    retired: true,
    scoreRule: 1,
    splitView: true,
    minutes: 60,
    goals: [
      { id: 'approval', indicator: 'goodApproval', aggregate: 'mean', op: '>=', target: 0.96 },
      { id: 'fraudRate', indicator: 'fraudRateBp', aggregate: 'mean', op: '<=', target: 20 },
      { id: 'stepUp', indicator: 'stepUpShare', aggregate: 'mean', op: '<=', target: 0.017 },
      { id: 'cost', indicator: 'costSoFar', aggregate: 'final', op: '<=', target: 59 },
      { id: 'exposure', indicator: 'standInExposure', aggregate: 'final', op: '<=', target: 6e6 },
    ],
  },
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
