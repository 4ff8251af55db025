// The payment-switch simulator (docs/models/payment-switch.md): the SimModel the registry serves.
import type { SimModel } from '../types.ts';
import { paymentSwitchMeta } from './meta.ts';
import { createState, stepState, type PaymentSwitchState } from './model.ts';

export type { PaymentSwitchState } from './model.ts';

export const paymentSwitch: SimModel<PaymentSwitchState> = {
  ...paymentSwitchMeta,
  create: createState,
  step: stepState,
};
