// The teacher's scenarios over HTTP (docs/protocol.md): the list (built-ins and the teacher's own), one file,
// save (new, or a new version), delete, a share link and a shared file (the editor exports the draft itself). Each
// carries the teacher key as a bearer header, like teacher-api.ts.
import type { ScenarioEntry } from '$shared/protocol/types.ts';
import { call, type Result } from './api.ts';

export type { ScenarioEntry };

/** A scenario's file as the server holds it (`file`: the scenario file's JSON). */
export interface StoredScenario {
  id: string;
  source: 'builtin' | 'mine';
  version?: number;
  shareToken?: string;
  file: unknown;
}

/** A meaning check's finding (errors refuse a save, warnings come back with it). */
export interface ServerFinding {
  level: 'error' | 'warning';
  path: string;
  message: string;
}

export interface Saved {
  id: string;
  version: number;
  findings: ServerFinding[];
}

export interface SharedScenario {
  id: string;
  simulator: string;
  title: string;
  file: unknown;
}

/** A refusal that names the field (`key`), as the server's one error shape gives it. */
export type Refusal = { ok: false; code: string; message?: string; field?: string };
export type SaveResult<T> = { ok: true; value: T } | Refusal;

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const base = '/api/teacher/scenarios';
const one = (id: string) => `${base}/${encodeURIComponent(id)}`;

export const listScenarios = (key: string): Promise<Result<{ scenarios: ScenarioEntry[] }>> =>
  call(base, { headers: auth(key) });

/** One scenario's file; `simulator` tells built-ins of one id apart (each simulator has its own free play). */
export const fetchScenario = (key: string, id: string, simulator?: string): Promise<Result<StoredScenario>> =>
  call(`${one(id)}${simulator ? `?simulator=${encodeURIComponent(simulator)}` : ''}`, { headers: auth(key) });

export const deleteScenario = async (key: string, id: string): Promise<Result<null>> => {
  let res: Response;
  try {
    res = await fetch(one(id), { method: 'DELETE', headers: auth(key) });
  } catch {
    return { ok: false, code: 'NETWORK' };
  }
  if (res.ok) return { ok: true, value: null };
  const body = await res.json().catch(() => null);
  return { ok: false, code: body?.error?.code ?? 'INTERNAL' };
};

/** Saves a new scenario (`id` absent) or a new version of the teacher's own (`id`). The body is the file's text. */
export const saveScenario = (key: string, text: string, id?: string): Promise<SaveResult<Saved>> =>
  send<Saved>(id ? one(id) : base, id ? 'PUT' : 'POST', text, auth(key));

/** The scenario's share link (stable per scenario): `/teacher/scenarios?import=<token>`. */
export const shareScenario = (key: string, id: string): Promise<Result<{ token: string; url: string }>> =>
  call(`${one(id)}/share`, { method: 'POST', headers: auth(key) });

/** A file another teacher shared, by the token of its link. */
export const fetchShared = (key: string, token: string): Promise<Result<SharedScenario>> =>
  call(`${base}/shared/${encodeURIComponent(token)}`, { headers: auth(key) });

async function send<T>(
  path: string,
  method: string,
  text: string,
  headers: Record<string, string>,
): Promise<SaveResult<T>> {
  let res: Response;
  try {
    res = await fetch(path, { method, headers: { ...headers, 'content-type': 'application/json' }, body: text });
  } catch {
    return { ok: false, code: 'NETWORK' };
  }
  const body = await res.json().catch(() => null);
  if (res.ok && body) return { ok: true, value: body as T };
  const error = body?.error ?? {};
  return { ok: false, code: error.code ?? 'INTERNAL', message: error.message, field: error.key };
}
