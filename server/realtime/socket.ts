// The classroom protocol over socket.io: identity per socket, schema-checked payloads, per-IP join
// limits and per-socket event limits (socket.io traffic bypasses Fastify's hooks).
import type { Server, Socket } from 'socket.io';
import { Adapter } from 'socket.io-adapter';
import type { z } from 'zod';
import { ClassroomError, ErrorCode, type ProtocolError } from '../../shared/protocol/errors.ts';
import type { ClientToServer, ServerToClient } from '../../shared/protocol/events.ts';
import { schemas, type ClientEvent } from '../../shared/protocol/schemas.ts';
import { noMetrics, type Metrics } from '../ops/metrics.ts';
import type { RoomManager } from '../rooms/manager.ts';
import type { Logger, Room } from '../rooms/room.ts';
import type { Channel, EventName, EventPayload, RoomOutput } from '../rooms/output.ts';
import { roomMinuteJson, teamMinuteJson } from '../rooms/views.ts';
import type { Clock } from '../rooms/clock.ts';
import { encodesRawJson, rawJson } from './encoder.ts';
import type { FeedHub } from './feed.ts';
import { KeyedLimiter, TokenBucket, type BucketConfig } from './limits.ts';
import type { CommandOf } from '../rooms/commands.ts';

type TeacherCommand = CommandOf<'configure'> | CommandOf<'clock'> | CommandOf<'tempo'> | CommandOf<'move'> | CommandOf<'rename'> | CommandOf<'remove'>;

interface SocketData {
  ip: string;
  role: 'none' | 'student' | 'teacher' | 'observer';
  code?: string;
  playerId?: number;
  events?: TokenBucket;
}
export type IoServer = Server<ClientToServer, ServerToClient, Record<string, never>, SocketData>;
type IoSocket = Socket<ClientToServer, ServerToClient, Record<string, never>, SocketData>;

export interface RealtimeLimits {
  /** Join attempts (student, teacher, observer) per IP address. */
  join: BucketConfig;
  /** Events per socket. */
  events: BucketConfig;
}
export const DEFAULT_REALTIME_LIMITS: RealtimeLimits = {
  join: { capacity: 60, refillPerSecond: 2 },
  events: { capacity: 30, refillPerSecond: 10 },
};

const ch = {
  all: (code: string) => `r:${code}`,
  team: (code: string, teamId: number) => `r:${code}:t:${teamId}`,
  teacher: (code: string) => `r:${code}:teacher`,
  observers: (code: string) => `r:${code}:obs`,
  player: (code: string, playerId: number) => `r:${code}:p:${playerId}`,
};

