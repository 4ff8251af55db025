// Every input a room takes, as data, and what handling one produces. A transition is a pure function
// (state, command, ctx) → { next, writes, messages, reply }: the shell (room.ts) stores the writes,
// then swaps in `next`, then sends the messages. To add a command: one entry in `Commands`, one
// pure function, registered in transitions/index.ts (the compiler asks for it).
import type { ClockAction, RoundConfig, SeatPilot, Tempo } from '../../shared/protocol/types.ts';
import type { ControlValue } from '../../shared/sim/types.ts';
import type { ChangeRecord, TeacherMessage } from '../../shared/protocol/types.ts';
import type { IdSource, Write } from '../db/writes.ts';
import type { EventName, Emit } from './output.ts';
import type { ScenarioContent } from './scenario-content.ts';
import type { PlayerState, RoomState, RoundRun } from './state.ts';

/** A teacher's configuration patch as it arrives (the simulator is checked by the transition). */
export type ConfigPatch = Partial<Omit<RoundConfig, 'simulator'>> & { simulator?: string };

/** Each command's fields and the reply its caller gets. */
export interface Commands {
  /** A new student, seated in the smallest playing team. */
  join: { input: { name: string; tokenHash: string }; reply: PlayerState };
  /**
   * A change of one of a seat's controls: by its student (`by` absent), or by the teacher playing the seat from the
   * dashboard. A student's change to a seat on autopilot takes the seat back first.
   */
  control: { input: { playerId: number; key: string; value: ControlValue; by?: 'teacher' }; reply: ChangeRecord };
  /**
   * A seat passed to a pilot (the autopilot with a policy's skill, or the teacher) or back to its student (null).
   * `by`: the teacher (any seat), the student (their own: to step out, or to take it back), or the room itself
   * (a dropped seat after its grace, its student back).
   */
  pilot: {
    input: { playerId: number; pilot: Omit<SeatPilot, 'since' | 'minute'> | null; by: 'teacher' | 'student' | 'room' };
    reply: undefined;
  };
  /**
   * A rehearsal's or a practice's teams filled with bots, one skill per team (the team count follows): a bot for
   * every role nobody holds, each on autopilot with its team's skill. Lobby only.
   */
  bots: { input: { teams: readonly SeatPilot['skill'][]; role?: string }; reply: undefined };
  /** A teammate takes the roles of a seat dropped past its grace ("ask the team"). */
  take: { input: { playerId: number; fromId: number }; reply: undefined };
  /**
   * `content`: the teacher's own scenario the patch names, read from the database by the shell before the command
   * is dispatched (so that the transition stays pure).
   */
  configure: { input: { patch: ConfigPatch; content?: ScenarioContent }; reply: undefined };
  tempo: { input: { tempo: Tempo }; reply: undefined };
  /** `content`: for `next`, the teacher's own scenario the configuration names, at its version now (as configure's). */
  clock: { input: { action: ClockAction; content?: ScenarioContent }; reply: undefined };
  move: { input: { playerId: number; teamId: number }; reply: undefined };
  rename: { input: { teamId: number; name: string }; reply: undefined };
  remove: { input: { playerId: number }; reply: undefined };
  /** The teacher gives a role to a student; its owner in the team loses it. */
  assign: { input: { playerId: number; role: string }; reply: undefined };
  /** No new students while locked. */
  lock: { input: { locked: boolean }; reply: undefined };
  /** Students may open every team's replay of the room, not only their own. */
  share: { input: { shared: boolean }; reply: undefined };
  /** A short message to one team, or to all (null). */
  message: { input: { teamId: number | null; text: string }; reply: TeacherMessage };
  /**
   * The room's timer: one minute of a running round (nothing otherwise). `dueAt`: when the minute falls due by the
   * round's plan; it is sent with that time, so that a page counts down to the next one from the plan, not from a
   * late timer.
   */
  tick: { input: { dueAt: number }; reply: undefined };
  /** After a load: a round that was running when its process stopped resumes paused. */
  recover: { input: Record<never, never>; reply: undefined };
}

export type CommandType = keyof Commands;
export type CommandOf<K extends CommandType> = { type: K } & Commands[K]['input'];
export type Command = { [K in CommandType]: CommandOf<K> }[CommandType];
export type ReplyOf<C extends Command> = Commands[C['type']]['reply'];

export type Message =
  | { [E in EventName]: Emit<E> }[EventName]
  /** The room view (with who is connected, which the shell knows) to everyone: the teacher's with the seed. */
  | { kind: 'room' }
  /** The observers' summary of this round as of `sentAt`: built by the shell, and only if someone watches. */
  | { kind: 'summary'; round: RoundRun; sentAt: number }
  /** A player's sockets follow them to their (new) team; null: no team. */
  | { kind: 'place'; playerId: number; teamId: number | null }
  /** A player's team history, read back from the database by the shell and sent to their sockets (a move). */
  | { kind: 'history'; playerId: number }
  /** A removed player's sockets are disconnected. */
  | { kind: 'drop'; playerId: number };

export interface Outcome<R> {
  next: RoomState;
  writes: Write[];
  messages: Message[];
  reply: R;
}

/** What a transition may use besides its state and command, so that it stays deterministic. */
export interface TransitionCtx {
  now: number;
  ids: IdSource;
  /** A seed for a round whose configuration leaves it to chance. */
  drawSeed(): number;
  /** Whether a student has a socket open now (a leaver's roles go to a connected teammate first). */
  connected(playerId: number): boolean;
  /** Milliseconds since a student's last socket went (0 while one is open). */
  absentFor(playerId: number): number;
}

export type Transition<K extends CommandType> = (
  state: RoomState,
  cmd: CommandOf<K>,
  ctx: TransitionCtx,
) => Outcome<Commands[K]['reply']>;

/** A transition that changes nothing. */
export function unchanged(state: RoomState): Outcome<undefined> {
  return { next: state, writes: [], messages: [], reply: undefined };
}
