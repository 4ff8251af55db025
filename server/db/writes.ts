// What a room asks the database to do, as data: a transition returns a list of these and the Store
// applies the list in one transaction. Rows that others refer to carry the id the transition drew
// from the Store's id source, so the next state can name them before they are written.
import type { GoalResult } from '../../shared/sim/types.ts';
import type {
  ChangeRecord,
  RoleChange,
  RoundConfig,
  RoundState,
  TeacherMessage,
  Tempo,
  WhatIfOrigin,
} from '../../shared/protocol/types.ts';
import type { SimulatorId } from '../../shared/sim/types.ts';
import type { RoundRecord } from './store.ts';

/** Tables whose rows get their id from the id source. */
export type IdTable = 'teachers' | 'rooms' | 'teams' | 'players' | 'rounds' | 'changes' | 'messages';

/**
 * Fresh ids, handed out synchronously while a transition runs. `ready()` is awaited before each
 * transition: an implementation that draws ids from the database (PostgreSQL sequences) refills
 * its pool there; SQLite counts from `max(id)` at open (this process being the only writer).
 */
export interface IdSource {
  next(table: IdTable): number;
  ready(): Promise<void>;
}

export interface MinuteRecord {
  teamId: number;
  minute: number;
  /** The snapshot, already serialised (the same text is broadcast). */
  data: string;
}

export interface TeamResultRecord {
  teamId: number;
  goals: GoalResult[];
  score: number | null;
}

export interface PlayerPatch {
  /** A newcomer's name with a suffix ("Ana 2") when the team already has it. */
  name?: string;
  teamId?: number | null;
  seq?: number;
  roles?: readonly string[];
  removed?: boolean;
}

export interface RoundPatch {
  simulator?: SimulatorId;
  scenario?: string;
  seed?: number | null;
  minutes?: number;
  tempo?: Tempo;
  state?: RoundState;
  minute?: number;
  startedAt?: number;
  finishedAt?: number;
}

/** A member of a team during a round, with every role they held in it (round_members). */
export interface RoundMemberRecord {
  teamId: number;
  playerId: number;
  /** Order of arrival in the team during the round. */
  seq: number;
  name: string;
  roles: readonly string[];
}

/** A round as it is first stored: everything but its end. */
export type NewRound = Omit<RoundRecord, 'finishedAt'>;

export type Write =
  | { op: 'insertTeacher'; id: number; keyHash: string; createdAt: number }
  | { op: 'insertRoom'; id: number; code: string; teacherId: number; config: RoundConfig; createdAt: number }
  | { op: 'setRoomConfig'; roomId: number; config: RoundConfig }
  | { op: 'setRoomFlags'; roomId: number; set: { locked?: boolean; replayShared?: boolean } }
  | { op: 'insertTeam'; id: number; roomId: number; idx: number; name: string; whatIf?: WhatIfOrigin | null }
  | { op: 'renameTeam'; teamId: number; name: string }
  | {
      op: 'insertPlayer';
      id: number;
      roomId: number;
      teamId: number | null;
      name: string;
      tokenHash: string;
      seq: number;
      roles: readonly string[];
      joinedAt: number;
    }
  | { op: 'updatePlayer'; id: number; set: PlayerPatch }
  | { op: 'insertRound'; round: NewRound }
  | { op: 'updateRound'; id: number; set: RoundPatch }
  | { op: 'insertRoundTeams'; roundId: number; teams: readonly { teamId: number; idx: number; name: string }[] }
  | { op: 'renameRoundTeam'; roundId: number; teamId: number; name: string }
  | { op: 'insertChanges'; changes: readonly ChangeRecord[] }
  | { op: 'insertSnapshots'; roundId: number; rows: readonly MinuteRecord[] }
  | { op: 'insertResults'; roundId: number; results: readonly TeamResultRecord[] }
  | { op: 'insertRoleChanges'; changes: readonly RoleChange[] }
  /** Inserts each member, or replaces their name and roles. */
  | { op: 'upsertRoundMembers'; roundId: number; members: readonly RoundMemberRecord[] }
  | { op: 'insertMessage'; message: TeacherMessage }
  /**
   * Cluster mode: the room's fencing token, checked and stored in the same transaction as the room's other
   * writes — refused (FencedError, nothing stored) when a higher token is stored, i.e. another process owns the room.
   */
  | { op: 'fence'; roomId: number; token: number; at: number };

/** A commit refused because another process has taken the room since (its fencing token is higher). */
export class FencedError extends Error {
  override readonly name = 'FencedError';
  constructor(
    readonly roomId: number,
    readonly token: number,
  ) {
    super(`room ${roomId}: fencing token ${token} is stale; another process owns the room`);
  }
}

/**
 * The minute a write moves its round to, when that is all it does: what every tick writes besides its snapshots, which
 * both Stores apply in a cheaper way than a general round update (a prepared statement; one statement for a batch).
 */
export function minuteMove(w: Write): { id: number; minute: number } | null {
  if (w.op !== 'updateRound' || w.set.minute === undefined) return null;
  for (const k in w.set) if (k !== 'minute') return null;
  return { id: w.id, minute: w.set.minute };
}
