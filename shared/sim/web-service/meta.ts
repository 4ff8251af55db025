// The web service's description without its engine (for screens that only draw it).
import type { SimMeta } from '../types.ts';
import { controls, indicators, roles, scenarios, tableColumns } from './defs.ts';

export const webServiceMeta = {
  id: 'web-service',
  controls,
  roles,
  indicators,
  scenarios,
  // Placeholder until the web service's ledger lands: the fleet bill is its only money line so far.
  ledger: { currency: '$', items: ['costSoFar'], total: 'costSoFar' },
  defaultMinutes: 60,
  tableColumns,
} as const satisfies SimMeta;
