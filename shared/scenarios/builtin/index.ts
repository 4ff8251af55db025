// The built-in scenarios' files, as the models list them (shared/sim/*/scenarios.ts). A built-in still defined in
// code becomes a file here with `npm run scenario-export` (docs/scenarios.md, "Built-in scenarios").
import type { ScenarioFile } from '../format.ts';
import psFree from './payment-switch/free.json' with { type: 'json' };
import psSaleSurge from './payment-switch/sale-surge.json' with { type: 'json' };
import psFraudWave from './payment-switch/fraud-wave.json' with { type: 'json' };
import psIssuerOutage from './payment-switch/issuer-outage.json' with { type: 'json' };
import psSaleDay from './payment-switch/sale-day.json' with { type: 'json' };
import psIssuerTrouble from './payment-switch/issuer-trouble.json' with { type: 'json' };
import wsFree from './web-service/free.json' with { type: 'json' };
import wsProductLaunch from './web-service/product-launch.json' with { type: 'json' };
import wsBadDeploy from './web-service/bad-deploy.json' with { type: 'json' };
import wsTrafficSurge from './web-service/traffic-surge.json' with { type: 'json' };
import wsCacheFlush from './web-service/cache-flush.json' with { type: 'json' };
import wsLaunchDay from './web-service/launch-day.json' with { type: 'json' };
import wsFailover from './web-service/failover.json' with { type: 'json' };

// The files' JSON types are wide (strings, not the schema's literals); test/scenarios/builtin.test.ts checks each against the schema.
export const BUILT_IN_FILES = {
  'payment-switch': [
    psFree,
    psSaleSurge,
    psFraudWave,
    psIssuerOutage,
    psSaleDay,
    psIssuerTrouble,
  ] as unknown as readonly ScenarioFile[],
  'web-service': [
    wsFree,
    wsProductLaunch,
    wsBadDeploy,
    wsTrafficSurge,
    wsCacheFlush,
    wsLaunchDay,
    wsFailover,
  ] as unknown as readonly ScenarioFile[],
} as const;
