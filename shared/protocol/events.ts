// Typed socket.io event maps for both directions (socket.io's `Server<ClientToServer, ServerToClient>`).
import type { ControlValue } from '../sim/types.ts';
import type {
  Ack,
  ChangeRecord,
  ClockAction,
  ObserverJoined,
  Presence,
  ProtocolNotice,
  RoomMinute,
  RoomSummary,
  RoomView,
  RoundConfig,
  RoundScores,
  StudentJoined,
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
  'observer:join': (req: { code: string }, ack: Ack<ObserverJoined>) => void;
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
  /** Something happened that is not the answer to a request (removed from the room, a tick failed…). */
  notice: (n: ProtocolNotice) => void;
}
