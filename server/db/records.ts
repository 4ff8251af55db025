// The rows of the classroom as the Store hands them out and as writes carry them: plain values, the same on
// SQLite and PostgreSQL.
import type { RoundConfig, RoundState, RoundView, Tempo, WhatIfOrigin } from '../../shared/protocol/types.ts';
import type { GoalResult, SimulatorId } from '../../shared/sim/types.ts';

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
  /** The content the round plays (scenario_contents); null in rounds stored before contents were kept. */
  scenarioHash: string | null;
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

/** A round as it is first stored: everything but its end. */
export type NewRound = Omit<RoundRecord, 'finishedAt'>;

export interface RoundTeamRecord {
  roundId: number;
  teamId: number;
  idx: number;
  name: string;
  /** The team's what-if origin (teams.what_if). */
  whatIf: WhatIfOrigin | null;
}

export interface MinuteRecord {
  teamId: number;
  minute: number;
  /** The snapshot as JSON text. */
  data: string;
  /** When the minute was sent, epoch ms (null: not kept, in older rows and a what-if's copied minutes). */
  at?: number | null;
}

export interface TeamResultRecord {
  teamId: number;
  goals: GoalResult[];
  score: number | null;
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
  scenarioHash?: string;
  seed?: number | null;
  minutes?: number;
  tempo?: Tempo;
  state?: RoundState;
  minute?: number;
  startedAt?: number;
  finishedAt?: number;
}

/** A scenario's content: the file's text by its hash (scenario_contents), never changed. */
export interface ScenarioContentRecord {
  hash: string;
  simulator: SimulatorId;
  text: string;
}

/** A teacher's own scenario as stored (scenarios), without its text. */
export interface AuthoredRecord {
  teacherId: number;
  /** The file's id. */
  id: string;
  simulator: SimulatorId;
  title: string;
  hash: string;
  version: number;
  shareToken: string | null;
  createdAt: number;
  updatedAt: number;
}
