// A round's configuration: the defaults of a new room, and a teacher's patch checked against the
// simulators that exist (in one place, for new rooms, forks and the lobby's settings).
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import type { RoundConfig } from '../../shared/protocol/types.ts';
import { getModel, isSimulatorId } from '../../shared/sim/registry.ts';
import type { ConfigPatch } from './commands.ts';

export const DEFAULT_CONFIG: RoundConfig = { simulator: 'payment-switch', scenario: 'sale-surge', minutes: 60, tempo: 5, seed: null, teamCount: 2 };

/** `base` with `patch` applied; another simulator without a scenario starts in free play. Throws BAD_REQUEST. */
export function resolveConfig(base: RoundConfig, patch: ConfigPatch): RoundConfig {
  const { simulator = base.simulator, ...rest } = patch;
  if (!isSimulatorId(simulator)) throw new ClassroomError(ErrorCode.BAD_REQUEST, `unknown simulator "${simulator}"`);
  const scenario = patch.scenario ?? (simulator !== base.simulator ? 'free' : base.scenario);
  const next: RoundConfig = { ...base, ...rest, simulator, scenario };
  if (!getModel(simulator).scenarios.some((s) => s.id === next.scenario)) {
    throw new ClassroomError(ErrorCode.BAD_REQUEST, `unknown scenario "${next.scenario}" for ${simulator}`);
  }
  return next;
}
