// What the transports (socket.io, the plain feed, HTTP) ask of a room, as data, answered by the process that holds
// the room: this one (LocalGate, one process), or — in cluster mode — whichever process owns it
// (server/cluster/gate.ts forwards the same asks). A seat's socket is put in its channels by the answering process
// through the socket.io adapter, so that it is in them before that process sends the room's next message.
import { normalizeCode } from '../../shared/classroom/code.ts';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import type {
  RoleChange,
  RoomMinute,
  RoomSummary,
  RoomView,
  RoundScores,
  ScenarioEntry,
  SeatTurn,
  TeacherMessage,
  TeamHistory,
} from '../../shared/protocol/types.ts';
import type { Store } from '../db/store.ts';
import type { Command, CommandType, Commands } from '../rooms/commands.ts';
import type { RoomManager } from '../rooms/manager.ts';
import type { Room } from '../rooms/room.ts';
import { listed } from '../rooms/scenario-content.ts';
import type { PlayerState } from '../rooms/state.ts';
import { channelName, seatChannels, type Role } from './channels.ts';

export interface StudentSeat {
  code: string;
  playerId: number;
  teamId: number | null;
  /** Split view: the channel of the student's team and roles now (later moves come through RoomOutput.viewPlayer). */
  view: string | null;
  /** The room without its secrets. */
  room: RoomView;
  /** The team's history as the student's roles see it. */
  history: TeamHistory | null;
  scores: RoundScores | null;
  roleChanges: RoleChange[];
  seatTurns: SeatTurn[];
  messages: TeacherMessage[];
}
export interface TeacherSeat {
  code: string;
  room: RoomView;
  latest: RoomMinute | null;
  trends: Record<number, Record<string, number[]>>;
  scores: RoundScores | null;
  roleChanges: RoleChange[];
  seatTurns: SeatTurn[];
  messages: TeacherMessage[];
  /** The teacher's own scenarios, latest saved first (read from the database: in cluster mode, the one every process shares). */
  scenarios: ScenarioEntry[];
}
/** What an observer, the plain feed and the HTTP look-up are shown (the room without its secrets). */
export interface RoomLook {
  code: string;
  room: RoomView;
  summary: RoomSummary | null;
  scores: RoundScores | null;
}

/** Commands people send (the room's own timer and recovery are not asked for). */
export type PeopleCommand = Exclude<Command, { type: 'tick' | 'recover' }>;

/** Each ask's fields and its answer. `socketId`: the socket to put in the seat's channels. */
export interface Asks {
  join: { input: { name: string; tokenHash: string; socketId?: string }; reply: StudentSeat };
  rejoin: { input: { playerId: number; socketId?: string }; reply: StudentSeat };
  teacher: { input: { keyHash: string; socketId?: string }; reply: TeacherSeat };
  observe: { input: { socketId?: string }; reply: RoomLook };
  look: { input: Record<never, never>; reply: RoomLook };
  /**
   * A command; with `view`, the room as it stands after it, as its teacher sees it. `from`: the address it came from
   * (an IPv6 address by its /64), for the limits on starting rounds.
   */
  dispatch: {
    input: { command: PeopleCommand; view?: boolean; from?: string };
    reply: { reply: unknown; room?: RoomView };
  };
  team: { input: { teamId: number }; reply: TeamHistory };
  /** A socket went away (or took another seat): who is connected changes. */
  leave: { input: { role: Role; playerId?: number; socketId?: string }; reply: undefined };
  /** A student's page was hidden or shown again: their seat's idle state. */
  seen: { input: { playerId: number; socketId: string; hidden: boolean }; reply: undefined };
}
export type AskType = keyof Asks;
export type AskOf<K extends AskType> = { type: K } & Asks[K]['input'];
export type Ask = { [K in AskType]: AskOf<K> }[AskType];
export type AskReply<K extends AskType> = Asks[K]['reply'];

/** Asks that change nothing stored: safe to send again to another process if the first one never answered. */
export function changesNothing(ask: Ask): boolean {
  return ask.type !== 'join' && ask.type !== 'dispatch';
}

/**
 * Asks of people with neither a teacher key nor a student token (a new student, an observer, the feed, the public
 * look-up): refused once the room's last round ended an hour ago (RoomManager.forViewers).
 */
export function forViewers(ask: Ask): boolean {
  return ask.type === 'join' || ask.type === 'observe' || ask.type === 'look';
}

export interface RoomGate {
  ask<K extends AskType>(code: string, ask: AskOf<K>): Promise<AskReply<K>>;
  /** The room and player of a student token (any process can tell: it is in the database). */
  tokenSeat(tokenHash: string, code?: string): Promise<{ code: string; playerId: number }>;
}

/** A command through a gate, with its typed reply. */
export async function dispatchVia<K extends CommandType>(
  gate: RoomGate,
  code: string,
  command: Extract<PeopleCommand, { type: K }>,
  view = false,
): Promise<{ reply: Commands[K]['reply']; room?: RoomView }> {
  const r = await gate.ask(code, { type: 'dispatch', command, view });
  return r as { reply: Commands[K]['reply']; room?: RoomView };
}

export interface AnswerDeps {
  manager: RoomManager;
  /** Puts a socket (of any process) in channels. */
  join(socketId: string, channels: string[]): void;
}

const roomNotFound = () => new ClassroomError(ErrorCode.ROOM_NOT_FOUND, 'no room has this code');

export function normalizedCode(input: string): string {
  const code = normalizeCode(input);
  if (!code) throw roomNotFound();
  return code;
}