function channelName(code: string, to: Channel): string {
  switch (to.kind) {
    case 'all':
      return ch.all(code);
    case 'team':
      return ch.team(code, to.teamId);
    case 'teacher':
      return ch.teacher(code);
    case 'observers':
      return ch.observers(code);
    case 'player':
      return ch.player(code, to.playerId);
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
      if ((to.kind === 'all' || to.kind === 'observers') && feed.count(code) > 0) return true;
      return (io.sockets.adapter.rooms.get(channelName(code, to))?.size ?? 0) > 0;
    },
    emit(code, to, event, payload) {
      const name = channelName(code, to);
      const receivers = io.sockets.adapter.rooms.get(name)?.size ?? 0;
      // Nothing to encode for nobody (here, or anywhere with a cluster adapter).
      if (receivers > 0 || !localOnly()) {
        const encode = raw ? (preEncoders[event] as ((p: unknown) => string) | undefined) : undefined;
        (io.to(name).emit as (e: string, p: unknown) => void)(event, encode ? rawJson(encode(payload)) : payload);
      }
      metrics.sent(event, receivers);
      if (feed.count(code) === 0) return;
      if (to.kind === 'observers' && event === 'summary') feed.send(code, { type: 'summary', ...(payload as object) });
      if (to.kind === 'all' && event === 'room') feed.send(code, { type: 'room', room: payload });
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
  };
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || 'payload'}: ${i.message}`).join('; ');
}

export function attachProtocol(io: IoServer, manager: RoomManager, clock: Clock, log: Logger, limits: RealtimeLimits, metrics: Metrics = noMetrics): void {
  const joins = new KeyedLimiter(limits.join, clock);

  io.on('connection', (socket: IoSocket) => {
    socket.data.ip = socket.handshake.address;
    socket.data.role = 'none';
    socket.data.events = new TokenBucket(limits.events, clock);

    const reply = (ack: unknown, result: object) => {
      if (typeof ack === 'function') ack(result);
    };
    const error = (ack: unknown, e: ProtocolError) => reply(ack, { ok: false, error: e });
    let refusals = 0;
    /** Counted always, logged on the first refusal and every 100th after (a flood is one line per 100). */
    const refused = (limit: string) => {
      metrics.rateLimited(limit);
      if (refusals++ % 100 === 0) log.warn({ limit, ip: socket.data.ip, room: socket.data.code, refusals }, 'rate limit refused a socket');
    };

    /** Registers a handler: rate limit, schema check, then the handler's result or its typed error. */
    const on = <E extends ClientEvent>(event: E, handler: (data: z.output<(typeof schemas)[E]>) => Promise<object>) => {
      (socket.on as (e: string, fn: (...args: unknown[]) => void) => void)(event, async (payload: unknown, ack: unknown) => {
        if (typeof ack !== 'function') {
          socket.emit('notice', { code: ErrorCode.BAD_REQUEST, message: `${event} needs an acknowledgement callback` });
          return;
        }
        if (!socket.data.events!.take()) {
          refused('socket:events');
          return error(ack, { code: ErrorCode.RATE_LIMITED, message: 'too many messages: slow down' });
        }
        const parsed = schemas[event].safeParse(payload);
        if (!parsed.success) return error(ack, { code: ErrorCode.BAD_REQUEST, message: `${event}: ${describeIssues(parsed.error)}` });
        try {
          reply(ack, { ok: true, ...(await handler(parsed.data as z.output<(typeof schemas)[E]>)) });
        } catch (e) {
          if (e instanceof ClassroomError) return error(ack, e.toJSON());
          log.error({ err: e, event, room: socket.data.code }, 'socket handler failed');
          error(ack, { code: ErrorCode.INTERNAL, message: 'internal error' });
        }
      });
    };

    socket.onAny((event: string, ...args: unknown[]) => {
      if (Object.hasOwn(schemas, event)) return;
      const ack = args[args.length - 1];
      const e = { code: ErrorCode.BAD_REQUEST, message: `unknown event ${JSON.stringify(String(event).slice(0, 40))}` };
      if (typeof ack === 'function') error(ack, e);
      else socket.emit('notice', e);
    });

    const limitJoin = () => {
      if (!joins.take(socket.data.ip)) {
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
      r.connect(player.id);
      return { token, playerId: player.id, room: r.view(), history: player.teamId !== null ? r.historyOf(player.teamId) : null, scores: r.scores() };
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
      return { room: r.view(), latest: r.latestMinute(), trends: r.trends(), scores: r.scores() };
    });

    on('observer:join', async (req) => {
      limitJoin();
      const r = await manager.get(req.code);
      stillHere();
      leave();
      socket.data = { ...socket.data, role: 'observer', code: r.code };
      socket.join([ch.all(r.code), ch.observers(r.code)]);
      r.watch();
      return { room: r.view(), summary: r.summary(), scores: r.scores() };
    });

    /** A teacher command; the answer is the room as it stands after it. */
    const teacher = <E extends ClientEvent>(event: E, command: (data: z.output<(typeof schemas)[E]>) => TeacherCommand) =>
      on(event, async (req) => {
        const r = teacherRoom();
        await r.dispatch(command(req));
        return { room: r.view() };
      });
    teacher('teacher:configure', (patch) => ({ type: 'configure', patch }));
    teacher('teacher:clock', (req) => ({ type: 'clock', action: req.action }));
    teacher('teacher:tempo', (req) => ({ type: 'tempo', tempo: req.tempo }));
    teacher('teacher:move', (req) => ({ type: 'move', playerId: req.playerId, teamId: req.teamId }));
    teacher('teacher:rename', (req) => ({ type: 'rename', teamId: req.teamId, name: req.name }));
    teacher('teacher:remove', (req) => ({ type: 'remove', playerId: req.playerId }));
    on('teacher:team', async (req) => {
      const r = teacherRoom();
      const history = r.historyOf(req.teamId);
      if (!history) throw new ClassroomError(ErrorCode.TEAM_NOT_FOUND, `team ${req.teamId} has no round in progress`);
      return { history };
    });

    socket.on('disconnect', () => leave());
  });
}
