// Payloads of the classroom protocol. They carry keys and numbers, never display text, so every
// person in a room can read it in their own language.
import type { ScenarioFile } from '../scenarios/format.ts';
import type { ControlValue, GoalResult, ScenarioDef, SimulatorId, Snapshot, Status } from '../sim/types.ts';
import type { Chapter } from '../replay/chapters.ts';
import type { SnapshotColumns } from '../replay/columns.ts';
import type { ProtocolError } from './errors.ts';

export const ROUND_STATES = ['lobby', 'running', 'paused', 'finished'] as const;
export type RoundState = (typeof ROUND_STATES)[number];
/** Real seconds per simulated minute; 0: as fast as it goes (each minute once the last is stored), outside classes. */
export const TEMPOS = [0, 1, 2, 5, 10, 20] as const;
export type Tempo = (typeof TEMPOS)[number];

export const LIMITS = {
  nameLength: 24,
  teamNameLength: 32,
  maxTeams: 30,
  maxTeamSize: 12,
  maxPlayers: 120,
  minMinutes: 5,
  maxMinutes: 240,
  /** A teacher's message to a team or to all. */
  messageLength: 200,
  /** Messages a round keeps; the teacher is refused past it. */
  messagesPerRound: 500,
  /** Rounds one room keeps: past it, the teacher opens a new room (ROUND_LIMIT). */
  roundsPerRoom: 100,
  /** A dropped seat's grace before the absence rule applies, in seconds. */
  minGraceSeconds: 5,
  maxGraceSeconds: 600,
  /** Minutes without a change while a banner shows before a seat reads idle, at most. */
  maxIdleMinutes: 30,
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
  /**
   * Split view: each student's desk gets the headline indicators, the ledger and only the detail their
   * roles see (`RoleDef.sees`); the teacher, projector, feed and replays see everything. Picking a
   * scenario sets it to `scenario.splitView ?? false` (and `minutes` to `scenario.minutes ?? 60`).
   */
  splitView: boolean;
  /**
   * What happens to the roles of a student whose page is gone (closed, asleep, out of Wi-Fi) once `graceSeconds`
   * have passed: `autopilot` (the role's careful policy plays them until the student is back), `hold` (the
   * controls stay as they are), `ask` (each teammate is offered the roles with one tap).
   */
  absence: Absence;
  /** Seconds a dropped seat waits before the absence rule applies (LIMITS.minGraceSeconds–maxGraceSeconds). */
  graceSeconds: number;
  /** Simulated minutes without a change while a banner shows after which a seat reads idle (1–LIMITS.maxIdleMinutes). */
  idleMinutes: number;
  /**
   * What the room is for, set when it is made: a class; a teacher's rehearsal with bot teams (kept apart from the
   * class history, and deletable); one person's practice at a desk, alone or with bot teammates.
   */
  purpose: RoomPurpose;
}

export const ROOM_PURPOSES = ['class', 'rehearsal', 'practice'] as const;
export type RoomPurpose = (typeof ROOM_PURPOSES)[number];

export const ABSENCES = ['autopilot', 'hold', 'ask'] as const;
export type Absence = (typeof ABSENCES)[number];
export const SEAT_DEFAULTS = { absence: 'autopilot', graceSeconds: 45, idleMinutes: 3 } as const satisfies Pick<
  RoundConfig,
  'absence' | 'graceSeconds' | 'idleMinutes'
>;
/** A room made before rooms had a purpose: a class. */
export const DEFAULT_PURPOSE: RoomPurpose = 'class';

/** Where a what-if room's team comes from: that team of that round, forked at `minute`. */
export interface WhatIfOrigin {
  roundId: number;
  teamId: number;
  /** The original team's position and name (empty: its default name "Team idx+1"). */
  idx: number;
  name: string;
  minute: number;
}

export interface TeamView {
  id: number;
  /** Position in the room (0-based): the default name is "Team idx+1" in the reader's language. */
  idx: number;
  /** Name given by the teacher; empty for the default name. */
  name: string;
  /** In a what-if room: the team it was forked from ("Team 2 — what-if from minute 10" when `name` is empty). */
  whatIf: WhatIfOrigin | null;
}
export interface PlayerView {
  id: number;
  name: string;
  teamId: number | null;
  /** Role ids this player owns in their team (empty: analyst). */
  roles: string[];
  connected: boolean;
  /** Connected but idle: the page hidden, or no change while banners showed for the room's `idleMinutes`. */
  idle: boolean;
  /** Gone past the grace in a room that asks the team: a teammate may take the seat's roles with one tap. */
  free: boolean;
  /** Who plays the seat instead of its student, if anyone: the autopilot or the teacher. */
  pilot: SeatPilot | null;
}

