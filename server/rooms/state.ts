// A room's state as one immutable value: configuration, teams, players and the round with every
// team's simulation. Transitions (transitions/*.ts) build the next value and never change this one;
// who is connected right now is not part of it (presence.ts).
import type { ChangeRecord, RoundConfig, RoundState, RoundView, Tempo } from '../../shared/protocol/types.ts';
import type { GoalResult, ScenarioDef, SimModel, SimStateBase, SimulatorId, Snapshot } from '../../shared/sim/types.ts';
import type { AppendOnly } from './append-only.ts';

export interface PlayerState {
  readonly id: number;
  readonly name: string;
  readonly teamId: number | null;
  /** Order within the team: the deal of roles follows it. */
  readonly seq: number;
  readonly roles: readonly string[];
  readonly removed: boolean;
}

export interface TeamState {
  readonly id: number;
  /** Position in the room: the first `config.teamCount` teams play. */
  readonly idx: number;
  readonly name: string;
}

export interface TeamRun {
  readonly teamId: number;
  readonly idx: number;
  readonly name: string;
  /**
   * The simulation, to step the next minute from; null for a team of a finished round read back from its
   * stored minutes (load.ts), which never steps again. Its latest minute is the last of `snapshots`.
   */
  readonly sim: SimStateBase | null;
  readonly snapshots: AppendOnly<Snapshot>;
  /** Every change of the round for this team, applied or pending, in arrival order. */
  readonly changes: AppendOnly<ChangeRecord>;
  readonly progress: readonly GoalResult[];
  readonly score: number | null;
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
  /** Empty in the lobby; one entry per playing team once started, in team order. */
  readonly teams: ReadonlyMap<number, TeamRun>;
}

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
}
