// The HTTP calls of the web app: create a room, look a code up (the teacher's history and replay
// calls are in teacher-api.ts). Everything else is socket.io.
import type { JoinInfo, RoomView, RoundConfig } from '$shared/protocol/types.ts';

export interface Created {
  code: string;
  teacherKey: string;
  joinPath: string;
  room: RoomView;
}
export interface RoomInfo {
  code: string;
  simulator: string;
  scenario: string;
  state: string;
  teams: number;
  players: number;
  /** The teacher locked the room: no new student gets in (a student with a token still does). */
  locked?: boolean;
}
/** An error code from the server, or NETWORK when it could not be reached. */
export type Result<T> = { ok: true; value: T } | { ok: false; code: string };

export async function call<T>(path: string, init?: RequestInit): Promise<Result<T>> {
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch {
    return { ok: false, code: 'NETWORK' };
  }
  const body = await res.json().catch(() => null);
  if (res.ok && body) return { ok: true, value: body as T };
  return { ok: false, code: body?.error?.code ?? 'INTERNAL' };
}

export function createRoom(config: Partial<RoundConfig>, teacherKey: string | null): Promise<Result<Created>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (teacherKey) headers.authorization = `Bearer ${teacherKey}`;
  return call<Created>('/api/rooms', { method: 'POST', headers, body: JSON.stringify(config) });
}

export function lookupRoom(code: string): Promise<Result<RoomInfo>> {
  return call<RoomInfo>(`/api/rooms/${encodeURIComponent(code)}`);
}

export const fetchJoinInfo = (): Promise<Result<JoinInfo>> => call<JoinInfo>('/api/info');
