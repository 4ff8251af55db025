// `npm run scenario-export -- --model M --scenario ID [--out FILE]`: writes a built-in scenario that is
// still defined in code (its ScenarioDef, its recipe or setup, its English words from web/messages) as a
// scenario file — by default into shared/scenarios/builtin/, where the model's list then takes it from.
// `-- --schema` writes the published JSON Schema (docs/scenario.schema.json) from the schema in code.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { toFile, fileText, type Briefs } from '../../shared/scenarios/load.ts';
import { type ScenarioFile, scenarioJsonSchema } from '../../shared/scenarios/format.ts';
import { shocksInCode } from '../../shared/scenarios/in-code.ts';
import { scenarioDef } from '../../shared/sim/engine.ts';
import { getModel, isSimulatorId } from '../../shared/sim/registry.ts';
import type { ScenarioDef, SimulatorId } from '../../shared/sim/types.ts';
import { projectPath } from '../lib/paths.ts';

/** The published JSON Schema of a scenario file (served at SCHEMA_PATH). */
export const SCHEMA_FILE = projectPath('docs', 'scenario.schema.json');

const PREFIX: Record<SimulatorId, string> = { 'payment-switch': 'ps', 'web-service': 'ws' };

/** Where a built-in scenario's file lives. */
export function builtInPath(model: SimulatorId, id: string): string {
  return projectPath('shared', 'scenarios', 'builtin', model, `${id}.json`);
}

/** A built-in's English words, as the app's translations hold them (web/messages/en.json). */
export function builtInBriefs(model: SimulatorId, def: ScenarioDef): Briefs {
  const en = JSON.parse(readFileSync(projectPath('web', 'messages', 'en.json'), 'utf8')) as Record<string, string>;
  const base = `${PREFIX[model]}_scn_${def.id.replace(/-/g, '_')}`;
  const goals: Record<string, string> = {};
  for (const g of def.goals) {
    const text = en[`${PREFIX[model]}_goal_${def.id.replace(/-/g, '_')}_${g.id}`];
    if (text) goals[g.id] = text;
  }
  if (!en[base] || !en[`${base}_brief`]) throw new Error(`web/messages/en.json has no name or brief for ${def.id}`);
  return { en: { name: en[base], brief: en[`${base}_brief`], ...(def.goals.length ? { goals } : {}) } };
}

/** A built-in defined in code, as a scenario file (checked by the schema on the way). */
export function exportBuiltIn(model: SimulatorId, id: string): ScenarioFile {
  const def = { ...scenarioDef(getModel(model), id) };
  const shocks = shocksInCode(model, id);
  if (shocks) def.shocks = shocks;
  return toFile(model, def, builtInBriefs(model, def));
}

export function runExport(argv: readonly string[]): { out: string; text: string } {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      model: { type: 'string' },
      scenario: { type: 'string' },
      out: { type: 'string' },
      schema: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.schema) {
    const out = values.out ?? SCHEMA_FILE;
    const text = `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
    writeFileSync(out, text);
    return { out, text };
  }
  if (!isSimulatorId(values.model)) throw new Error('--model: payment-switch or web-service');
  if (!values.scenario) throw new Error('--scenario ID is required');
  const text = fileText(exportBuiltIn(values.model, values.scenario));
  const out = values.out ?? builtInPath(values.model, values.scenario);
  writeFileSync(out, text);
  return { out, text };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const { out } = runExport(process.argv.slice(2));
    // As the project's formatter writes JSON (short arrays on one line), so that `npm run lint` passes.
    spawnSync(projectPath('node_modules', '.bin', 'biome'), ['format', '--write', out], { stdio: 'ignore' });
    process.stdout.write(`wrote ${out}\n`);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exitCode = 2;
  }
}
