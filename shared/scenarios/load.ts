// Reading a scenario file: its text within the limits, the schema, and the ScenarioDef the engine plays (and
// back: a definition as a file, for the built-ins and for export). Pure; the browser runs it too.
import type { z } from 'zod';
import type { ScenarioDef, SimulatorId } from '../sim/types.ts';
import { toDef } from './def.ts';
import { LIMITS, SCHEMA_VERSION, type ScenarioFile, scenarioFileSchema } from './format.ts';

/** One thing wrong with a file: where (a field path, e.g. `goals[2].target`; empty for the whole file) and what. */
export interface Issue {
  path: string;
  message: string;
}

/** A file refused: the issues, each naming its field. */
export class ScenarioFileError extends Error {
  override readonly name = 'ScenarioFileError';
  constructor(readonly issues: readonly Issue[]) {
    super(describeIssues(issues));
  }
}

/** "goals[2].target: Too big…; id: …", at most a few, then how many more. */
export function describeIssues(issues: readonly Issue[], max = 5): string {
  const shown = issues.slice(0, max).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
  const more = issues.length > max ? `; and ${issues.length - max} more` : '';
  return `${shown.join('; ')}${more}`;
}

/** `['goals', 2, 'target']` → `goals[2].target`. */
export function pathOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out;
}

/** How deep the text nests objects and arrays, read without parsing (a hostile nesting never reaches JSON.parse). */
function nesting(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** A file's text as a value: refused when too big, too deep or not JSON. */
export function readScenarioText(text: string): unknown {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > LIMITS.bytes)
    throw new ScenarioFileError([{ path: '', message: `the file has ${bytes} bytes; at most ${LIMITS.bytes}` }]);
  const depth = nesting(text);
  if (depth > LIMITS.depth)
    throw new ScenarioFileError([
      { path: '', message: `the file nests ${depth} levels deep; at most ${LIMITS.depth}` },
    ]);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ScenarioFileError([{ path: '', message: `not JSON: ${(e as Error).message}` }]);
  }
}

/** A nesting check for a value that did not come as text (an object handed over in the page or a test). */
function depthOf(v: unknown, d = 0): number {
  if (d > LIMITS.depth || v === null || typeof v !== 'object') return d;
  let max = d + 1;
  for (const x of Object.values(v)) max = Math.max(max, depthOf(x, d + 1));
  return max;
}

function issuesOf(error: z.ZodError): Issue[] {
  return error.issues.map((i) => ({ path: pathOf(i.path), message: wording(i) }));
}

/** zod's words where they are clear; ours where a teacher would not follow them. */
function wording(i: z.core.$ZodIssue): string {
  if (i.code === 'unrecognized_keys') return `unknown field${i.keys.length > 1 ? 's' : ''} ${i.keys.join(', ')}`;
  if (i.code === 'invalid_union' && 'note' in i && i.note === 'No matching discriminator')
    return `unknown ${String(i.discriminator ?? 'kind')}`;
  return i.message;
}

/** The schema's check of a value: the file, or every issue with its field. */
export function parseScenarioFile(value: unknown): ScenarioFile {
  if (depthOf(value) > LIMITS.depth)
    throw new ScenarioFileError([{ path: '', message: `the file nests too deep; at most ${LIMITS.depth} levels` }]);
  if (typeof value === 'object' && value !== null && 'schemaVersion' in value) {
    const v = (value as { schemaVersion: unknown }).schemaVersion;
    if (typeof v === 'number' && v > SCHEMA_VERSION)
      throw new ScenarioFileError([
        { path: 'schemaVersion', message: `version ${v} is newer than this Opsroom reads (${SCHEMA_VERSION})` },
      ]);
  }
  const r = scenarioFileSchema.safeParse(value);
  if (!r.success) throw new ScenarioFileError(issuesOf(r.error));
  return r.data;
}

/** The words of a scenario as a file carries them, by language (English required). */
export type Briefs = ScenarioFile['briefs'];

/** A definition as a file: what the converter writes for a built-in still in code, and what export gives. */
export function toFile(simulator: SimulatorId, def: ScenarioDef, briefs: Briefs): ScenarioFile {
  const file: Record<string, unknown> = { schemaVersion: SCHEMA_VERSION, id: def.id, simulator, kind: def.kind };
  if (def.level !== undefined) file.level = def.level;
  if (def.retired !== undefined) file.retired = def.retired;
  if (def.scoreRule !== undefined) file.scoreRule = def.scoreRule;
  if (def.minutes !== undefined) file.minutes = def.minutes;
  if (def.splitView !== undefined) file.splitView = def.splitView;
  if (def.controls) file.controls = { ...def.controls };
  if (def.timeline !== undefined) file.timeline = def.timeline;
  if (def.shocks) file.shocks = structuredClone(def.shocks);
  if (def.messages) file.messages = structuredClone(def.messages);
  file.goals = def.goals.map((g) => ({ ...g }));
  if (def.roles) file.roles = structuredClone(def.roles);
  file.briefs = structuredClone(briefs);
  return parseScenarioFile(file);
}

/** A file as the text export gives (and the built-ins are stored as). */
export function fileText(file: ScenarioFile): string {
  const ordered: Record<string, unknown> = {};
  for (const k of ORDER) if (k in file) ordered[k] = (file as Record<string, unknown>)[k];
  return `${JSON.stringify({ ...ordered, ...file }, null, 2)}\n`;
}

/** The order a file's fields are written in: what it is, how it starts, what happens, what is asked, the words. */
const ORDER = [
  '$schema',
  'schemaVersion',
  'id',
  'simulator',
  'kind',
  'level',
  'retired',
  'scoreRule',
  'minutes',
  'splitView',
  'controls',
  'timeline',
  'shocks',
  'messages',
  'goals',
  'roles',
  'briefs',
];

/** Text → checked file → definition, the whole way a file comes in (meaning checks are `checkMeaning`). */
export function loadScenarioText(text: string): { file: ScenarioFile; def: ScenarioDef } {
  const file = parseScenarioFile(readScenarioText(text));
  return { file, def: toDef(file) };
}
