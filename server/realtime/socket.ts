// The classroom protocol over socket.io: identity per socket, schema-checked payloads, per-IP join
// limits (socket.io traffic bypasses Fastify's hooks; the connection-level guards, the per-socket event
// limit among them, are in guard.ts).
import type { Server, Socket } from 'socket.io';
import { Adapter } from 'socket.io-adapter';
import type { z } from 'zod';
import { normalizeCode } from '../../shared/classroom/code.ts';
import { ClassroomError, ErrorCode, type ProtocolError } from '../../shared/protocol/errors.ts';
import type { ClientToServer, ServerToClient } from '../../shared/protocol/events.ts';
import { schemas, type ClientEvent } from '../../shared/protocol/schemas.ts';
import { addressKey, clientAddress, type TrustFn } from '../http/client-address.ts';
import { noMetrics, type Metrics } from '../ops/metrics.ts';
import { refusalsOf } from '../ops/refusals.ts';
import type { RoomManager } from '../rooms/manager.ts';
import type { Logger, Room } from '../rooms/room.ts';
import type { Channel, EventName, EventPayload, RoomOutput } from '../rooms/output.ts';
import { roomMinuteJson, teamMinuteJson } from '../rooms/views.ts';
import type { Clock } from '../rooms/clock.ts';
import { encodesRawJson, rawJson } from './encoder.ts';
import type { FeedHub } from './feed.ts';
import { KeyedLimiter, type BucketConfig, type CodeGuesses } from './limits.ts';
import type { CommandOf } from '../rooms/commands.ts';

type TeacherCommand =
  | CommandOf<'configure'>
  | CommandOf<'clock'>
  | CommandOf<'tempo'>
  | CommandOf<'move'>
  | CommandOf<'rename'>
  | CommandOf<'remove'>
  | CommandOf<'assign'>
  | CommandOf<'lock'>
  | CommandOf<'share'>;

interface SocketData {
  ip: string;
  role: 'none' | 'student' | 'teacher' | 'observer';
  code?: string;
  playerId?: number;
}
export type IoServer = Server<ClientToServer, ServerToClient, Record<string, never>, SocketData>;
type IoSocket = Socket<ClientToServer, ServerToClient, Record<string, never>, SocketData>;

export interface RealtimeLimits {
  /** Join attempts (student, teacher, observer) per IP address. */
  join: BucketConfig;
  /** New students (a join with a name) per IP address per room. */
  seats: BucketConfig;
}
export const DEFAULT_REALTIME_LIMITS: RealtimeLimits = {
  join: { capacity: 60, refillPerSecond: 2 },
  // A class of 40 behind one school NAT takes its seats at once; past 50, one every 5 s: filling a
  // room's 120 seats from one address takes six minutes, time for the teacher to lock it.
  seats: { capacity: 50, refillPerSecond: 0.2 },
};

const ch = {
  all: (code: string) => `r:${code}`,
  team: (code: string, teamId: number) => `r:${code}:t:${teamId}`,
  teacher: (code: string) => `r:${code}:teacher`,
  observers: (code: string) => `r:${code}:obs`,
  player: (code: string, playerId: number) => `r:${code}:p:${playerId}`,
  /** Split view: the students of a team holding one set of roles (not under the team's `r:CODE:t:` prefix). */
  view: (code: string, teamId: number, view: string) => `r:${code}:v:${teamId}:${view}`,
};

function channelName(code: string, to: Channel): string {
  switch (to.kind) {
    case 'all':
    case 'public':
      return ch.all(code);
    case 'team':
      return ch.team(code, to.teamId);
    case 'teacher':
      return ch.teacher(code);
    case 'observers':
      return ch.observers(code);
    case 'player':
      return ch.player(code, to.playerId);
    case 'view':
      return ch.view(code, to.teamId, to.view);
  }
}

/** Events whose payload is written as JSON text from texts made once (views.ts), not serialised per emit. */
const preEncoders: { [E in EventName]?: (payload: EventPayload<E>) => string } = { minute: teamMinuteJson, 'room:minute': roomMinuteJson };

