// The web-service scenarios: their goals and starting controls (docs/models/web-service.md, "Scenarios").
// Their shocks are in setups.ts. The seed gives no goals: every number here is ours.
import type { ScenarioDef } from '../types.ts';

export const scenarios: readonly ScenarioDef[] = [
  { id: 'free', kind: 'free', goals: [] },
  {
    id: 'product-launch',
    kind: 'full-shift',
    splitView: true,
    controls: { autoscaling: false },
    goals: [
      { id: 'budget', indicator: 'errorBudgetRemaining', aggregate: 'final', op: '>=', target: 0.22 },
      { id: 'p99', indicator: 'p99Ms', aggregate: 'mean', op: '<=', target: 1050 },
      { id: 'cost', indicator: 'costSoFar', aggregate: 'final', op: '<=', target: 13.7 },
      { id: 'hitRatio', indicator: 'cacheHitRatio', aggregate: 'final', op: '>=', target: 0.6 },
      { id: 'recommendations', indicator: 'recommendationsAvailable', aggregate: 'mean', op: '>=', target: 0.62 },
      { id: 'throttled', indicator: 'throttledShare', aggregate: 'mean', op: '<=', target: 0.12 },
      { id: 'handover', indicator: 'instancesServing', aggregate: 'final', op: '<=', target: 10 },
    ],
  },
  // Retired scenarios (setups.ts): kept so that their stored rounds replay and keep their scores; not offered.
  {
    id: 'bad-deploy',
    retired: true,
    scoreRule: 1,
    kind: 'classic',
    goals: [
      { id: 'budget', indicator: 'errorBudgetRemaining', aggregate: 'final', op: '>=', target: 0.17 },
      { id: 'p99', indicator: 'p99Ms', aggregate: 'mean', op: '<=', target: 500 },
      { id: 'cost', indicator: 'costSoFar', aggregate: 'final', op: '<=', target: 4 },
      { id: 'recommendations', indicator: 'recommendationsAvailable', aggregate: 'mean', op: '>=', target: 0.7 },
      { id: 'throttled', indicator: 'throttledShare', aggregate: 'mean', op: '<=', target: 0.1 },
    ],
  },
  {
    id: 'traffic-surge',
    retired: true,
    scoreRule: 1,
    kind: 'classic',
    goals: [
      { id: 'budget', indicator: 'errorBudgetRemaining', aggregate: 'final', op: '>=', target: 0.97 },
      { id: 'p99', indicator: 'p99Ms', aggregate: 'mean', op: '<=', target: 800 },
      { id: 'cost', indicator: 'costSoFar', aggregate: 'final', op: '<=', target: 8 },
      { id: 'recommendations', indicator: 'recommendationsAvailable', aggregate: 'mean', op: '>=', target: 0.8 },
      { id: 'throttled', indicator: 'throttledShare', aggregate: 'mean', op: '<=', target: 0.15 },
    ],
  },
  {
    id: 'cache-flush',
    retired: true,
    scoreRule: 1,
    kind: 'classic',
    controls: { cacheTtlS: 90 },
    goals: [
      { id: 'budget', indicator: 'errorBudgetRemaining', aggregate: 'final', op: '>=', target: 0.97 },
      { id: 'p99', indicator: 'p99Ms', aggregate: 'mean', op: '<=', target: 600 },
      { id: 'hitRatio', indicator: 'cacheHitRatio', aggregate: 'final', op: '>=', target: 0.7 },
      { id: 'cost', indicator: 'costSoFar', aggregate: 'final', op: '<=', target: 3.8 },
      { id: 'recommendations', indicator: 'recommendationsAvailable', aggregate: 'mean', op: '>=', target: 0.65 },
      { id: 'throttled', indicator: 'throttledShare', aggregate: 'mean', op: '<=', target: 0.1 },
    ],
  },
  {
    id: 'launch-day',
    retired: true,
    scoreRule: 1,
    kind: 'full-shift',
    splitView: true,
    controls: { autoscaling: false },
    goals: [
      { id: 'budget', indicator: 'errorBudgetRemaining', aggregate: 'final', op: '>=', target: 0.47 },
      { id: 'p99', indicator: 'p99Ms', aggregate: 'mean', op: '<=', target: 650 },
      { id: 'cost', indicator: 'costSoFar', aggregate: 'final', op: '<=', target: 7 },
      { id: 'hitRatio', indicator: 'cacheHitRatio', aggregate: 'final', op: '>=', target: 0.7 },
      { id: 'recommendations', indicator: 'recommendationsAvailable', aggregate: 'mean', op: '>=', target: 0.7 },
      { id: 'throttled', indicator: 'throttledShare', aggregate: 'mean', op: '<=', target: 0.15 },
    ],
  },
  {
    id: 'failover',
    retired: true,
    scoreRule: 1,
    kind: 'full-shift',
    splitView: true,
    // The autoscaler is being migrated this afternoon: the fleet is exactly what the fleet role sets.
    controls: { autoscaling: false },
    goals: [
      { id: 'budget', indicator: 'errorBudgetRemaining', aggregate: 'final', op: '>=', target: 0.47 },
      { id: 'p99', indicator: 'p99Ms', aggregate: 'mean', op: '<=', target: 600 },
      { id: 'cost', indicator: 'costSoFar', aggregate: 'final', op: '<=', target: 6 },
      { id: 'answerAge', indicator: 'cachedAnswerAgeS', aggregate: 'mean', op: '<=', target: 60 },
      { id: 'recommendations', indicator: 'recommendationsAvailable', aggregate: 'mean', op: '>=', target: 0.7 },
      { id: 'throttled', indicator: 'throttledShare', aggregate: 'mean', op: '<=', target: 0.15 },
    ],
  },
];
