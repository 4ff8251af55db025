// A scenario file as the definition the engine plays (`ScenarioDef`), and the models' lists of built-ins made of
// files and of definitions still in code. No schema here: the simulators import this, and the browser's desk
// should not carry the checks (test/scenarios/ checks every built-in file against the schema and its model).
import type { GoalDef, ScenarioDef } from '../sim/types.ts';
import type { ScenarioFile } from './format.ts';

/** The definition the engine plays from a file (already checked). */
export function toDef(file: ScenarioFile): ScenarioDef {
  const def: { -readonly [K in keyof ScenarioDef]: ScenarioDef[K] } = { id: file.id, kind: file.kind, goals: [] };
  if (file.splitView !== undefined) def.splitView = file.splitView;
  if (file.minutes !== undefined) def.minutes = file.minutes;
  if (file.simulator === 'payment-switch' && file.level !== undefined) def.level = file.level;
  if (file.controls) def.controls = { ...file.controls };
  def.goals = file.goals.map((g) => ({ ...g }) as GoalDef);
  if (file.scoreRule !== undefined) def.scoreRule = file.scoreRule;
  if (file.retired !== undefined) def.retired = file.retired;
  if (file.shocks) def.shocks = structuredClone(file.shocks);
  if (file.timeline !== undefined) def.timeline = file.timeline;
  if (file.messages) def.messages = structuredClone(file.messages) as ScenarioDef['messages'];
  if (file.roles) def.roles = structuredClone(file.roles);
  return def;
}

/**
 * A model's built-in scenarios in the order they are offered: each from its file when there is one, else from its
 * definition in code. An id in neither is a mistake in the list.
 */
export function builtInList(
  order: readonly string[],
  files: readonly ScenarioFile[],
  inCode: readonly ScenarioDef[],
): readonly ScenarioDef[] {
  return order.map((id) => {
    const file = files.find((f) => f.id === id);
    const def = file ? toDef(file) : inCode.find((d) => d.id === id);
    if (!def) throw new Error(`built-in scenario "${id}" has neither a file nor a definition`);
    return def;
  });
}
