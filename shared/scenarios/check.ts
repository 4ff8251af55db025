// A scenario file checked at the first two depths: the schema (a ScenarioFileError naming each field) and its
// meaning against its model (findings: errors refuse the file, warnings come back with it). The third depth —
// does it teach — is `checkTeaching` (teaching.ts), which plays rounds.
import { getMeta } from '../sim/meta.ts';
import type { ScenarioDef } from '../sim/types.ts';
import type { ScenarioFile } from './format.ts';
import { toDef } from './def.ts';
import { parseScenarioFile, readScenarioText, ScenarioFileError } from './load.ts';
import { checkMeaning, type Finding, type MeaningOptions } from './meaning.ts';

export interface Checked {
  file: ScenarioFile;
  def: ScenarioDef;
  /** The meaning checks' findings (errors and warnings). */
  findings: Finding[];
}

/** A file's text or parsed value through the schema and the meaning checks. Throws only for the schema. */
export function checkScenario(input: string | unknown, opts: MeaningOptions = {}): Checked {
  const file = parseScenarioFile(typeof input === 'string' ? readScenarioText(input) : input);
  return { file, def: toDef(file), findings: checkMeaning(getMeta(file.simulator), file, opts) };
}

/** `checkScenario`, refusing a file with any error of meaning too (the warnings come back). */
export function acceptScenario(input: string | unknown, opts: MeaningOptions = {}): Checked {
  const checked = checkScenario(input, opts);
  const errors = checked.findings.filter((f) => f.level === 'error');
  if (errors.length > 0) throw new ScenarioFileError(errors.map(({ path, message }) => ({ path, message })));
  return checked;
}
