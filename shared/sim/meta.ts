// Every simulator's description (controls, roles, indicators, scenarios) without the engine: what the
// browser needs to draw a desk. The registry adds create/step for the server and the CLI.
import { paymentSwitchMeta } from './payment-switch/meta.ts';
import type { SimMeta, SimulatorId } from './types.ts';
import { webServiceMeta } from './web-service/meta.ts';

export const metas: Readonly<Record<SimulatorId, SimMeta>> = {
  'payment-switch': paymentSwitchMeta,
  'web-service': webServiceMeta,
};

export function getMeta(id: SimulatorId): SimMeta {
  return metas[id];
}
