// Payloads of the classroom protocol. They carry keys and numbers, never display text, so every
// person in a room can read it in their own language.
import type { ControlValue, GoalResult, SimulatorId, Snapshot, Status } from '../sim/types.ts';
import type { Chapter } from '../replay/chapters.ts';
import type { SnapshotColumns } from '../replay/columns.ts';
import type { ProtocolError } from './errors.ts';

export const ROUND_STATES = ['lobby', 'running', 'paused', 'finished'] as const;
export type RoundState = (typeof ROUND_STATES)[number];
export const TEMPOS = [1, 2, 5, 10, 20] as const;
export type Tempo = (typeof TEMPOS)[number];

export const LIMITS = {
  nameLength: 24,
  teamNameLength: 32,
  maxTeams: 30,
  maxTeamSize: 12,
  maxPlayers: 120,
  minMinutes: 5,
  maxMinutes: 240,
} as const;

/** What the teacher sets for the next round (and what the current one was started with). */
export interface RoundConfig {
  simulator: SimulatorId;
  scenario: string;
  minutes: number;
  tempo: Tempo;
  /** null: a random seed is drawn when the round starts. */
  seed: number | null;
  teamCount: number;
}

export interface TeamView {
  id: number;
  /** Position in the room (0-based): the default name is "Team idx+1" in the reader's language. */
  idx: number;
  /** Name given by the teacher; empty for the default name. */
  name: string;
}
export interface PlayerView {
  id: number;
  name: string;
  teamId: number | null;
  /** Role ids this player owns in their team (empty: analyst). */
  roles: string[];
  connected: boolean;
}
export interface RoundView {
  id: number;
  number: number;
  state: RoundState;
  simulator: SimulatorId;
  scenario: string;
  /** Known once the round has started. */
  seed: number | null;
  minutes: number;
  tempo: Tempo;
  /** Last minute stored and broadcast (0 = opening screen; -1 in the lobby). */
  minute: number;
  /** Round this one was forked from, for what-if rounds. */
  forkOf: { roundId: number; teamId: number; minute: number } | null;
}
export interface RoomView {
  code: string;
  config: RoundConfig;
  round: RoundView;
  teams: TeamView[];
  players: PlayerView[];
}

export interface ChangeAuthor {
  playerId: number | null;
  name: string;
}
/** A control change: recorded when received, applied at the start of `minute`. */
export interface ChangeRecord {
  id: number;
  roundId: number;
  teamId: number;
  minute: number;
  key: string;
  value: ControlValue;
  author: ChangeAuthor;
  /** Wall-clock time it was received, epoch ms. */
  at: number;
}

/** One team's minute, sent to its members. */
export interface TeamMinute {
  roundId: number;
  teamId: number;
  snapshot: Snapshot;
  /** Goals evaluated over the minutes so far (live progress; the final verdict is in `scores`). */
  progress: GoalResult[];
  score: number | null;
  /** Server time the tick started, epoch ms (for delivery latency). */
  sentAt: number;
}
/** Every team's minute, sent to the teacher. */
export interface RoomMinute {
  roundId: number;
  minute: number;
  sentAt: number;
  teams: Omit<TeamMinute, 'roundId' | 'sentAt'>[];
}
/** A team's headline figures, for observers and the leaderboard. */
export interface TeamSummary {
  teamId: number;
  name: string;
  minute: number;
  headline: Record<string, number>;
  status: Record<string, Status>;
  progress: { id: string; value: number; met: boolean }[];
  score: number | null;
}
export interface RoomSummary {
  roundId: number;
  state: RoundState;
  minute: number;
  sentAt: number;
  teams: TeamSummary[];
}
/** Everything a team's desk needs to draw the round so far. */
export interface TeamHistory {
  roundId: number;
  teamId: number;
  snapshots: Snapshot[];
  changes: ChangeRecord[];
  progress: GoalResult[];
  score: number | null;
}
export interface TeamScore {
  teamId: number;
  name: string;
  goals: GoalResult[];
  score: number | null;
}
export interface RoundScores {
  roundId: number;
  teams: TeamScore[];
}

export type AckResult<T extends object = object> = ({ ok: true } & T) | { ok: false; error: ProtocolError };
export type Ack<T extends object = object> = (result: AckResult<T>) => void;

export interface StudentJoined {
  token: string;
  playerId: number;
  room: RoomView;
  /** The team's round so far, when the round has started and the player has a team. */
  history: TeamHistory | null;
  /** Every team's final scores, when the round is over (the leaderboard after a reload). */
  scores: RoundScores | null;
}
export interface TeacherJoined {
  room: RoomView;
  /** Latest minute of every team, when the round has started. */
  latest: RoomMinute | null;
  /** Headline trend of every team so far: teamId → indicator key → values by minute. */
  trends: Record<number, Record<string, number[]>>;
  scores: RoundScores | null;
}
export interface ObserverJoined {
  room: RoomView;
  summary: RoomSummary | null;
  scores: RoundScores | null;
}

export type ClockAction = 'start' | 'pause' | 'resume' | 'step' | 'end' | 'next';

/** A student's connection came or went (the roster's dot), without the whole room. */
export interface Presence {
  playerId: number;
  connected: boolean;
}

/** An unsolicited message: a code the client translates, and a message for logs. */
export interface ProtocolNotice {
  code: string;
  message: string;
}

// ── history and replay (teacher only) ─────────────────────────────────
export interface HistoryTeam {
  teamId: number;
  idx: number;
  name: string;
  score: number | null;
  goalsMet: number;
  goals: number;
}
export interface HistoryRound {
  id: number;
  number: number;
  simulator: SimulatorId;
  scenario: string;
  seed: number | null;
  state: RoundState;
  minutes: number;
  tempo: Tempo;
  minute: number;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  forkOf: RoundView['forkOf'];
  teams: HistoryTeam[];
}
export interface HistoryRoom {
  code: string;
  createdAt: number;
  rounds: HistoryRound[];
}

export interface ReplayTeam {
  teamId: number;
  idx: number;
  name: string;
  /** The team's members (in join order) with the roles this round's simulator deals them. */
  members: { playerId: number; name: string; roles: string[] }[];
  columns: SnapshotColumns;
  changes: ChangeRecord[];
  result: { goals: GoalResult[]; score: number | null } | null;
  chapters: Chapter[];
}
export interface ForkInfo {
  roundId: number;
  roomCode: string;
  teamId: number;
  minute: number;
}
/** The parts of a round's CSV export (`/api/rounds/:id/export/PART.csv`). */
export const CSV_PARTS = ['minutes', 'changes', 'scores'] as const;
export type CsvPart = (typeof CSV_PARTS)[number];

export interface RoundReplay {
  roomCode: string;
  round: HistoryRound;
  teams: ReplayTeam[];
  /** What-if rounds forked from this one. */
  forks: ForkInfo[];
  /** For a fork: where it came from. */
  origin: ForkInfo | null;
}
