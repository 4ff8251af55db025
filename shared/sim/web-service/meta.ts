// The web service's description without its engine (for screens that only draw it).
import type { SimMeta } from '../types.ts';
import { controls, idle, indicators, ledger, roles, statusOf, tableColumns } from './defs.ts';
import { FACES, TIMELINES } from './scenarios.ts';

export const webServiceMeta = {
  id: 'web-service',
  controls,
  roles,
  indicators,
  scenarios: FACES,
  timelines: TIMELINES,
  ledger,
  defaultMinutes: 60,
  tableColumns,
  ownStatus: statusOf,
  idle,
} as const satisfies SimMeta;
