// The web-service on-call simulator (docs/models/web-service.md).
import type { SimModel } from '../types.ts';
import { webServiceMeta } from './meta.ts';
import { create, scenarios, step, type WebServiceState } from './model.ts';

export type { WebServiceState } from './model.ts';

export const webService: SimModel<WebServiceState> = { ...webServiceMeta, scenarios, create, step };
