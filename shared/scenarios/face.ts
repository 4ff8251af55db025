// A scenario file as the screens draw it (`ScenarioFace`: the definition without its shocks), and the models' lists
// of built-ins made of files and of definitions still in code. Nothing here reads a file's `shocks`, so that the
// bundler leaves the built-ins' timelines out of the pages that only draw a round (the student's desk); the engine
// adds them (def.ts).
import type { GoalDef, ScenarioDef, ScenarioFace } from '../sim/types.ts';
import type { ScenarioFile } from './format.ts';

/** What screens draw of a file (already checked): the definition without its shocks. */
export function toFace(file: ScenarioFile): ScenarioFace {
  const def: { -readonly [K in keyof ScenarioFace]: ScenarioFace[K] } = { id: file.id, kind: file.kind, goals: [] };
  if (file.splitView !== undefined) def.splitView = file.splitView;
  if (file.minutes !== undefined) def.minutes = file.minutes;
  if (file.simulator === 'payment-switch' && file.level !== undefined) def.level = file.level;
  if (file.controls) def.controls = { ...file.controls };
  def.goals = file.goals.map((g) => ({ ...g }) as GoalDef);
  if (file.scoreRule !== undefined) def.scoreRule = file.scoreRule;
  if (file.retired !== undefined) def.retired = file.retired;
  if (file.timeline !== undefined) def.timeline = file.timeline;
  if (file.messages) def.messages = structuredClone(file.messages) as ScenarioDef['messages'];
  if (file.roles) def.roles = structuredClone(file.roles);
  return def;
}

/**
 * A model's built-in scenarios in the order they are offered: each from its file when there is one, else from its
 * definition in code. An id in neither is a mistake in the list.
 */
export function builtInList<D extends ScenarioFace>(
  order: readonly string[],
  files: readonly ScenarioFile[],
  inCode: readonly D[],
  fromFile: (file: ScenarioFile) => D,
): readonly D[] {
  return order.map((id) => {
    const file = files.find((f) => f.id === id);
    const def = file ? fromFile(file) : inCode.find((d) => d.id === id);
    if (!def) throw new Error(`built-in scenario "${id}" has neither a file nor a definition`);
    return def;
  });
}
