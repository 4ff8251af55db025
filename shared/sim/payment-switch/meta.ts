// The payment switch's description without its engine (for screens that only draw it).
import type { SimMeta } from '../types.ts';
import { CONTROLS, INDICATORS, LEDGER, ROLES, statusOf, TABLE_COLUMNS } from './defs.ts';
import { FACES, TIMELINES } from './scenarios.ts';

export const paymentSwitchMeta = {
  id: 'payment-switch',
  controls: CONTROLS,
  roles: ROLES,
  indicators: INDICATORS,
  scenarios: FACES,
  timelines: TIMELINES,
  ledger: LEDGER,
  defaultMinutes: 60,
  tableColumns: TABLE_COLUMNS,
  ownStatus: statusOf,
} as const satisfies SimMeta;
