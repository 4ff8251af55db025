// The web-service built-in scenarios' files, as its model lists them (shared/sim/web-service/scenarios.ts): one
// module per simulator, so that a desk downloads its own simulator's only. A built-in still defined in code becomes a
// file here with `npm run scenario-export` (docs/scenarios.md, "Built-in scenarios").
import type { ScenarioFile } from '../format.ts';
import wsFree from './web-service/free.json' with { type: 'json' };
import wsProductLaunch from './web-service/product-launch.json' with { type: 'json' };
import wsBadDeploy from './web-service/bad-deploy.json' with { type: 'json' };
import wsTrafficSurge from './web-service/traffic-surge.json' with { type: 'json' };
import wsCacheFlush from './web-service/cache-flush.json' with { type: 'json' };
import wsLaunchDay from './web-service/launch-day.json' with { type: 'json' };
import wsFailover from './web-service/failover.json' with { type: 'json' };

// The files' JSON types are wide (strings, not the schema's literals); test/scenarios/builtin.test.ts checks each against the schema.
export const WEB_SERVICE_FILES = [
  wsFree,
  wsProductLaunch,
  wsBadDeploy,
  wsTrafficSurge,
  wsCacheFlush,
  wsLaunchDay,
  wsFailover,
] as unknown as readonly ScenarioFile[];
