// Controls, roles, indicators and headline statuses of the payment switch (spec "Controls",
// "Indicators"). Displays reproduce the seed's shown digits in English.
import type { ControlDef, IndicatorDef, LedgerDef, RoleDef, Status } from '../types.ts';

export const CONTROLS: readonly ControlDef[] = [
  { key: 'servers', role: 'scaling', kind: 'number', min: 2, max: 24, step: 1, default: 6, unit: 'count' },
  { key: 'shedding', role: 'shedding', kind: 'bool', default: false },
  { key: 'retryPolicy', role: 'shedding', kind: 'enum', options: ['immediate', 'backoff'], default: 'immediate' },
  { key: 'fraudThreshold', role: 'fraud', kind: 'number', min: 0.5, max: 5.0, step: 0.1, default: 3.0, unit: 'sigma' },
  { key: 'stepUpBand', role: 'fraud', kind: 'number', min: 0, max: 3.0, step: 0.1, default: 0, unit: 'sigma' },
  { key: 'issuerTimeoutS', role: 'standin', kind: 'number', min: 0.5, max: 15, step: 0.1, default: 8, unit: 's' },
  { key: 'standInLimit', role: 'standin', kind: 'number', min: 0, max: 1000, step: 1, default: 0, unit: 'u' },
];

// Split view: besides the headline and the ledger, each role sees the detail its own controls move.
export const ROLES: readonly RoleDef[] = [
  {
    id: 'scaling',
    controls: ['servers'],
    sees: ['newTps', 'serversInService', 'serversBooting', 'costRatePerHour', 'costSoFar'],
  },
  {
    id: 'shedding',
    controls: ['shedding', 'retryPolicy'],
    sees: ['offeredTps', 'retryTps', 'shedTps', 'queueDropShare', 'awaitingRetry', 'goodLostSoFar'],
  },
  {
    id: 'fraud',
    controls: ['fraudThreshold', 'stepUpBand'],
    sees: ['goodDeclinedByRule', 'stepUpShare', 'fraudStopped', 'fraudApprovedSoFar'],
  },
  {
    id: 'standin',
    controls: ['issuerTimeoutS', 'standInLimit'],
    sees: ['healthyApproval', 'issuerTimeoutShare', 'standInTps', 'standInExposure', 'groupBLatencyMs'],
  },
];

const share1 = { scale: 100, digits: 1, unit: '%' };
const tps = { scale: 1, digits: 0, unit: 'tx/s' };
const mu = { scale: 1e-6, digits: 2, unit: 'M u' };
const count = { scale: 1, digits: 0, unit: '' };
const money = { scale: 1, digits: 0, unit: 'u' };

// The running totals are marked 'rising': they never fall, so a goal capping them can be lost for good.
export const INDICATORS: readonly IndicatorDef[] = [
  { key: 'goodApproval', display: share1, headline: true },
  { key: 'authTimeMs', display: { scale: 1, digits: 0, unit: 'ms' }, headline: true },
  { key: 'fraudRateBp', display: { scale: 1, digits: 1, unit: 'bp' }, headline: true },
  { key: 'slotsBusy', display: { scale: 100, digits: 0, unit: '%' }, headline: true },
  { key: 'healthyApproval', display: share1 },
  { key: 'goodDeclinedByRule', display: { scale: 1000, digits: 1, unit: '‰' } },
  { key: 'stepUpShare', display: share1 },
  { key: 'fraudStopped', display: { scale: 100, digits: 0, unit: '%' } },
  { key: 'newTps', display: tps },
  { key: 'offeredTps', display: tps },
  { key: 'retryTps', display: tps },
  { key: 'shedTps', display: tps },
  { key: 'queueDropShare', display: share1 },
  { key: 'issuerTimeoutShare', display: share1 },
  { key: 'standInTps', display: tps },
  { key: 'serversInService', display: count },
  { key: 'serversBooting', display: count },
  { key: 'costRatePerHour', display: { scale: 1, digits: 0, unit: 'u/h' } },
  { key: 'costSoFar', display: { scale: 1, digits: 0, unit: 'u' }, trend: 'rising' },
  { key: 'standInExposure', display: mu, trend: 'rising' },
  { key: 'fraudApprovedSoFar', display: mu, trend: 'rising' },
  { key: 'goodLostSoFar', display: { scale: 1e-3, digits: 1, unit: 'k tx' }, trend: 'rising' },
  { key: 'awaitingRetry', display: { scale: 1, digits: 0, unit: 'tx' } },
  { key: 'groupBLatencyMs', display: { scale: 1, digits: 0, unit: 'ms' } },
  // The team's ledger (u): one running total per kind of money lost, and their sum.
  { key: 'ledgerCustomers', display: money, trend: 'rising' },
  { key: 'ledgerFriction', display: money, trend: 'rising' },
  { key: 'ledgerFraud', display: money, trend: 'rising' },
  { key: 'ledgerStandIn', display: money, trend: 'rising' },
  { key: 'ledgerTotal', display: money, trend: 'rising' },
];

/** The ledger's lines: the server bill is the seed's own `costSoFar`. */
export const LEDGER: LedgerDef = {
  currency: 'u',
  items: ['ledgerCustomers', 'ledgerFriction', 'ledgerFraud', 'ledgerStandIn', 'costSoFar'],
  total: 'ledgerTotal',
};

export const TABLE_COLUMNS: readonly string[] = [
  'healthyApproval',
  'newTps',
  'offeredTps',
  'retryTps',
  'shedTps',
  'queueDropShare',
  'issuerTimeoutShare',
  'standInTps',
  'serversInService',
  'serversBooting',
  'costSoFar',
  'standInExposure',
];

/** Headline thresholds [interpretation]: [normal bound, warning bound] and the good direction. */
const THRESHOLDS: Readonly<Record<string, { normal: number; warning: number; higherIsBetter: boolean }>> = {
  goodApproval: { normal: 0.99, warning: 0.95, higherIsBetter: true },
  authTimeMs: { normal: 500, warning: 1000, higherIsBetter: false },
  fraudRateBp: { normal: 13, warning: 25, higherIsBetter: false },
  slotsBusy: { normal: 0.8, warning: 0.95, higherIsBetter: false },
};
export const HEADLINE_KEYS = Object.keys(THRESHOLDS);

export function statusOf(key: string, value: number): Status {
  const t = THRESHOLDS[key];
  if (t.higherIsBetter) return value >= t.normal ? 'normal' : value >= t.warning ? 'warning' : 'critical';
  return value <= t.normal ? 'normal' : value <= t.warning ? 'warning' : 'critical';
}
