// A file that comes in (a file input, or a colleague's share link) as a draft to save: read and checked by the
// schema here first (the refusal names the field), then given an id of its own when this teacher already has
// one of that id or it is a built-in's (`<id>-copy`, as the editor proposes).
import type { ScenarioFile } from '$shared/scenarios/format.ts';
import { parseScenarioFile, readScenarioText, ScenarioFileError } from '$shared/scenarios/load.ts';
import { uniqueId } from './edit/draft.ts';

export type Incoming =
  | { ok: true; file: ScenarioFile; renamed: boolean }
  | { ok: false; field: string; message: string };

/** A file's text or value as a scenario to save under an id not taken. */
export function incoming(input: string | unknown, taken: ReadonlySet<string>): Incoming {
  let file: ScenarioFile;
  try {
    file = parseScenarioFile(typeof input === 'string' ? readScenarioText(input) : input);
  } catch (e) {
    if (!(e instanceof ScenarioFileError)) throw e;
    const first = e.issues[0];
    return { ok: false, field: first?.path ?? '', message: e.message };
  }
  if (!taken.has(file.id)) return { ok: true, file, renamed: false };
  return { ok: true, file: { ...file, id: uniqueId(`${file.id}-copy`, taken) }, renamed: true };
}
