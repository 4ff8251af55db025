// Every read and write the classroom makes, as an interface whose methods return Promises, so a room
// runs the same on SQLite (server/db/sqlite.ts) or on a networked database. Writes are data
// (writes.ts), applied by `commit` in one transaction.
import type {
  ChangeRecord,
  RoleChange,
  RoundConfig,
  RoundState,
  RoundView,
  TeacherMessage,
  Tempo,
  WhatIfOrigin,
} from '../../shared/protocol/types.ts';
import type { SimulatorId } from '../../shared/sim/types.ts';
import type { CheckpointStatus } from './checkpointer.ts';
import type { IdSource, MinuteRecord, RoundMemberRecord, TeamResultRecord, Write } from './writes.ts';

export interface RoomRecord {
  id: number;
  code: string;
  teacherId: number;
  /** The configuration of the next round. */
  config: RoundConfig;
  createdAt: number;
  locked: boolean;
  replayShared: boolean;
  /** The highest fencing token stored with a commit of this room (cluster mode; 0 otherwise). */
  fence: number;
  /** When a commit last carried the fence, or null. */
  fencedAt: number | null;
}

export interface TeamRecord {
  id: number;
  roomId: number;
  idx: number;
  name: string;
  whatIf: WhatIfOrigin | null;
}

export interface PlayerRecord {
  id: number;
  roomId: number;
  teamId: number | null;
  name: string;
  seq: number;
  roles: string[];
  removed: boolean;
  joinedAt: number;
}

export interface RoundRecord {
  id: number;
  roomId: number;
  number: number;
  simulator: SimulatorId;
  scenario: string;
  seed: number | null;
  minutes: number;
  tempo: Tempo;
  noise: boolean;
  state: RoundState;
  /** Last stored minute; -1 before the start. */
  minute: number;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  forkOf: RoundView['forkOf'];
}

export interface RoundTeamRecord {
  roundId: number;
  teamId: number;
  idx: number;
  name: string;
  /** The team's what-if origin (teams.what_if). */
  whatIf: WhatIfOrigin | null;
}

export interface Store {
  readonly ids: IdSource;
  /** Applies every list in one transaction: all of them or none. */
  commit(lists: readonly (readonly Write[])[]): Promise<void>;
  close(): Promise<void>;
  /** The database's own check of its pages at opening: ['ok'], or what it found wrong (db/health.ts). */
  readonly integrity: readonly string[];
  /** Writes and commits one row that holds no classroom data; rejects when the database cannot be written. */
  probe(at: number): Promise<void>;
  /** SQLite with its writer thread: the log's checkpoints (checkpointer.ts); null where the engine keeps its own log. */
  checkpoints(): CheckpointStatus | null;

  /**
   * Cluster mode: stores `token` as the room's fence if it is higher than the stored one, so that from now on
   * only commits with `token` or higher are accepted. Returns the room as it stood (`fencedAt` of the previous
   * owner's last commit), or undefined when the room is missing or a token at least as high is stored.
   */
  claimRoom(roomId: number, token: number): Promise<RoomRecord | undefined>;
  /** Rooms whose latest round is running (cluster mode: the rooms a process must take when nobody holds them). */
  roomsInPlay(): Promise<RoomRecord[]>;

  teacherByKeyHash(keyHash: string): Promise<number | undefined>;
  codeExists(code: string): Promise<boolean>;
  roomByCode(code: string): Promise<RoomRecord | undefined>;
  roomById(id: number): Promise<RoomRecord | undefined>;
  /** Newest first. */
  roomsOfTeacher(teacherId: number): Promise<RoomRecord[]>;

  /** By index. */
  teamsOfRoom(roomId: number): Promise<TeamRecord[]>;
  /** By id, removed ones included. */
  playersOfRoom(roomId: number): Promise<PlayerRecord[]>;
  playerByTokenHash(tokenHash: string): Promise<PlayerRecord | undefined>;

  roundById(id: number): Promise<RoundRecord | undefined>;
  latestRound(roomId: number): Promise<RoundRecord | undefined>;
  /** Newest first. */
  roundsOfRoom(roomId: number): Promise<RoundRecord[]>;
  roundsInState(states: readonly RoundState[]): Promise<RoundRecord[]>;
  /** Rounds forked from this one, oldest first. */
  forksOf(roundId: number): Promise<RoundRecord[]>;
  /** The teams that play a round, by index. */
  roundTeams(roundId: number): Promise<RoundTeamRecord[]>;

  /** In arrival order (by id). */
  changesOfRound(roundId: number, only?: { teamId: number; upToMinute: number }): Promise<ChangeRecord[]>;
  /** By team, then minute. */
  snapshotsOfRound(roundId: number, only?: { teamId: number; upToMinute?: number }): Promise<MinuteRecord[]>;
  resultsOfRound(roundId: number): Promise<TeamResultRecord[]>;

  /** Oldest first. */
  roleChangesOfRound(roundId: number): Promise<RoleChange[]>;
  /** By team, then order of arrival. */
  roundMembers(roundId: number): Promise<RoundMemberRecord[]>;
  /** The rounds a player was a member of, with the team: newest round first. */
  roundsOfPlayer(playerId: number): Promise<{ roundId: number; teamId: number }[]>;
  /** Oldest first. */
  messagesOfRound(roundId: number): Promise<TeacherMessage[]>;
  /** Rooms of the teacher created since `since` (epoch ms) whose latest round is not finished. */
  liveRoomCount(teacherId: number, since: number): Promise<number>;
}
