// The built-in scenarios as files: each passes the schema and its model's checks, loads to exactly the
// definition the engine played before the files existed, and plays exactly the same rounds (before.json: the
// definitions and a hash of every snapshot, result and final state on four seeds, noise on and off, recorded
// from the definitions in code). The converter turns a built-in still in code into a file that plays alike.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { exportBuiltIn, builtInPath, SCHEMA_FILE } from '../../server/cli/scenario-export.ts';
import { BUILT_IN_FILES } from '../../shared/scenarios/builtin/index.ts';
import { checkMeaning } from '../../shared/scenarios/meaning.ts';
import { toDef } from '../../shared/scenarios/def.ts';
import { scenarioJsonSchema } from '../../shared/scenarios/format.ts';
import { parseScenarioFile } from '../../shared/scenarios/load.ts';
import { withScenario } from '../../shared/scenarios/model.ts';
import { runRound, scenarioDef } from '../../shared/sim/engine.ts';
import { getMeta } from '../../shared/sim/meta.ts';
import { RECIPES } from '../../shared/sim/payment-switch/recipes.ts';
import { RECIPES as RETIRED_RECIPES } from '../../shared/sim/payment-switch/shift.ts';
import { SETUPS } from '../../shared/sim/web-service/setups.ts';
import { models } from '../../shared/sim/registry.ts';
import type { SimModel, SimulatorId } from '../../shared/sim/types.ts';

const before = JSON.parse(readFileSync(new URL('./before.json', import.meta.url), 'utf8')) as Record<
  string,
  { def: unknown; runs: Record<string, string> }
>;

/** The hashes before.json holds, for one scenario of a model (`day`: an authored day kept in the state, not played). */
function runs(model: SimModel, id: string): Record<string, string> {
  const def = scenarioDef(model, id);
  const out: Record<string, string> = {};
  for (const noise of [true, false])
    for (const seed of [1, 2, 3, 4242]) {
      const r = runRound(model, { scenario: id, seed, noise, minutes: def.minutes ?? model.defaultMinutes });
      out[`${seed}-${noise ? 'on' : 'off'}`] = createHash('sha256')
        .update(JSON.stringify([r.snapshots, r.result, { ...r.final, day: undefined }]))
        .digest('hex')
        .slice(0, 16);
    }
  return out;
}

const simulators = Object.keys(BUILT_IN_FILES) as SimulatorId[];

describe.each(simulators)('%s built-in files', (sim) => {
  const files = BUILT_IN_FILES[sim];
  const onDisk = readdirSync(new URL(`../../shared/scenarios/builtin/${sim}/`, import.meta.url)).filter((f) =>
    f.endsWith('.json'),
  );

  test('every file in the folder is listed, and the model offers each', () => {
    expect(files.map((f) => `${f.id}.json`).sort()).toEqual([...onDisk].sort());
    for (const f of files) expect(models[sim].scenarios.map((s) => s.id)).toContain(f.id);
  });

  test.each(files.map((f) => [f.id, f] as const))('%s passes the schema and the meaning checks', (_, f) => {
    const file = parseScenarioFile(f);
    expect(file.simulator).toBe(sim);
    expect(checkMeaning(getMeta(sim), file, { builtIn: true }).filter((i) => i.level === 'error')).toEqual([]);
  });

  test.each(files.map((f) => [f.id, f] as const))('%s loads to the definition the engine played before', (id, f) => {
    expect(toDef(parseScenarioFile(f))).toEqual(before[`${sim}/${id}`].def);
    expect(scenarioDef(models[sim], id)).toEqual(before[`${sim}/${id}`].def);
  });

  test.each(files.map((f) => [f.id] as const))('%s plays the same rounds as before', (id) => {
    expect(runs(models[sim], id)).toEqual(before[`${sim}/${id}`].runs);
  });

  test.each(files.map((f) => [f.id, f] as const))('%s is what the converter writes (words as en.json)', (id, f) => {
    expect(exportBuiltIn(sim, id)).toEqual(f);
    expect(JSON.parse(readFileSync(builtInPath(sim, id), 'utf8'))).toEqual(f);
  });
});

// The two full shifts converted from code: each file's shocks are the library form of its timeline in code (recipes.ts,
// setups.ts), which a scenario may still name; both play the same rounds.
test.each([
  ['payment-switch', 'black-friday'],
  ['web-service', 'product-launch'],
] as const)('%s %s: its file plays the same rounds as its timeline in code', (sim, id) => {
  const model = models[sim];
  const { shocks, ...def } = scenarioDef(model, id);
  expect(shocks?.episodes.length).toBeGreaterThan(3);
  const fromCode = withScenario(model, { ...def, timeline: id });
  expect(runs(fromCode, id)).toEqual(runs(model, id));
});

test('the timelines a scenario may name are the ones the models have in code', () => {
  const ps = [
    'free',
    'sale-surge',
    'fraud-wave',
    'issuer-outage',
    ...Object.keys(RETIRED_RECIPES),
    ...Object.keys(RECIPES),
  ];
  expect([...(getMeta('payment-switch').timelines ?? [])].sort()).toEqual(ps.sort());
  expect([...(getMeta('web-service').timelines ?? [])].sort()).toEqual(Object.keys(SETUPS).sort());
});

test('the published JSON Schema is the schema in code', () => {
  expect(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8'))).toEqual(scenarioJsonSchema());
});
