// Every simulator by id. The server, CLI and web app look models up here.
import { paymentSwitch } from './payment-switch/index.ts';
import { webService } from './web-service/index.ts';
import type { SimModel, SimulatorId } from './types.ts';

export const models: Readonly<Record<SimulatorId, SimModel<any>>> = {
  'payment-switch': paymentSwitch,
  'web-service': webService,
};
export const simulatorIds = Object.keys(models) as SimulatorId[];

export function isSimulatorId(id: unknown): id is SimulatorId {
  return typeof id === 'string' && Object.hasOwn(models, id);
}

export function getModel(id: SimulatorId): SimModel<any> {
  return models[id];
}
