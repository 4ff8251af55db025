// Typed socket.io event maps for both directions (socket.io's `Server<ClientToServer, ServerToClient>`).
import type { ControlValue } from '../sim/types.ts';
import type {
  Ack,
  ChangeRecord,
  ClockAction,
  ObserverJoined,
  PilotSkill,
  Presence,
  ProtocolNotice,
  RoomMinute,
  RoomSummary,
  RoomView,
  RoundConfig,
  RoleChanges,
  SeatTurn,
  RoundScores,
  StudentJoined,
  TeacherMessage,
  TeacherJoined,
  TeamHistory,
  TeamMinute,
  Tempo,
} from './types.ts';

export interface ClientToServer {
  'student:join': (req: { code: string; name?: string; token?: string }, ack: Ack<StudentJoined>) => void;
  'student:control': (req: { key: string; value: ControlValue }, ack: Ack<{ change: ChangeRecord }>) => void;
  'teacher:join': (req: { code: string; key: string }, ack: Ack<TeacherJoined>) => void;
  'teacher:configure': (req: Partial<RoundConfig>, ack: Ack<{ room: RoomView }>) => void;
  'teacher:clock': (req: { action: ClockAction }, ack: Ack<{ room: RoomView }>) => void;
  'teacher:tempo': (req: { tempo: Tempo }, ack: Ack<{ room: RoomView }>) => void;
  'teacher:move': (req: { playerId: number; teamId: number }, ack: Ack<{ room: RoomView }>) => void;
  'teacher:rename': (req: { teamId: number; name: string }, ack: Ack<{ room: RoomView }>) => void;
  'teacher:remove': (req: { playerId: number }, ack: Ack<{ room: RoomView }>) => void;
  'teacher:team': (req: { teamId: number }, ack: Ack<{ history: TeamHistory }>) => void;
  /** Gives a role to a student; its owner in the team (if any) loses it. Lobby, round and between rounds. */
  'teacher:assign': (req: { playerId: number; role: string }, ack: Ack<{ room: RoomView }>) => void;
  /** Locks the room to new students (or opens it again). */
  'teacher:lock': (req: { locked: boolean }, ack: Ack<{ room: RoomView }>) => void;
  /** A short message to one team, or to all (`teamId: null`). */
  'teacher:message': (req: { teamId: number | null; text: string }, ack: Ack<{ message: TeacherMessage }>) => void;
  /** Shares the room's replays with its students (every team), or takes it back (their own team only). */
  'teacher:share': (req: { shared: boolean }, ack: Ack<{ room: RoomView }>) => void;
  'observer:join': (req: { code: string }, ack: Ack<ObserverJoined>) => void;
  /** The student's page was hidden or shown again (their seat's idle state). */
  'student:presence': (req: { hidden: boolean }, ack: Ack) => void;
  /** The student hands their own seat to the autopilot (to step out), or takes it back. */
  'student:pilot': (req: { autopilot: boolean }, ack: Ack) => void;
  /** "Ask the team": the student takes every role of a teammate gone past the grace. */
  'student:take': (req: { fromId: number }, ack: Ack) => void;
  /** Passes a seat to the autopilot (with a policy's skill), to the teacher, or back to its student. */
  'teacher:pilot': (
    req: { playerId: number; pilot: 'autopilot' | 'teacher' | 'student'; skill?: PilotSkill },
    ack: Ack<{ room: RoomView }>,
  ) => void;
  /** Fills a rehearsal's (or a practice's) teams with bots of these skills, one team each. */
  'teacher:bots': (req: { teams: PilotSkill[]; role?: string }, ack: Ack<{ room: RoomView }>) => void;
  /** A change of a control of a seat the teacher plays from the dashboard. */
  'teacher:control': (
    req: { playerId: number; key: string; value: ControlValue },
    ack: Ack<{ change: ChangeRecord }>,
  ) => void;
}

export interface ServerToClient {
  /** Roster, clock state or configuration changed. */
  room: (room: RoomView) => void;
  /** A student connected or disconnected (the roster's `connected` flag). */
  presence: (p: Presence) => void;
  /** A student's team: this minute. */
  minute: (m: TeamMinute) => void;
  /** Teacher: every team's minute. */
  'room:minute': (m: RoomMinute) => void;
  /** Observers (and the teacher): the teams' headline figures. */
  summary: (s: RoomSummary) => void;
  /** A change was accepted and will apply at its minute (to the team and the teacher). */
  pending: (c: ChangeRecord) => void;
  /** A student's team history (sent after a move to another team or a new round). */
  history: (h: TeamHistory) => void;
  /** Final scores of a round. */
  scores: (s: RoundScores) => void;
  /** Roles changed hands in a team: who got what from whom (to the team and the teacher). */
  roles: (r: RoleChanges) => void;
  /** The teacher's message: to one team's students and the teacher, or to everyone in the room. */
  message: (m: TeacherMessage) => void;
  /** A seat passed to a pilot (the autopilot, the teacher) or back to its student (to the team and the teacher). */
  seat: (t: SeatTurn) => void;
  /** Something happened that is not the answer to a request (removed from the room, a tick failed…). */
  notice: (n: ProtocolNotice) => void;
}