/** Why a seat runs on autopilot. */
export const PILOT_REASONS = ['dropped', 'teacher', 'self', 'bot'] as const;
export type PilotReason = (typeof PILOT_REASONS)[number];
/** How the autopilot plays: a role policy's skill (shared/policies). */
export const PILOT_SKILLS = ['careful', 'late', 'careless'] as const;
export type PilotSkill = (typeof PILOT_SKILLS)[number];

/** Someone other than the seat's student plays it: the autopilot (a role policy) or the teacher from the dashboard. */
export interface SeatPilot {
  kind: 'autopilot' | 'teacher';
  /** The autopilot's policy skill (`careful` for an absent student; a bot's own). */
  skill: PilotSkill;
  reason: PilotReason;
  /** Since when (epoch ms) and from which minute on its changes apply. */
  since: number;
  minute: number;
}

/**
 * Who made a control change: the student whose seat it is, the teacher playing the seat, the autopilot (its policy
 * and why it played), or a what-if (a play the coach or the teacher set pending in a what-if room). Metadata only:
 * a round re-simulates from the values, whoever made them.
 */
export type Actor =
  | { kind: 'student' }
  | { kind: 'teacher' }
  | { kind: 'autopilot'; skill: PilotSkill; reason: PilotReason }
  | { kind: 'what-if' };

/** A seat passed to or from a pilot (the team feed's "Autopilot took over Stand-in at minute 12"). */
export interface SeatTurn {
  roundId: number;
  teamId: number;
  /** The seat's student (null: a role nobody held). */
  playerId: number | null;
  name: string;
  /** The roles the seat had then. */
  roles: string[];
  /** The first minute the new pilot's (or the student's) changes apply at. */
  minute: number;
  /** null: the student took the seat back. */
  pilot: SeatPilot | null;
  at: number;
}
export interface RoundView {
  id: number;
  number: number;
  state: RoundState;
  simulator: SimulatorId;
  scenario: string;
  /** The teacher's from the start; everyone else's once the round is finished (null before). */
  seed: number | null;
  minutes: number;
  tempo: Tempo;
  /** Last minute stored and broadcast (0 = opening screen; -1 in the lobby). */
  minute: number;
  /** Round this one was forked from, for what-if rounds. */
  forkOf: { roundId: number; teamId: number; minute: number } | null;
  /** The teacher ended the round at this minute, before its last: "ended at minute m". Null otherwise. */
  endedEarlyAt: number | null;
  /** When the round plays a teacher's own scenario (not a built-in): what the desks show of it. */
  own?: OwnScenario;
}

/**
 * A teacher's own scenario as the desks are sent it: its words in every language it has, its goals, starting
 * controls and roles — not its shocks nor its messages, which would tell the class what is coming.
 */
export interface OwnScenario {
  id: string;
  kind: ScenarioDef['kind'];
  minutes?: number;
  splitView?: boolean;
  controls?: ScenarioDef['controls'];
  goals: ScenarioDef['goals'];
  /** The file's score rule when it names one (docs/scoring.md), so a replay's live figures are the stored ones. */
  scoreRule?: ScenarioDef['scoreRule'];
  roles?: ScenarioDef['roles'];
  briefs: ScenarioFile['briefs'];
}
export interface RoomView {
  code: string;
  /** The next round's configuration; everyone but the teacher reads `seed: null`. */
  config: RoundConfig;
  round: RoundView;
  teams: TeamView[];
  players: PlayerView[];
  /** The teacher locked the room: no new students (a student with a token still comes back). */
  locked: boolean;
  /** The teacher shared the room's replays: each student sees every team's, not only their own. */
  replayShared: boolean;
}

export interface ChangeAuthor {
  playerId: number | null;
  name: string;
}
/** A control change: recorded when received, applied at the start of `minute`. */
export interface ChangeRecord {
  id: number;
  /**
   * Its place among the round's changes, in the order the room took them: the changes of one minute apply in this
   * order (the last one of a control wins). Ids are not: in cluster mode each process draws them in blocks.
   */
  seq: number;
  roundId: number;
  teamId: number;
  minute: number;
  key: string;
  value: ControlValue;
  author: ChangeAuthor;
  actor: Actor;
  /** Wall-clock time it was received, epoch ms. */
  at: number;
}

