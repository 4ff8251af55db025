// Every role policy by simulator and role.
import type { SimulatorId } from '../sim/types.ts';
import * as ps from './payment-switch.ts';
import * as ws from './web-service.ts';
import type { Brain } from './types.ts';

/** A seat that cannot be opened (a delay out of range, a role without a policy) or a policy that misbehaves. */
export class PolicyError extends Error {
  override readonly name = 'PolicyError';
}

const BRAINS: Record<SimulatorId, Record<string, Brain>> = {
  'payment-switch': { scaling: ps.scaling, shedding: ps.shedding, fraud: ps.fraud, standin: ps.standin },
  'web-service': { fleet: ws.fleet, cache: ws.cache, traffic: ws.traffic, release: ws.release },
};

export function brainOf(model: SimulatorId, role: string): Brain {
  const b = BRAINS[model]?.[role];
  if (!b) throw new PolicyError(`no policy for the ${role} role of ${model}`);
  return b;
}
