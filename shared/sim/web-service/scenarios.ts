// The web-service scenarios (docs/models/web-service.md, "Scenarios"): the list. Their goals and starting
// controls are in their files; their shocks in the files or in setups.ts. The seed gives no goals: every number is
// ours.
import { WEB_SERVICE_FILES } from '../../scenarios/builtin/web-service.ts';
import { builtInList, toFace } from '../../scenarios/face.ts';
import type { ScenarioDef, ScenarioFace } from '../types.ts';

/** Built-ins still defined in code: each becomes a file with `npm run scenario-export` (docs/scenarios.md). */
export const IN_CODE: readonly ScenarioDef[] = [];

/**
 * Every scenario's id, in the order they are offered: the built-in files (shared/scenarios/builtin/web-service/) and
 * the definitions above. The retired ones (setups.ts) are kept so that their stored rounds replay and keep their
 * scores; they are not offered.
 */
export const ORDER: readonly string[] = [
  'free',
  'product-launch',
  'bad-deploy',
  'traffic-surge',
  'cache-flush',
  'launch-day',
  'failover',
];

/** The list as the screens draw it (the meta's): without the shocks, which the engine's list (model.ts) adds. */
export const FACES: readonly ScenarioFace[] = builtInList(ORDER, WEB_SERVICE_FILES, IN_CODE, toFace);

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