export interface Who {
  playerId: number;
  name: string;
}
/** Why a role changed hands. */
export const ROLE_CHANGE_REASONS = ['start', 'deal', 'join', 'assign', 'remove', 'move', 'take'] as const;
export type RoleChangeReason = (typeof ROLE_CHANGE_REASONS)[number];
/**
 * A role changed hands: `start` (who held it when the round started), `deal` (the lobby's dealing: a
 * new simulator), `join` (a newcomer took it), `assign` (the teacher gave it), `remove` / `move` (its
 * owner was removed or moved to another team, and it went to a teammate), `take` (a teammate took the
 * roles of a seat gone past its grace: the room's "ask the team"). `from` null: nobody held
 * it; `to` null: nobody holds it now (the team has nobody left). Names are as they were then.
 */
export interface RoleChange {
  roundId: number;
  teamId: number;
  /** The first minute the new owner's changes can apply at (0 in the lobby). */
  minute: number;
  role: string;
  from: Who | null;
  to: Who | null;
  reason: RoleChangeReason;
  at: number;
}
/** The `roles` event: one team's role changes of one command, at once. */
export interface RoleChanges {
  roundId: number;
  teamId: number;
  changes: RoleChange[];
}
/** A student's ids at the school, as the teacher mapped them for the gradebook (docs/gradebook.md). */
export interface RosterEntry {
  playerId: number;
  /** The id the school's gradebook matches on (Canvas SIS User ID, Moodle ID number). */
  schoolId: string;
  /** Optional: Moodle may match on it instead; '' when not given. */
  email: string;
}
/** `GET /api/teacher/rooms/:code/roster`: the room's students with the school's ids mapped to them so far. */
export interface RosterView {
  roomCode: string;
  students: { playerId: number; name: string; team: string; removed: boolean; schoolId: string; email: string }[];
}
/** A teacher's message to one team (`teamId`) or to all (`teamId: null`), shown as text. */
export interface TeacherMessage {
  id: number;
  roundId: number;
  teamId: number | null;
  text: string;
  at: number;
}

/**
 * The team's ledger at a minute against the round's references at the same minute (docs/scoring.md):
 * its total L, doing nothing's L0 (`baseline`), a calm hour's Lc (`calm`), in the simulator's currency,
 * and the saving s = ln(L0 / L) / max(ln(L0 / Lc), ln 2), clamped to [−1, 1] (0 = doing nothing).
 */
export interface LedgerFigures {
  total: number;
  baseline: number;
  calm: number;
  saving: number;
}

/** The round's references by minute (index = minute): doing nothing's ledger total and a calm hour's. */
export interface BaselineSeries {
  total: number[];
  calm: number[];
}

/** One team's minute, sent to its members. */
export interface TeamMinute {
  roundId: number;
  teamId: number;
  /** In split view, a student's snapshot keeps only what their roles see in `indicators`, `status` and `na`. */
  snapshot: Snapshot;
  /** Goals evaluated over the minutes so far (live progress; the final verdict is in `scores`). */
  progress: GoalResult[];
  /** Against doing nothing at the same minute; may be negative (doing nothing = 0). */
  score: number | null;
  ledger: LedgerFigures;
  /** Server time the minute was due, epoch ms (when its clock fired, if it was not stored by then): for delivery latency. */
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
  /** Headline shares with nothing under them this minute (shown as "—"; see Snapshot.na). */
  na?: string[];
  status: Record<string, Status>;
  progress: { id: string; value: number; met: boolean }[];
  score: number | null;
  ledger: LedgerFigures;
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
  /** Every role change of the team in this round (lobby dealing included), oldest first. */
  roleChanges: RoleChange[];
  /** Every seat passed to a pilot (autopilot, teacher) or taken back, oldest first. */
  seatTurns: SeatTurn[];
  progress: GoalResult[];
  score: number | null;
  ledger: LedgerFigures;
  /**
   * Doing nothing's and a calm hour's ledger totals by minute: up to the latest minute while the round goes on (the
   * rest would tell when each shock lands), for every minute of the round (0…minutes) once it is over.
   */
  baseline: BaselineSeries;
}
export interface TeamScore {
  teamId: number;
  name: string;
  goals: GoalResult[];
  score: number | null;
}
export interface RoundScores {
  roundId: number;
  /** The round was ended at this minute, before its last: it ranks below every complete round. */
  endedEarlyAt: number | null;
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
  /** The role changes of the student's team in this round (lobby dealing included). */
  roleChanges: RoleChange[];
  /** Every seat passed to a pilot (autopilot, teacher) or taken back, oldest first. */
  seatTurns: SeatTurn[];
  /** The teacher's messages to this team or to all in this round, until it ends (then none). */
  messages: TeacherMessage[];
}
export interface TeacherJoined {
  room: RoomView;
  /** Latest minute of every team, when the round has started. */
  latest: RoomMinute | null;
  /** Headline trend of every team so far: teamId → indicator key → values by minute. */
  trends: Record<number, Record<string, number[]>>;
  scores: RoundScores | null;
  /** Every team's role changes in this round. */
  roleChanges: RoleChange[];
  /** Every seat passed to a pilot (autopilot, teacher) or taken back, oldest first. */
  seatTurns: SeatTurn[];
  /** Every message of this round. */
  messages: TeacherMessage[];
  /** The teacher's own scenarios, latest saved first: the set-up offers them after the built-ins. */
  scenarios: ScenarioEntry[];
}
/** A scenario a teacher may pick (`GET /api/teacher/scenarios`): a built-in, or one of their own. */
export interface ScenarioEntry {
  id: string;
  simulator: SimulatorId;
  /** The English brief's name. */
  title: string;
  source: 'builtin' | 'mine';
  /** Their own: its version and when it was last saved (epoch ms). */
  version?: number;
  updatedAt?: number;
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
  idle: boolean;
  free: boolean;
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
  whatIf: WhatIfOrigin | null;
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
  endedEarlyAt: number | null;
  teams: HistoryTeam[];
}
export interface HistoryRoom {
  code: string;
  /** A rehearsal is listed apart from the classes (and can be deleted). */
  purpose: RoomPurpose;
  createdAt: number;
  rounds: HistoryRound[];
}

