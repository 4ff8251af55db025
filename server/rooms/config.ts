// A round's configuration: the defaults of a new room, and a teacher's patch checked against the
// simulators that exist (in one place, for new rooms, forks and the lobby's settings).
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { DEFAULT_PURPOSE, type RoundConfig, SEAT_DEFAULTS } from '../../shared/protocol/types.ts';
import { getModel, isSimulatorId } from '../../shared/sim/registry.ts';
import type { ScenarioDef, SimulatorId } from '../../shared/sim/types.ts';
import type { ConfigPatch } from './commands.ts';

/** A teacher's own scenario the configuration may name (besides the built-ins): its simulator and definition. */
export interface Authored {
  simulator: SimulatorId;
  def: ScenarioDef;
}

export const DEFAULT_CONFIG: RoundConfig = {
  simulator: 'payment-switch',
  scenario: 'sale-surge',
  minutes: 60,
  tempo: 5,
  seed: null,
  teamCount: 2,
  splitView: false,
  ...SEAT_DEFAULTS,
  purpose: DEFAULT_PURPOSE,
};

/** "As fast as it goes" is for rehearsals and practice: a class reads its desks at a human pace. */
export function checkTempo(config: Pick<RoundConfig, 'tempo' | 'purpose'>): void {
  if (config.tempo === 0 && config.purpose === 'class')
    throw new ClassroomError(ErrorCode.BAD_REQUEST, 'a class plays at 1 to 20 seconds a minute; 0 is for rehearsals');
}

/** What a scenario brings when the teacher picks it: its round length and its split-view default. */
function scenarioDefaults(
  simulator: SimulatorId,
  scenario: string,
  authored?: Authored | null,
): Pick<RoundConfig, 'minutes' | 'splitView'> {
  const def =
    getModel(simulator).scenarios.find((s) => s.id === scenario) ??
    (authored?.simulator === simulator && authored.def.id === scenario ? authored.def : undefined);
  if (!def) throw new ClassroomError(ErrorCode.BAD_REQUEST, `unknown scenario "${scenario}" for ${simulator}`);
  return { minutes: def.minutes ?? 60, splitView: def.splitView ?? false };
}

/**
 * `base` with `patch` applied; another simulator without a scenario starts in free play. Another scenario
 * brings its round length and split view, unless the patch sets them too. The scenario is a built-in or the
 * teacher's own one given as `authored`. Throws BAD_REQUEST.
 */
export function resolveConfig(base: RoundConfig, patch: ConfigPatch, authored?: Authored | null): RoundConfig {
  const { simulator = base.simulator, ...rest } = patch;
  if (!isSimulatorId(simulator)) throw new ClassroomError(ErrorCode.BAD_REQUEST, `unknown simulator "${simulator}"`);
  const scenario = patch.scenario ?? (simulator !== base.simulator ? 'free' : base.scenario);
  const defaults = scenarioDefaults(simulator, scenario, authored);
  const picked = simulator !== base.simulator || scenario !== base.scenario;
  const config = { ...base, ...(picked ? defaults : {}), ...rest, simulator, scenario };
  checkTempo(config);
  return config;
}

/** A configuration as stored: split view and the seats' rules take their defaults where it was stored before them. */
export function storedConfig(
  config: Omit<RoundConfig, 'splitView' | 'purpose' | keyof typeof SEAT_DEFAULTS> & Partial<RoundConfig>,
  authored?: Authored | null,
): RoundConfig {
  return {
    ...SEAT_DEFAULTS,
    purpose: DEFAULT_PURPOSE,
    ...config,
    splitView: config.splitView ?? scenarioDefaults(config.simulator, config.scenario, authored).splitView,
  };
}
