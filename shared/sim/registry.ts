// Every simulator by id. The server, CLI and web app look models up here.
import { paymentSwitch } from './payment-switch/index.ts';
import { webService } from './web-service/index.ts';
import type { SimModel, SimulatorId } from './types.ts';

export const models: Readonly<Record<SimulatorId, SimModel>> = {
  'payment-switch': paymentSwitch,
  'web-service': webService,
};
export { isSimulatorId, simulatorIds } from './ids.ts';

export function getModel(id: SimulatorId): SimModel {
  return models[id];
}
