// The simulators' ids, without their code (cheap to import anywhere).
import type { SimulatorId } from './types.ts';

export const simulatorIds: readonly SimulatorId[] = ['payment-switch', 'web-service'];

export function isSimulatorId(id: unknown): id is SimulatorId {
  return typeof id === 'string' && (simulatorIds as readonly string[]).includes(id);
}
