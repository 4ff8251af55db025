// The web service's description without its engine (for screens that only draw it).
import type { SimMeta } from '../types.ts';
import { controls, indicators, ledger, roles, scenarios, tableColumns } from './defs.ts';

export const webServiceMeta = {
  id: 'web-service',
  controls,
  roles,
  indicators,
  scenarios,
  ledger,
  defaultMinutes: 60,
  tableColumns,
} as const satisfies SimMeta;
