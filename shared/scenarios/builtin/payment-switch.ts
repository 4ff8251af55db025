// The payment-switch built-in scenarios' files, as its model lists them (shared/sim/payment-switch/scenarios.ts):
// one module per simulator, so that a desk downloads its own simulator's only. A built-in still defined in code
// becomes a file here with `npm run scenario-export` (docs/scenarios.md, "Built-in scenarios").
import type { ScenarioFile } from '../format.ts';
import psFree from './payment-switch/free.json' with { type: 'json' };
import psSaleSurge from './payment-switch/sale-surge.json' with { type: 'json' };
import psFraudWave from './payment-switch/fraud-wave.json' with { type: 'json' };
import psIssuerOutage from './payment-switch/issuer-outage.json' with { type: 'json' };
import psBlackFriday from './payment-switch/black-friday.json' with { type: 'json' };
import psSaleDay from './payment-switch/sale-day.json' with { type: 'json' };
import psIssuerTrouble from './payment-switch/issuer-trouble.json' with { type: 'json' };

// The files' JSON types are wide (strings, not the schema's literals); test/scenarios/builtin.test.ts checks each against the schema.
export const PAYMENT_SWITCH_FILES = [
  psFree,
  psSaleSurge,
  psFraudWave,
  psIssuerOutage,
  psBlackFriday,
  psSaleDay,
  psIssuerTrouble,
] as unknown as readonly ScenarioFile[];
