// The web-service scenarios (docs/models/web-service.md, "Scenarios"): the list. Their goals and starting
// controls are in their files; their shocks in the files or in setups.ts. The seed gives no goals: every number is
// ours.
import { BUILT_IN_FILES } from '../../scenarios/builtin/index.ts';
import { builtInList } from '../../scenarios/def.ts';
import type { ScenarioDef } from '../types.ts';

/** Built-ins still defined in code: each becomes a file with `npm run scenario-export` (docs/scenarios.md). */
const IN_CODE: readonly ScenarioDef[] = [];

/**
 * Every scenario, in the order they are offered: the built-in files (shared/scenarios/builtin/web-service/) and
 * the definitions above. The retired ones (setups.ts) are kept so that their stored rounds replay and keep their
 * scores; they are not offered.
 */
export const scenarios: readonly ScenarioDef[] = builtInList(
  ['free', 'product-launch', 'bad-deploy', 'traffic-surge', 'cache-flush', 'launch-day', 'failover'],
  BUILT_IN_FILES['web-service'],
  IN_CODE,
);

/**
 * The setups in code (setups.ts) a scenario may name as its timeline. Listed by name, so that the desk does not load
 * the code that draws them; a test keeps the list and the code alike.
 */
export const TIMELINES: readonly string[] = [
  'free',
  'product-launch',
  'bad-deploy',
  'traffic-surge',
  'cache-flush',
  'launch-day',
  'failover',
];
