// What a round plays, as content: a scenario file's text, addressed by its SHA-256 and stored once
// (scenario_contents). Every round records the hash of the content it was opened with — a teacher's own scenario
// or a built-in — and everything that re-simulates it (a room read back, replays, what-ifs, the coach, the exports,
// verify-replays) plays that content, so that editing or deleting a scenario, or reworking a built-in, leaves the
// rounds already played exact. A round stored before contents were kept (no hash) plays the built-in of its id.
import { createHash } from 'node:crypto';
import { BUILT_IN_FILES } from '../../shared/scenarios/builtin/index.ts';
import { toDef } from '../../shared/scenarios/def.ts';
import type { ScenarioFile } from '../../shared/scenarios/format.ts';
import { fileText, parseScenarioFile, readScenarioText, toFile } from '../../shared/scenarios/load.ts';
import { withScenario } from '../../shared/scenarios/model.ts';
import { scenarioDef } from '../../shared/sim/engine.ts';
import { getModel, isSimulatorId } from '../../shared/sim/registry.ts';
import type { ScenarioDef, SimModel, SimulatorId } from '../../shared/sim/types.ts';
import type { OwnScenario, ScenarioEntry } from '../../shared/protocol/types.ts';
import type { AuthoredRecord, ScenarioContentRecord } from '../db/records.ts';
import { trimOldest } from '../lib/maps.ts';

/** A content read: its record and the file and definition its text holds. */
export interface ScenarioContent extends ScenarioContentRecord {
  file: ScenarioFile;
  def: ScenarioDef;
}

export const contentHash = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** A checked file as content: its text as export writes it, and that text's hash. */
export function contentOfFile(file: ScenarioFile): ScenarioContent {
  const text = fileText(file);
  return { hash: contentHash(text), simulator: file.simulator, text, file, def: toDef(file) };
}

const builtIns = new Map<string, ScenarioContent | null>();

/**
 * A built-in as content: its file (shared/scenarios/builtin/), or — for one still defined in code — its definition
 * as a file, which names the timeline the model keeps in code by the scenario's id. Undefined for no built-in.
 */
export function builtInContent(simulator: SimulatorId, id: string): ScenarioContent | undefined {
  const key = `${simulator}:${id}`;
  let c = builtIns.get(key);
  if (c === undefined) {
    const file = BUILT_IN_FILES[simulator].find((f) => f.id === id);
    const def = getModel(simulator).scenarios.find((s) => s.id === id);
    c = file
      ? contentOfFile(parseScenarioFile(file))
      : def
        ? contentOfFile(toFile(simulator, def, { en: { name: id, brief: id } }))
        : null;
    builtIns.set(key, c);
  }
  return c ?? undefined;
}

/** Whether a built-in of the simulator (offered or retired) has this id; an unknown simulator has none. */
export function isBuiltIn(simulator: string, id: string): boolean {
  return isSimulatorId(simulator) && getModel(simulator).scenarios.some((s) => s.id === id);
}

/** Contents read back, by hash: a class's rounds share a few. */
const read = new Map<string, ScenarioContent>();

/** A stored content's file and definition (parsed once per hash; its text passed the schema when it was stored). */
export function readContent(record: ScenarioContentRecord): ScenarioContent {
  const known = read.get(record.hash);
  if (known) return known;
  const file = parseScenarioFile(readScenarioText(record.text));
  const c = { ...record, file, def: toDef(file) };
  read.set(record.hash, c);
  trimOldest(read, 200);
  return c;
}

/**
 * The model and definition a round plays: its content's, or the built-in of its id when it has none — or when the
 * content is the built-in as this code has it (the same model object then, as every built-in round shares).
 */
export function playOf(
  simulator: SimulatorId,
  scenario: string,
  content: Pick<ScenarioContent, 'hash' | 'def'> | null | undefined,
): { model: SimModel; def: ScenarioDef } {
  const model = getModel(simulator);
  if (!content || builtInContent(simulator, scenario)?.hash === content.hash)
    return { model, def: scenarioDef(model, scenario) };
  return { model: withScenario(model, content.def), def: content.def };
}

/** A round's content read from the store by its hash (undefined for a round without one); throws if it is missing. */
export async function roundContent(
  store: { scenarioContent(hash: string): Promise<ScenarioContentRecord | undefined> },
  round: { id: number; scenarioHash: string | null },
): Promise<ScenarioContent | undefined> {
  if (round.scenarioHash === null) return undefined;
  const record = await store.scenarioContent(round.scenarioHash);
  if (!record) throw new Error(`round ${round.id}: its scenario content ${round.scenarioHash} is missing`);
  return readContent(record);
}

/**
 * The model and definition a stored round plays, its content read by its hash (replays, exports, the coach), and
 * the file when it is not a built-in as this code has it (`own`: its words are the file's).
 */
export async function roundPlay(
  store: { scenarioContent(hash: string): Promise<ScenarioContentRecord | undefined> },
  round: { id: number; simulator: SimulatorId; scenario: string; scenarioHash: string | null },
): Promise<{ model: SimModel; def: ScenarioDef; own: ScenarioFile | undefined; content: ScenarioContent | undefined }> {
  const content = await roundContent(store, round);
  const play = playOf(round.simulator, round.scenario, content);
  // A built-in's words are the app's translations; another scenario's are its file's.
  return { ...play, own: play.model === getModel(round.simulator) ? undefined : content?.file, content };
}

const owns = new WeakMap<ScenarioContent, OwnScenario>();

/** What the desks are sent of a round's scenario when it is a teacher's own (a built-in's is in the app). */
export function ownScenario(content: ScenarioContent | null): OwnScenario | undefined {
  if (!content || isBuiltIn(content.simulator, content.file.id)) return undefined;
  let own = owns.get(content);
  if (!own) {
    const { id, kind, minutes, splitView, controls, goals, roles, briefs, scoreRule } = content.file;
    own = { id, kind, goals, briefs };
    if (scoreRule !== undefined) own.scoreRule = scoreRule;
    if (minutes !== undefined) own.minutes = minutes;
    if (splitView !== undefined) own.splitView = splitView;
    if (controls) own.controls = controls;
    if (roles) own.roles = roles;
    owns.set(content, own);
  }
  return own;
}

/** A teacher's own scenario as a list shows it. */
export const listed = (a: AuthoredRecord): ScenarioEntry => ({
  id: a.id,
  simulator: a.simulator,
  title: a.title,
  source: 'mine',
  version: a.version,
  updatedAt: a.updatedAt,
});
