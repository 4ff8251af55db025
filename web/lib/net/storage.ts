// What the browser keeps between visits: a student token per room code, and the teacher key.
// localStorage may be unavailable (private modes, blocked storage): then nothing is remembered.

const TOKEN_PREFIX = 'opsroom.student.';
const TEACHER_KEY = 'opsroom.teacherKey';
const READ_PREFIX = 'opsroom.read.';
const TYPED_PREFIX = 'opsroom.typed.';

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}
function write(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Not remembered: the student types their name again after a reload.
  }
}

export const loadToken = (code: string): string | null => read(TOKEN_PREFIX + code);
export const saveToken = (code: string, token: string): void => write(TOKEN_PREFIX + code, token);
export const clearToken = (code: string): void => write(TOKEN_PREFIX + code, null);

/** The name a student typed when the room gave them another one (a teammate has it: "Ana 2"), until they have read why. */
export const loadTypedName = (code: string): string | null => read(TYPED_PREFIX + code);
export const saveTypedName = (code: string, name: string | null): void => write(TYPED_PREFIX + code, name);

/** The key of a room someone practises in alone: theirs, kept with their seat's token, not as a teacher's key. */
const PRACTICE_PREFIX = 'opsroom.practice.';
export const loadPracticeKey = (code: string): string | null => read(PRACTICE_PREFIX + code);
export const savePracticeKey = (code: string, key: string): void => write(PRACTICE_PREFIX + code, key);

export const loadTeacherKey = (): string | null => read(TEACHER_KEY);
export const saveTeacherKey = (key: string): void => write(TEACHER_KEY, key);

/** Which events of a round this browser's student has read (the desk's banner), by `roundId.teamId`. */
export function loadReadEvents(key: string): string[] {
  try {
    const ids: unknown = JSON.parse(read(READ_PREFIX + key) ?? '[]');
    return Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}
export const saveReadEvents = (key: string, ids: readonly string[]): void =>
  write(READ_PREFIX + key, JSON.stringify(ids));

/** The teacher key carried in a copied link's fragment (`#key=…`), which never reaches the server. */
export function keyFromFragment(hash: string): string | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const key = params.get('key');
  return key && key.length >= 16 ? key : null;
}
