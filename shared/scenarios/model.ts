// A model playing an authored scenario: the same simulator, whose list of scenarios has the scenario in it (in
// place of a built-in of the same id, for the converter's checks) and whose roles are the scenario's. Everything
// that takes a model — the engine, the role policies, the design report, the coach — then plays it unchanged.
import type { SimModel, SimStateBase } from '../sim/types.ts';
import type { ScenarioDef } from '../sim/types.ts';

export function withScenario<S extends SimStateBase>(model: SimModel<S>, def: ScenarioDef): SimModel<S> {
  return {
    ...model,
    scenarios: [...model.scenarios.filter((s) => s.id !== def.id), def],
    roles: def.roles ?? model.roles,
  };
}