async function seatStudent(
  room: Room,
  player: PlayerState,
  socketId: string | undefined,
  deps: AnswerDeps,
): Promise<StudentSeat> {
  const { code } = room;
  await room.reclaim(player.id);
  // Read first (from the database), then join the channels in the same turn as the history is checked to end
  // at the latest minute sent: the sockets hear every later one, and none is missing in between.
  let history = await room.historyFor(player.id);
  while (history && !room.isLatest(history)) history = await room.historyFor(player.id);
  const seated = room.player(player.id) ?? player;
  const v = room.viewOf(seated.id);
  const view = v && channelName(code, v);
  if (socketId)
    deps.join(socketId, seatChannels(code, { role: 'student', playerId: seated.id, teamId: seated.teamId, view }));
  room.connect(seated.id);
  return {
    code,
    playerId: seated.id,
    teamId: seated.teamId,
    view,
    room: room.view('public'),
    history,
    scores: room.scores(),
    roleChanges: player.teamId !== null ? room.roleChanges(player.teamId) : [],
    seatTurns: player.teamId !== null ? room.seatTurns(player.teamId) : [],
    messages: room.messages(player.teamId),
  };
}

/** Answers an ask on a room this process holds. */
export async function answer(room: Room, ask: Ask, deps: AnswerDeps): Promise<unknown> {
  const { code } = room;
  if (forViewers(ask)) deps.manager.openToViewers(room);
  switch (ask.type) {
    case 'join': {
      const player = await room.dispatch({ type: 'join', name: ask.name, tokenHash: ask.tokenHash });
      return seatStudent(room, player, ask.socketId, deps);
    }
    case 'rejoin': {
      const player = room.player(ask.playerId);
      if (!player) throw new ClassroomError(ErrorCode.BAD_TOKEN, 'this student token is not valid');
      return seatStudent(room, player, ask.socketId, deps);
    }
    case 'teacher': {
      // Keys are 256-bit secrets looked up by hash: comparing ids leaks nothing useful.
      if ((await deps.manager.deps.store.teacherByKeyHash(ask.keyHash)) !== room.teacherId)
        throw new ClassroomError(ErrorCode.BAD_KEY, 'this teacher key does not open this room');
      if (ask.socketId) deps.join(ask.socketId, seatChannels(code, { role: 'teacher' }));
      room.watch();
      return {
        code,
        room: room.view('teacher'),
        latest: room.latestMinute(),
        trends: room.trends(),
        scores: room.scores(),
        roleChanges: room.roleChanges(null),
        seatTurns: room.seatTurns(null),
        messages: room.messages('all'),
        scenarios: (await deps.manager.deps.store.scenariosOfTeacher(room.teacherId)).map(listed),
      } satisfies TeacherSeat;
    }
    case 'observe':
      if (ask.socketId) deps.join(ask.socketId, seatChannels(code, { role: 'observer' }));
      room.watch();
      return look(room);
    case 'look':
      return look(room);
    case 'dispatch': {
      if (ask.command.type === 'clock') await deps.manager.allowClock(room, ask.command.action, { address: ask.from });
      const reply = await room.dispatch(await deps.manager.withContent(room, ask.command));
      return ask.view ? { reply, room: room.view('teacher') } : { reply };
    }
    case 'team': {
      const history = await room.historyOf(ask.teamId);
      if (!history) throw new ClassroomError(ErrorCode.TEAM_NOT_FOUND, `team ${ask.teamId} has no round in progress`);
      return history;
    }
    case 'seen':
      room.seen(ask.playerId, ask.socketId, ask.hidden);
      return undefined;
    case 'leave':
      if (ask.role === 'student' && ask.playerId !== undefined) room.disconnect(ask.playerId, ask.socketId);
      else if (ask.role !== 'student') room.unwatch();
      return undefined;
  }
}

function look(room: Room): RoomLook {
  return { code: room.code, room: room.view('public'), summary: room.summary(), scores: room.scores() };
}

/** The room an ask goes to, loaded if needed (a room closed to viewers is refused before it is loaded for them). */
export function roomFor(manager: RoomManager, code: string, ask: Ask): Promise<Room> {
  return forViewers(ask) ? manager.forViewers(code) : manager.get(code);
}

/** The room and player of a student token, read from the database. */
export async function tokenSeat(
  store: Store,
  tokenHash: string,
  code?: string,
): Promise<{ code: string; playerId: number }> {
  const invalid = () => new ClassroomError(ErrorCode.BAD_TOKEN, 'this student token is not valid');
  const row = await store.playerByTokenHash(tokenHash);
  if (!row || row.removed) throw invalid();
  const roomRow = await store.roomById(row.roomId);
  if (!roomRow) throw invalid();
  if (code !== undefined && normalizeCode(code) !== roomRow.code)
    throw new ClassroomError(ErrorCode.BAD_TOKEN, 'this student token belongs to another room');
  return { code: roomRow.code, playerId: row.id };
}

/** One process: every room is this process's (loaded from the database when asked for). */
export class LocalGate implements RoomGate {
  private readonly deps: AnswerDeps;

  constructor(
    private readonly manager: RoomManager,
    join: AnswerDeps['join'],
  ) {
    this.deps = { manager, join };
  }

  async ask<K extends AskType>(codeInput: string, ask: AskOf<K>): Promise<AskReply<K>> {
    const code = normalizedCode(codeInput);
    // Someone leaving a room that is no longer in memory changes nothing: it is not loaded for that.
    const room =
      ask.type === 'leave' || ask.type === 'seen'
        ? this.manager.peek(code)
        : await roomFor(this.manager, code, ask as Ask);
    return (room ? answer(room, ask as Ask, this.deps) : undefined) as Promise<AskReply<K>>;
  }

  tokenSeat(tokenHash: string, code?: string): Promise<{ code: string; playerId: number }> {
    return tokenSeat(this.manager.deps.store, tokenHash, code);
  }
}
