// The student desk needs one simulator: its model and words are loaded on demand, so a desk never
// downloads the other simulator's code and (once translated) its words in six languages.
import type { SimulatorId } from '$shared/sim/types.ts';
import type { Sim } from './types.ts';

const loaders: Record<SimulatorId, () => Promise<Sim>> = {
  'payment-switch': () => import('./payment-switch.ts').then((mod) => mod.paymentSwitchSim),
  'web-service': () => import('./web-service.ts').then((mod) => mod.webServiceSim),
};

export function loadSim(id: SimulatorId): Promise<Sim> {
  return loaders[id]();
}
