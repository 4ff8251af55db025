// The web-service on-call simulator (docs/models/web-service.md).
import type { SimModel } from '../types.ts';
import { controls, indicators, roles, scenarios, tableColumns } from './defs.ts';
import { create, step, type WebServiceState } from './model.ts';

export type { WebServiceState } from './model.ts';

export const webService: SimModel<WebServiceState> = {
  id: 'web-service',
  controls,
  roles,
  indicators,
  scenarios,
  defaultMinutes: 60,
  tableColumns,
  create,
  step,
};
