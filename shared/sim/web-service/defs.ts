// What the web-service simulator shows and takes: controls, roles, indicators, statuses, the ledger.
import type { ControlDef, IndicatorDef, LedgerDef, RoleDef, Snapshot, Status } from '../types.ts';
import { LEDGER_ITEMS, LEDGER_TOTAL } from './ledger.ts';

export const controls: readonly ControlDef[] = [
  { key: 'minInstances', role: 'fleet', kind: 'number', min: 1, max: 40, step: 1, default: 10, unit: 'count' },
  { key: 'autoscaling', role: 'fleet', kind: 'bool', default: true },
  {
    key: 'targetUtilization',
    role: 'fleet',
    kind: 'number',
    min: 0.3,
    max: 0.9,
    step: 0.01,
    default: 0.6,
    unit: 'share',
  },
  { key: 'cacheTtlS', role: 'cache', kind: 'number', min: 10, max: 600, step: 1, default: 60, unit: 's' },
  { key: 'warmUp', role: 'cache', kind: 'action' },
  { key: 'shedLowPriority', role: 'traffic', kind: 'number', min: 0, max: 1, step: 0.01, default: 0, unit: 'share' },
  { key: 'heavyFeature', role: 'traffic', kind: 'bool', default: true },
  { key: 'rollback', role: 'release', kind: 'action' },
];

// Split view: besides the headline and the ledger, each role sees the figures its own decisions need.
export const roles: readonly RoleDef[] = [
  {
    id: 'fleet',
    controls: ['minInstances', 'autoscaling', 'targetUtilization'],
    sees: ['requestsPerSec', 'instancesServing', 'instancesBooting', 'fleetCostPerHour'],
  },
  { id: 'cache', controls: ['cacheTtlS', 'warmUp'], sees: ['cacheHitRatio', 'cachedAnswerAgeS'] },
  {
    id: 'traffic',
    controls: ['shedLowPriority', 'heavyFeature'],
    sees: ['requestsPerSec', 'throttledShare', 'recommendationsAvailable'],
  },
  { id: 'release', controls: ['rollback'], sees: ['badBuildShare', 'burnRate1h', 'errorBudgetRemaining'] },
];

const pct0 = { scale: 100, digits: 0, unit: '%' };
const usd = { scale: 1, digits: 2, unit: '$' };

export const indicators: readonly IndicatorDef[] = [
  // Headline: the four things the on-call team watches (error rate, p99, database, fleet).
  { key: 'errorRate', display: { scale: 100, digits: 2, unit: '%' }, headline: true },
  { key: 'p99Ms', display: { scale: 1, digits: 0, unit: 'ms' }, headline: true },
  { key: 'dbLoad', display: pct0, headline: true },
  { key: 'utilization', display: pct0, headline: true },
  // The seed's table, in its order.
  { key: 'burnRate1h', display: { scale: 1, digits: 1, unit: '×' } },
  { key: 'requestsPerSec', display: { scale: 1, digits: 0, unit: 'req/s' } },
  { key: 'instancesServing', display: { scale: 1, digits: 0, unit: '' } },
  { key: 'instancesBooting', display: { scale: 1, digits: 0, unit: '' } },
  { key: 'cacheHitRatio', display: pct0 },
  { key: 'throttledShare', display: pct0 },
  { key: 'fleetCostPerHour', display: { scale: 1, digits: 2, unit: '$/h' } },
  { key: 'costSoFar', display: usd, trend: 'rising' },
  { key: 'cachedAnswerAgeS', display: { scale: 1, digits: 0, unit: 's' } },
  { key: 'badBuildShare', display: pct0 },
  { key: 'recommendationsAvailable', display: pct0 },
  { key: 'errorBudgetRemaining', display: { scale: 100, digits: 1, unit: '%' }, trend: 'falling' },
  // The ledger ($): one cumulative line per kind of loss, the fleet bill (costSoFar, above) among them.
  ...LEDGER_ITEMS.filter((k) => k !== 'costSoFar').map((key): IndicatorDef => ({ key, display: usd, trend: 'rising' })),
  { key: LEDGER_TOTAL, display: usd, trend: 'rising' },
];

export const ledger: LedgerDef = { currency: '$', items: LEDGER_ITEMS, total: LEDGER_TOTAL };

export const tableColumns: readonly string[] = [
  'burnRate1h',
  'requestsPerSec',
  'instancesServing',
  'instancesBooting',
  'cacheHitRatio',
  'throttledShare',
  'badBuildShare',
  'errorBudgetRemaining',
  'fleetCostPerHour',
  'costSoFar',
  LEDGER_TOTAL,
];

/**
 * Headline thresholds [interpretation]: normal up to the first bound, warning up to the second.
 * Error rate from the 99.9 % SLO (0.1 % = burning exactly the budget, 1 % = 10× burn); p99 and the
 * two loads as in the payment switch (500/1000 ms, 80/95 %).
 */
export const STATUS_BOUNDS: Readonly<Record<string, readonly [number, number]>> = {
  errorRate: [0.001, 0.01],
  p99Ms: [500, 1000],
  dbLoad: [0.8, 0.95],
  utilization: [0.8, 0.95],
};

export function statusOf(key: string, value: number): Status {
  const [warn, crit] = STATUS_BOUNDS[key];
  return value <= warn ? 'normal' : value <= crit ? 'warning' : 'critical';
}

/** Requests left unanswered (shed or failed) from which the whole headline reads critical. */
export const COLLAPSE_SHARE = 0.5;

/** Status of every headline indicator; a collapsed service (half the requests unanswered) is critical throughout. */
export function headlineStatus(indicators: Record<string, number>, unanswered: number): Record<string, Status> {
  const status: Record<string, Status> = {};
  for (const key of Object.keys(STATUS_BOUNDS))
    status[key] = unanswered >= COLLAPSE_SHARE ? 'critical' : statusOf(key, indicators[key]);
  return status;
}

/**
 * A rollback switches traffic back to the last good build: with none but good builds in service (before
 * any deploy, or once rolled back) it has nothing to switch from, and would only pay for a second fleet.
 * Read from `badBuildShare`, which the release role — the rollback's owner — always receives.
 */
export function idle(key: string, s: Snapshot): string | null {
  if (key !== 'rollback') return null;
  const bad = s.indicators.badBuildShare;
  return bad === 0 ? 'nothing-to-roll-back' : null;
}