/** RoomOutput over socket.io rooms, mirroring what observers get to the plain feed. */
export function socketOutput(io: IoServer, feed: FeedHub, metrics: Metrics = noMetrics): RoomOutput {
  const localSockets = (room: string): IoSocket[] => {
    const ids = io.sockets.adapter.rooms.get(room);
    return ids ? [...ids].map((id) => io.sockets.sockets.get(id)).filter((s): s is IoSocket => !!s) : [];
  };
  const raw = encodesRawJson(io);
  // Only socket.io's in-memory adapter knows every receiver; with another (a cluster's), they may be elsewhere.
  const localOnly = () => io.sockets.adapter.constructor === Adapter;
  return {
    listens(code, to) {
      if (!localOnly()) return true;
      // The feed mirrors what everyone and the observers get.
      if ((to.kind === 'all' || to.kind === 'public' || to.kind === 'observers') && feed.count(code) > 0) return true;
      return (io.sockets.adapter.rooms.get(channelName(code, to))?.size ?? 0) > 0;
    },
    emit(code, to, event, payload) {
      const name = channelName(code, to);
      const size = (room: string) => io.sockets.adapter.rooms.get(room)?.size ?? 0;
      const receivers = size(name) - (to.kind === 'public' ? size(ch.teacher(code)) : 0);
      // Nothing to encode for nobody (here, or anywhere with a cluster adapter).
      if (receivers > 0 || !localOnly()) {
        // Everyone but the teacher: the room without its secrets.
        const target = to.kind === 'public' ? io.to(name).except(ch.teacher(code)) : io.to(name);
        const encode = raw ? (preEncoders[event] as ((p: unknown) => string) | undefined) : undefined;
        (target.emit as (e: string, p: unknown) => void)(event, encode ? rawJson(encode(payload)) : payload);
      }
      metrics.sent(event, receivers);
      if (feed.count(code) === 0) return;
      if (to.kind === 'observers' && event === 'summary') feed.send(code, { type: 'summary', ...(payload as object) });
      if (to.kind === 'public' && event === 'room') feed.send(code, { type: 'room', room: payload });
      if (to.kind === 'all' && event === 'presence') feed.send(code, { type: 'presence', ...(payload as object) });
      if (to.kind === 'all' && event === 'scores') feed.send(code, { type: 'scores', ...(payload as object) });
    },
    placePlayer(code, playerId, teamId) {
      const prefix = `r:${code}:t:`;
      for (const s of localSockets(ch.player(code, playerId))) {
        for (const r of s.rooms) if (r.startsWith(prefix)) s.leave(r);
        if (teamId !== null) s.join(ch.team(code, teamId));
      }
    },
    dropPlayer(code, playerId) {
      for (const s of localSockets(ch.player(code, playerId))) s.disconnect(true);
    },
    viewPlayer(code, playerId, from, to) {
      for (const s of localSockets(ch.player(code, playerId))) {
        if (from) s.leave(channelName(code, from));
        if (to) s.join(channelName(code, to));
      }
    },
  };
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || 'payload'}: ${i.message}`).join('; ');
}

/** The events that name a room by its code: each is a look-up that the shared guess limit counts. */
const LOOKUPS: ReadonlySet<string> = new Set<ClientEvent>(['student:join', 'teacher:join', 'observer:join']);

export interface ConnectionGuards {
  /** Unknown-code attempts per address, shared with HTTP and the feed. */
  guesses: CodeGuesses;
  /** Which proxies' X-Forwarded-For to believe (TRUST_PROXY). */
  trust: TrustFn;
}

export function attachProtocol(
  io: IoServer,
  manager: RoomManager,
  clock: Clock,
  log: Logger,
  limits: RealtimeLimits,
  guards: ConnectionGuards,
  metrics: Metrics = noMetrics,
): void {
  const joins = new KeyedLimiter(limits.join, clock);
  const seats = new KeyedLimiter(limits.seats, clock);

  io.on('connection', (socket: IoSocket) => {
    socket.data.ip = clientAddress(socket.request, guards.trust);
    socket.data.role = 'none';

    const reply = (ack: unknown, result: object) => {
      if (typeof ack === 'function') ack(result);
    };
    const error = (ack: unknown, e: ProtocolError) => reply(ack, { ok: false, error: e });
    const refused = refusalsOf(metrics, log, 'rate limit refused a socket', () => ({ ip: socket.data.ip, room: socket.data.code }));

    /** Registers a handler: schema check, then the handler's result or its typed error (guard.ts has counted the event). */
    const on = <E extends ClientEvent>(event: E, handler: (data: z.output<(typeof schemas)[E]>) => Promise<object>) => {
      (socket.on as (e: string, fn: (...args: unknown[]) => void) => void)(event, async (payload: unknown, ack: unknown) => {
        if (typeof ack !== 'function') {
          socket.emit('notice', { code: ErrorCode.BAD_REQUEST, message: `${event} needs an acknowledgement callback` });
          return;
        }
        const parsed = schemas[event].safeParse(payload);
        if (!parsed.success) return error(ack, { code: ErrorCode.BAD_REQUEST, message: `${event}: ${describeIssues(parsed.error)}` });
        try {
          const run = () => handler(parsed.data as z.output<(typeof schemas)[E]>);
          reply(ack, { ok: true, ...(await (LOOKUPS.has(event) ? guards.guesses.attempt(socket.data.ip, 'socket', run) : run())) });
        } catch (e) {
          if (e instanceof ClassroomError) return error(ack, e.toJSON());
          log.error({ err: e, event, room: socket.data.code }, 'socket handler failed');
          error(ack, { code: ErrorCode.INTERNAL, message: 'internal error' });
        }
      });
    };

    // A middleware, not onAny: onAny listeners run before middlewares, so the event limit (guard.ts) would not see them.
    socket.use(([event, ...args], next) => {
      if (Object.hasOwn(schemas, event)) return next();
      const ack = args[args.length - 1];
      const e = { code: ErrorCode.BAD_REQUEST, message: `unknown event ${JSON.stringify(String(event).slice(0, 40))}` };
      if (typeof ack === 'function') error(ack, e);
      else socket.emit('notice', e);
    });

    const limitJoin = () => {
      if (!joins.take(addressKey(socket.data.ip))) {
        refused('socket:join');
        throw new ClassroomError(ErrorCode.RATE_LIMITED, 'too many join attempts from this address: wait a little');
      }
    };
    const room = (): Room => {
      const r = socket.data.code ? manager.peek(socket.data.code) : undefined;
      if (!r) throw new ClassroomError(ErrorCode.NOT_JOINED, 'join a room first');
      return r;
    };
    const teacherRoom = (): Room => {
      if (socket.data.role !== 'teacher') throw new ClassroomError(ErrorCode.NOT_TEACHER, 'only the teacher can do this');
      return room();
    };
    /** Forgets the socket's previous identity, so one socket is one person in one room. */
    const leave = () => {
      const { code, role, playerId } = socket.data;
      for (const r of socket.rooms) if (r !== socket.id) socket.leave(r);
      if (role === 'student' && code && playerId !== undefined) manager.peek(code)?.disconnect(playerId);
      if ((role === 'teacher' || role === 'observer') && code) manager.peek(code)?.unwatch();
      socket.data.role = 'none';
      socket.data.code = undefined;
      socket.data.playerId = undefined;
    };

    /** A socket that went away while its join was being handled takes no seat. */
    const stillHere = () => {
      if (socket.disconnected) throw new ClassroomError(ErrorCode.NOT_JOINED, 'the connection closed while joining');
    };

    on('student:join', async (req) => {
      limitJoin();
      let joined;
      let token = req.token;
      if (token) {
        joined = await manager.rejoin(token, req.code);
      } else {
        if (!req.name) throw new ClassroomError(ErrorCode.BAD_REQUEST, 'a display name is needed to join');
        if (!seats.take(`${socket.data.ip} ${normalizeCode(req.code) ?? ''}`)) {
          refused('socket:seats');
          throw new ClassroomError(ErrorCode.RATE_LIMITED, 'too many new students from this address in this room: wait a little');
        }
        const j = await manager.joinStudent(req.code, req.name);
        joined = j;
        token = j.token;
      }
      const { room: r, player } = joined;
      stillHere();
      leave();
      socket.data = { ...socket.data, role: 'student', code: r.code, playerId: player.id };
      socket.join([ch.all(r.code), ch.player(r.code, player.id)]);
      if (player.teamId !== null) socket.join(ch.team(r.code, player.teamId));
      // Split view: the channel of the player's roles as they are now (later moves come through viewPlayer).
      const view = r.viewOf(player.id);
      if (view) socket.join(channelName(r.code, view));
      r.connect(player.id);
      return {
        ...{ token, playerId: player.id, room: r.view('public'), history: r.historyFor(player.id), scores: r.scores() },
        ...{ roleChanges: player.teamId !== null ? r.roleChanges(player.teamId) : [], messages: r.messages(player.teamId) },
      };
    });

    on('student:control', async (req) => {
      const playerId = socket.data.playerId;
      if (socket.data.role !== 'student' || playerId === undefined) throw new ClassroomError(ErrorCode.NOT_JOINED, 'join as a student first');
      return { change: await room().dispatch({ type: 'control', playerId, key: req.key, value: req.value }) };
    });

    on('teacher:join', async (req) => {
      limitJoin();
      const r = await manager.teacherRoom(req.code, req.key);
      stillHere();
      leave();
      socket.data = { ...socket.data, role: 'teacher', code: r.code };
      socket.join([ch.all(r.code), ch.teacher(r.code)]);
      r.watch();
      return { room: r.view('teacher'), latest: r.latestMinute(), trends: r.trends(), scores: r.scores(), roleChanges: r.roleChanges(null), messages: r.messages('all') };
    });

    on('observer:join', async (req) => {
      limitJoin();
      const r = await manager.forViewers(req.code);
      stillHere();
      leave();
      socket.data = { ...socket.data, role: 'observer', code: r.code };
      socket.join([ch.all(r.code), ch.observers(r.code)]);
      r.watch();
      return { room: r.view('public'), summary: r.summary(), scores: r.scores() };
    });

    /** A teacher command; the answer is the room as it stands after it. */
    const teacher = <E extends ClientEvent>(event: E, command: (data: z.output<(typeof schemas)[E]>) => TeacherCommand) =>
      on(event, async (req) => {
        const r = teacherRoom();
        await r.dispatch(command(req));
        return { room: r.view('teacher') };
      });
    teacher('teacher:configure', (patch) => ({ type: 'configure', patch }));
    teacher('teacher:clock', (req) => ({ type: 'clock', action: req.action }));
    teacher('teacher:tempo', (req) => ({ type: 'tempo', tempo: req.tempo }));
    teacher('teacher:move', (req) => ({ type: 'move', playerId: req.playerId, teamId: req.teamId }));
    teacher('teacher:rename', (req) => ({ type: 'rename', teamId: req.teamId, name: req.name }));
    teacher('teacher:remove', (req) => ({ type: 'remove', playerId: req.playerId }));
    teacher('teacher:assign', (req) => ({ type: 'assign', playerId: req.playerId, role: req.role }));
    teacher('teacher:lock', (req) => ({ type: 'lock', locked: req.locked }));
    teacher('teacher:share', (req) => ({ type: 'share', shared: req.shared }));
    on('teacher:message', async (req) => ({ message: await teacherRoom().dispatch({ type: 'message', teamId: req.teamId, text: req.text }) }));
    on('teacher:team', async (req) => {
      const r = teacherRoom();
      const history = r.historyOf(req.teamId);
      if (!history) throw new ClassroomError(ErrorCode.TEAM_NOT_FOUND, `team ${req.teamId} has no round in progress`);
      return { history };
    });

    socket.on('disconnect', () => leave());
  });
}
