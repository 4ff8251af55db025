// A room's state as one immutable value: configuration, teams, players and the round with every
// team's simulation. Transitions (transitions/*.ts) build the next value and never change this one;
// who is connected right now is not part of it (presence.ts).
import type { ScenarioContent } from './scenario-content.ts';
import type {
  ChangeRecord,
  LedgerFigures,
  RoleChange,
  RoundConfig,
  RoundState,
  RoundView,
  SeatPilot,
  SeatTurn,
  TeacherMessage,
  Tempo,
  WhatIfOrigin,
} from '../../shared/protocol/types.ts';
import type { SeatMemory } from '../../shared/classroom/autopilot.ts';
import type { GoalTallies } from '../../shared/sim/score.ts';
import type { GoalResult, ScenarioDef, SimModel, SimStateBase, SimulatorId, Snapshot } from '../../shared/sim/types.ts';
import type { RoundMemberRecord } from '../db/records.ts';
import type { AppendOnly } from './append-only.ts';
import type { RoundBaseline } from './baseline.ts';

export interface PlayerState {
  readonly id: number;
  readonly name: string;
  readonly teamId: number | null;
  /** Order within the team: the deal of roles follows it. */
  readonly seq: number;
  /** Role ids this player owns, in the simulator's order; they change hands only as transitions/roles.ts says. */
  readonly roles: readonly string[];
  readonly removed: boolean;
  /**
   * Who plays the seat instead of its student (the autopilot, the teacher), if anyone. Not a column of its own: a
   * room read back takes it from the round's last seat turn of the player (load.ts).
   */
  readonly pilot: SeatPilot | null;
  /** A bot of a rehearsal or a practice (its skill): a seat the autopilot plays whenever nobody else does. */
  readonly bot: SeatPilot['skill'] | null;
}

/** An autopilot's memory of one seat: each of its roles' policy state (shared/policies), by role. */
export type AutopilotMemory = SeatMemory;

export interface TeamState {
  readonly id: number;
  /** Position in the room: the first `config.teamCount` teams play. */
  readonly idx: number;
  readonly name: string;
  /** In a what-if room: the team it was forked from. */
  readonly whatIf: WhatIfOrigin | null;
}

export interface TeamRun {
  readonly teamId: number;
  readonly idx: number;
  readonly name: string;
  /**
   * The simulation, to step the next minute from; null for a team of a finished round read back from its
   * stored minutes (load.ts), which never steps again.
   */
  readonly sim: SimStateBase | null;
  /**
   * The latest minute. The earlier ones are not kept: they are in the database, stored before they were seen,
   * and a desk's history is read from there (Room.historyFor). A round's past minutes held as objects were a
   * third of what the collector copied at 10,000 students.
   */
  readonly snapshot: Snapshot;
  /**
   * The headline indicators of every minute so far, for the teacher's trends: minute m's values at
   * m·k … m·k + k − 1, k the model's headline indicators in their order (one block of numbers, not an object
   * a minute).
   */
  readonly headlines: AppendOnly<number>;
  /** Every change of the round for this team, applied or pending, in arrival order. */
  readonly changes: AppendOnly<ChangeRecord>;
  readonly progress: readonly GoalResult[];
  readonly score: number | null;
  /** The ledger at the latest minute against the round's baseline at that minute. */
  readonly ledger: LedgerFigures;
  /** The goals' running tallies over the minutes so far: the next minute adds to them. */
  readonly tallies: GoalTallies;
}

export interface RoundRun {
  readonly id: number;
  readonly number: number;
  readonly state: RoundState;
  readonly simulator: SimulatorId;
  readonly scenario: string;
  readonly seed: number | null;
  readonly noise: boolean;
  readonly minutes: number;
  readonly tempo: Tempo;
  /** Last stored minute; -1 in the lobby. */
  readonly minute: number;
  readonly forkOf: RoundView['forkOf'];
  readonly model: SimModel;
  readonly scenarioDef: ScenarioDef;
  /** The content it plays, whose hash the round records (null: a round stored before contents were, a built-in). */
  readonly content: ScenarioContent | null;
  /** Doing nothing and a calm hour on this round's seed and minutes, from its start on (null in the lobby). */
  readonly baseline: RoundBaseline | null;
  /** Empty in the lobby; one entry per playing team once started, in team order. */
  readonly teams: ReadonlyMap<number, TeamRun>;
  readonly finishedAt: number | null;
  /** Every role change of this round (its lobby included; none stored once it is finished), oldest first. */
  readonly roleChanges: AppendOnly<RoleChange>;
  /** From the start: everyone who was in a playing team, with every role they held, by `memberKey`. */
  readonly members: ReadonlyMap<string, RoundMemberRecord>;
  /** The teacher's messages in this round. */
  readonly messages: AppendOnly<TeacherMessage>;
  /** The `seq` of the round's latest change (0: none yet): the next one takes the one after. */
  readonly changeSeq: number;
  /** Every seat passed to a pilot or taken back in this round, oldest first. */
  readonly seatTurns: AppendOnly<SeatTurn>;
  /**
   * The autopilot's memory of each seat it plays, by player id: what it decided and waits to apply, its own small
   * state. Not stored: a room read back starts its autopilots afresh (their changes are stored like anyone's).
   */
  readonly autopilot: ReadonlyMap<number, AutopilotMemory>;
}

export const memberKey = (teamId: number, playerId: number): string => `${teamId}:${playerId}`;

export interface RoomState {
  readonly id: number;
  readonly code: string;
  readonly teacherId: number;
  /** The configuration of the next round (and of the current one, until it starts). */
  readonly config: RoundConfig;
  /** Every team row of the room, by index; the first `config.teamCount` play. */
  readonly teams: readonly TeamState[];
  readonly players: ReadonlyMap<number, PlayerState>;
  readonly round: RoundRun;
  /** No new students (a token still brings one back). */
  readonly locked: boolean;
  /** Students may open every team's replay, not only their own. */
  readonly replayShared: boolean;
}
