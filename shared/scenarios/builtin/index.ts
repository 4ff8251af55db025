// Every built-in scenario file, by simulator (the tests' and tools' view; each model imports its own module).
import { PAYMENT_SWITCH_FILES } from './payment-switch.ts';
import { WEB_SERVICE_FILES } from './web-service.ts';

export const BUILT_IN_FILES = {
  'payment-switch': PAYMENT_SWITCH_FILES,
  'web-service': WEB_SERVICE_FILES,
} as const;