/** One page of a teacher's history (`GET /api/teacher/rooms`): rooms newest first; `next` asks for the older ones. */
export interface HistoryPage {
  rooms: HistoryRoom[];
  /** The `before` of the next page, or null when these are the oldest rooms. */
  next: string | null;
}

export interface ReplayTeam {
  teamId: number;
  idx: number;
  name: string;
  whatIf: WhatIfOrigin | null;
  /**
   * Everyone who was in the team during the round, in the order they came, with every role they
   * really held in it (at the start or later; empty: an analyst throughout). Names as in the round.
   */
  members: { playerId: number; name: string; roles: string[] }[];
  columns: SnapshotColumns;
  changes: ChangeRecord[];
  /** Who held which role when the round started (`start`), and every hand-over after, oldest first. */
  roleChanges: RoleChange[];
  /** Every seat passed to a pilot (autopilot, teacher) or taken back, oldest first. */
  seatTurns: SeatTurn[];
  result: { goals: GoalResult[]; score: number | null } | null;
  chapters: Chapter[];
  /** Doing nothing's and a calm hour's ledger totals for every minute of the round (0…minutes). */
  baseline: BaselineSeries;
}
export interface ForkInfo {
  roundId: number;
  roomCode: string;
  teamId: number;
  minute: number;
}
/** The parts of a round's CSV export (`/api/rounds/:id/export/PART.csv`). */
export const CSV_PARTS = ['minutes', 'changes', 'scores', 'seats'] as const;
export type CsvPart = (typeof CSV_PARTS)[number];

export interface RoundReplay {
  roomCode: string;
  round: HistoryRound;
  teams: ReplayTeam[];
  /** What-if rounds forked from this one (none in a student's replay). */
  forks: ForkInfo[];
  /** For a fork: where it came from (null in a student's replay). */
  origin: ForkInfo | null;
  /**
   * Each team's rank among all the round's teams, from the recorded results (`rankRows`), and how many
   * teams played: a student's replay keeps only their team's rank, but counts every team.
   */
  standing: RoundStanding;
  /** When the round played a teacher's own scenario: its words, goals and roles (RoundView.own). */
  own?: OwnScenario;
}
export interface RoundStanding {
  teams: number;
  ranks: { teamId: number; rank: number }[];
}

/** `GET /api/student/rounds`: the finished rounds a student played, each with the teams they played in. */
export interface StudentRounds {
  roomCode: string;
  playerId: number;
  name: string;
  /** Whether the teacher shared the room's replays (then every team is listed and can be opened). */
  replayShared: boolean;
  /** Newest first; `teamIds`: the student's teams in that round (two if the teacher moved them during it). */
  rounds: (HistoryRound & { teamIds: number[] })[];
}

// The hindsight coach's answer (GET /api/rounds/:id/coach) lives in coach.ts.
export {
  SUGGESTION_KINDS,
  type CoachReport,
  type CoachTeam,
  type Outcome,
  type Suggestion,
  type Unusual,
  type SuggestionKind,
} from './coach.ts';

/** `GET /api/info`: where students can reach this server (docs/protocol.md). */
export interface JoinInfo {
  /** What the teacher's code and QR should use: PUBLIC_URL, else a LAN address, else loopback. */
  baseUrl: string;
  source: 'public' | 'lan' | 'loopback';
  /** Only this computer can reach the server: no phone or other computer can join. */
  loopbackOnly: boolean;
  /** Every LAN address the server answers on, best first. */
  lan: string[];
  /** The address on this computer. */
  local: string;
}
