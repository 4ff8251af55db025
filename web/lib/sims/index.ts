// Both simulators at once, for the pages that list or mix them (start page, teacher, projector,
// model page). The student desk loads only its own simulator (load.ts).
import { isSimulatorId } from '$shared/sim/ids.ts';
import type { SimulatorId } from '$shared/sim/types.ts';
import { paymentSwitchSim } from './payment-switch.ts';
import type { Sim } from './types.ts';
import { webServiceSim } from './web-service.ts';

export { scenarioName, type Sim, type SimText } from './types.ts';

const sims: Record<SimulatorId, Sim> = { 'payment-switch': paymentSwitchSim, 'web-service': webServiceSim };

export function sim(id: SimulatorId): Sim {
  return sims[id];
}

export function simOrNull(id: string): Sim | null {
  return isSimulatorId(id) ? sim(id) : null;
}
