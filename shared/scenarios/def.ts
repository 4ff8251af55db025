// A scenario file as the definition the engine plays (`ScenarioDef`). No schema here: the simulators import this,
// and the browser's desk should not carry the checks (test/scenarios/ checks every built-in file against the schema
// and its model).
import type { ScenarioDef } from '../sim/types.ts';
import { toFace } from './face.ts';
import type { ScenarioFile } from './format.ts';

/** The definition the engine plays from a file (already checked). */
export function toDef(file: ScenarioFile): ScenarioDef {
  // The shocks keep their place in the definition's keys, before the timeline, messages and roles.
  const { timeline, messages, roles, ...head } = toFace(file);
  return {
    ...head,
    ...(file.shocks && { shocks: structuredClone(file.shocks) }),
    ...(timeline !== undefined && { timeline }),
    ...(messages && { messages }),
    ...(roles && { roles }),
  };
}
