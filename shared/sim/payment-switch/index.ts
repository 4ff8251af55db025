// The payment-switch simulator (docs/models/payment-switch.md): the SimModel the registry serves.
import type { SimModel } from '../types.ts';
import { paymentSwitchMeta } from './meta.ts';
import { createState, SCENARIOS, stepState, type PaymentSwitchState } from './model.ts';

export type { PaymentSwitchState } from './model.ts';

export const paymentSwitch: SimModel<PaymentSwitchState> = {
  ...paymentSwitchMeta,
  // The engine plays the definitions with their shocks; the meta lists what screens draw.
  scenarios: SCENARIOS,
  create: createState,
  step: stepState,
};
