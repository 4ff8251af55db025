// The payment-switch simulator (docs/models/payment-switch.md): the SimModel the registry serves.
import type { SimModel } from '../types.ts';
import { CONTROLS, INDICATORS, ROLES, TABLE_COLUMNS } from './defs.ts';
import { createState, stepState, type PaymentSwitchState } from './model.ts';
import { SCENARIOS } from './scenarios.ts';

export type { PaymentSwitchState } from './model.ts';

export const paymentSwitch: SimModel<PaymentSwitchState> = {
  id: 'payment-switch',
  controls: CONTROLS,
  roles: ROLES,
  indicators: INDICATORS,
  scenarios: SCENARIOS,
  defaultMinutes: 60,
  tableColumns: TABLE_COLUMNS,
  create: createState,
  step: stepState,
};
