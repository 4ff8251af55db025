// Error codes of the classroom protocol. Clients translate codes; messages are for logs and tools.
export const ErrorCode = {
  BAD_REQUEST: 'BAD_REQUEST',
  NOT_FOUND: 'NOT_FOUND',
  TOO_LARGE: 'TOO_LARGE',
  RATE_LIMITED: 'RATE_LIMITED',
  ROOM_NOT_FOUND: 'ROOM_NOT_FOUND',
  ROOM_FULL: 'ROOM_FULL',
  /** The teacher locked the room to new students (a token still brings a student back). */
  ROOM_LOCKED: 'ROOM_LOCKED',
  /** The room's last round ended over an hour ago: no longer shown to anonymous viewers or new students. */
  ROOM_CLOSED: 'ROOM_CLOSED',
  /** The teacher has too many rooms not finished (new rooms and what-ifs alike). */
  ROOM_QUOTA: 'ROOM_QUOTA',
  /** The room has had as many rounds as one room keeps (LIMITS.roundsPerRoom). */
  ROUND_LIMIT: 'ROUND_LIMIT',
  /** The teacher's rooms hold as many recorded team-minutes as one teacher may keep. */
  STORAGE_QUOTA: 'STORAGE_QUOTA',
  TEAM_FULL: 'TEAM_FULL',
  BAD_TOKEN: 'BAD_TOKEN',
  BAD_KEY: 'BAD_KEY',
  NOT_JOINED: 'NOT_JOINED',
  NOT_TEACHER: 'NOT_TEACHER',
  /** A page of another site (or of a name this server does not answer to) asked: refused. */
  NOT_ALLOWED: 'NOT_ALLOWED',
  NOT_OWNER: 'NOT_OWNER',
  NOT_IN_TEAM: 'NOT_IN_TEAM',
  UNKNOWN_CONTROL: 'UNKNOWN_CONTROL',
  BAD_VALUE: 'BAD_VALUE',
  OUT_OF_RANGE: 'OUT_OF_RANGE',
  /** The scenario's story has taken the control away for now (the autoscaler being migrated…). */
  CONTROL_UNAVAILABLE: 'CONTROL_UNAVAILABLE',
  BAD_STATE: 'BAD_STATE',
  ROUND_FINISHED: 'ROUND_FINISHED',
  TEAM_NOT_FOUND: 'TEAM_NOT_FOUND',
  PLAYER_NOT_FOUND: 'PLAYER_NOT_FOUND',
  ROUND_NOT_FOUND: 'ROUND_NOT_FOUND',
  REMOVED: 'REMOVED',
  TICK_FAILED: 'TICK_FAILED',
  STORAGE_FAILED: 'STORAGE_FAILED',
  /** The class is paused for a moment: its storage or its other servers cannot be reached; nothing changed. */
  UNAVAILABLE: 'UNAVAILABLE',
  INTERNAL: 'INTERNAL',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface ProtocolError {
  code: ErrorCode;
  message: string;
  /** For control errors: the control key and its allowed values. */
  key?: string;
  allowed?: string;
}

/** Thrown inside the server; turned into `{ ok: false, error }` at the edge. */
export class ClassroomError extends Error {
  override readonly name = 'ClassroomError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { key?: string; allowed?: string } = {},
  ) {
    super(message);
  }
  toJSON(): ProtocolError {
    return { code: this.code, message: this.message, ...this.extra };
  }
}

/** Codes of `notice` messages that are not errors of a request, beside the ErrorCodes. */
export const NoticeCode = {
  /** The server is stopping: running rounds were paused and stored; the page reconnects when it is back. */
  SERVER_STOPPING: 'SERVER_STOPPING',
  /** The round's minutes cannot be stored now: the clock waits and goes on by itself once they can. */
  STORAGE_UNAVAILABLE: 'STORAGE_UNAVAILABLE',
  /** The servers of the class cannot reach each other (Redis): rounds wait and go on by themselves once they can. */
  CLUSTER_UNAVAILABLE: 'CLUSTER_UNAVAILABLE',
  /** What paused the class is over: the round goes on (clears the notices above). */
  RESUMED: 'RESUMED',
} as const;
export type NoticeCode = (typeof NoticeCode)[keyof typeof NoticeCode];
