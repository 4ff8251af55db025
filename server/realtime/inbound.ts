// The classroom protocol over socket.io, as it comes in: identity per socket, schema-checked payloads, per-address
// join limits (socket.io traffic bypasses Fastify's hooks; the connection-level guards, the per-socket event limit
// among them, are in guard.ts). What a socket asks of its room goes through a RoomGate (gate.ts): answered here,
// or in cluster mode by the room's owner. What rooms send goes out through outbound.ts.
import type { z } from 'zod';
import { normalizeCode } from '../../shared/classroom/code.ts';
import { ClassroomError, ErrorCode, type ProtocolError } from '../../shared/protocol/errors.ts';
import { type ClientEvent, schemas } from '../../shared/protocol/schemas.ts';
import { addressKey, clientAddress, type TrustFn } from '../http/client-address.ts';
import type { Clock } from '../lib/clock.ts';
import { type BucketConfig, KeyedLimiter } from '../lib/limiter.ts';
import type { Logger } from '../lib/log.ts';
import { type Metrics, noMetrics } from '../lib/metrics.ts';
import { refusalsOf } from '../ops/refusals.ts';
import { hashSecret, newSecret } from '../rooms/creation.ts';
import { ch, type IoServer, type IoSocket, type Role, seatChannels } from './channels.ts';
import {
  type AskOf,
  type AskReply,
  dispatchVia,
  normalizedCode,
  type PeopleCommand,
  type RoomGate,
  type StudentSeat,
} from './gate.ts';
import type { CodeGuesses } from './guesses.ts';

type TeacherCommand = Extract<
  PeopleCommand,
  {
    type:
      | 'configure'
      | 'clock'
      | 'tempo'
      | 'move'
      | 'rename'
      | 'remove'
      | 'assign'
      | 'lock'
      | 'share'
      | 'pilot'
      | 'bots';
  }
>;

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
  gate: RoomGate,
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
    const refused = refusalsOf(metrics, log, 'rate limit refused a socket', () => ({
      ip: socket.data.ip,
      room: socket.data.code,
    }));

    /** Registers a handler: schema check, then the handler's result or its typed error (guard.ts has counted the event). */
    const on = <E extends ClientEvent>(event: E, handler: (data: z.output<(typeof schemas)[E]>) => Promise<object>) => {
      (socket.on as (e: string, fn: (...args: unknown[]) => void) => void)(
        event,
        async (payload: unknown, ack: unknown) => {
          if (typeof ack !== 'function') {
            socket.emit('notice', {
              code: ErrorCode.BAD_REQUEST,
              message: `${event} needs an acknowledgement callback`,
            });
            return;
          }
          const parsed = schemas[event].safeParse(payload);
          if (!parsed.success)
            return error(ack, { code: ErrorCode.BAD_REQUEST, message: `${event}: ${describeIssues(parsed.error)}` });
          try {
            const run = () => handler(parsed.data as z.output<(typeof schemas)[E]>);
            reply(ack, {
              ok: true,
              ...(await (LOOKUPS.has(event) ? guards.guesses.attempt(socket.data.ip, 'socket', run) : run())),
            });
          } catch (e) {
            if (e instanceof ClassroomError) return error(ack, e.toJSON());
            log.error({ err: e, event, room: socket.data.code }, 'socket handler failed');
            error(ack, { code: ErrorCode.INTERNAL, message: 'internal error' });
          }
        },
      );
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
    const joinedCode = (): string => {
      if (!socket.data.code) throw new ClassroomError(ErrorCode.NOT_JOINED, 'join a room first');
      return socket.data.code;
    };
    const teacherCode = (): string => {
      if (socket.data.role !== 'teacher')
        throw new ClassroomError(ErrorCode.NOT_TEACHER, 'only the teacher can do this');
      return joinedCode();
    };
    /** Tells the room a seat is gone (its answer is not waited for). */
    const forget = (code: string, role: Role, playerId: number | undefined) => {
      gate
        .ask(code, { type: 'leave', role, playerId, socketId: socket.id })
        .catch((err: unknown) => log.warn({ err, room: code }, 'could not tell the room a socket left'));
    };
    /** Forgets the socket's identity, so one socket is one person in one room. */
    const leave = () => {
      const { code, role, playerId } = socket.data;
      for (const r of socket.rooms) if (r !== socket.id) socket.leave(r);
      if (code && role !== 'none') forget(code, role, playerId);
      socket.data.role = 'none';
      socket.data.code = undefined;
      socket.data.playerId = undefined;
    };

    /**
     * Takes a seat in a room: the socket joins the room's `all` channel first, the room's holder seats it (and puts
     * it in the seat's channels), and only then does the socket drop its previous identity. A socket that went away
     * meanwhile takes no seat.
     */
    const enter = async <K extends 'join' | 'rejoin' | 'teacher' | 'observe'>(
      code: string,
      role: Role,
      ask: AskOf<K>,
    ): Promise<AskReply<K>> => {
      const all = ch.all(code);
      const hadAll = socket.rooms.has(all);
      socket.join(all);
      let seat: AskReply<K>;
      try {
        seat = await gate.ask(code, { ...ask, socketId: socket.id } as AskOf<K>);
      } catch (e) {
        if (!hadAll) socket.leave(all);
        throw e;
      }
      const playerId = 'playerId' in seat ? seat.playerId : undefined;
      if (socket.disconnected) {
        forget(code, role, playerId);
        throw new ClassroomError(ErrorCode.NOT_JOINED, 'the connection closed while joining');
      }
      const teamId = 'teamId' in seat ? seat.teamId : undefined;
      const view = 'view' in seat ? seat.view : undefined;
      const keep = new Set([socket.id, all, ...seatChannels(code, { role, playerId, teamId, view })]);
      for (const r of socket.rooms) if (!keep.has(r)) socket.leave(r);
      const old = socket.data;
      if (old.code && old.role !== 'none') forget(old.code, old.role, old.playerId);
      socket.data = { ...socket.data, role, code, playerId };
      return seat;
    };

    on('student:join', async (req) => {
      limitJoin();
      let seat: StudentSeat;
      let token = req.token;
      if (token) {
        const known = await gate.tokenSeat(hashSecret(token), req.code);
        seat = await enter(known.code, 'student', { type: 'rejoin', playerId: known.playerId });
      } else {
        if (!req.name) throw new ClassroomError(ErrorCode.BAD_REQUEST, 'a display name is needed to join');
        if (!seats.take(`${socket.data.ip} ${normalizeCode(req.code) ?? ''}`)) {
          refused('socket:seats');
          throw new ClassroomError(
            ErrorCode.RATE_LIMITED,
            'too many new students from this address in this room: wait a little',
          );
        }
        token = newSecret();
        seat = await enter(normalizedCode(req.code), 'student', {
          type: 'join',
          name: req.name,
          tokenHash: hashSecret(token),
        });
      }
      return {
        token,
        playerId: seat.playerId,
        room: seat.room,
        history: seat.history,
        scores: seat.scores,
        roleChanges: seat.roleChanges,
        seatTurns: seat.seatTurns,
        messages: seat.messages,
      };
    });

    /** The student this socket is: every student command acts on their own seat only. */
    const studentId = (): number => {
      const playerId = socket.data.playerId;
      if (socket.data.role !== 'student' || playerId === undefined)
        throw new ClassroomError(ErrorCode.NOT_JOINED, 'join as a student first');
      return playerId;
    };
    on('student:control', async (req) => {
      const playerId = studentId();
      const { reply } = await dispatchVia(gate, joinedCode(), {
        type: 'control',
        playerId,
        key: req.key,
        value: req.value,
      });
      return { change: reply };
    });

    on('student:presence', async (req) => {
      await gate.ask(joinedCode(), { type: 'seen', playerId: studentId(), socketId: socket.id, hidden: req.hidden });
      return {};
    });
    on('student:pilot', async (req) => {
      const playerId = studentId();
      const pilot = req.autopilot ? ({ kind: 'autopilot', skill: 'careful', reason: 'self' } as const) : null;
      await dispatchVia(gate, joinedCode(), { type: 'pilot', playerId, pilot, by: 'student' });
      return {};
    });
    on('student:take', async (req) => {
      await dispatchVia(gate, joinedCode(), { type: 'take', playerId: studentId(), fromId: req.fromId });
      return {};
    });

    on('teacher:join', async (req) => {
      limitJoin();
      const seat = await enter(normalizedCode(req.code), 'teacher', { type: 'teacher', keyHash: hashSecret(req.key) });
      return {
        room: seat.room,
        latest: seat.latest,
        trends: seat.trends,
        scores: seat.scores,
        roleChanges: seat.roleChanges,
        seatTurns: seat.seatTurns,
        messages: seat.messages,
        scenarios: seat.scenarios,
      };
    });

    on('observer:join', async (req) => {
      limitJoin();
      const seat = await enter(normalizedCode(req.code), 'observer', { type: 'observe' });
      return { room: seat.room, summary: seat.summary, scores: seat.scores };
    });

    /** A teacher command; the answer is the room as it stands after it. */
    const teacher = <E extends ClientEvent>(
      event: E,
      command: (data: z.output<(typeof schemas)[E]>) => TeacherCommand,
    ) =>
      on(event, async (req) => {
        const { room } = await gate.ask(teacherCode(), {
          type: 'dispatch',
          command: command(req),
          view: true,
          from: addressKey(socket.data.ip),
        });
        if (!room) throw new Error('a command asked with its view came back without it');
        return { room };
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
    teacher('teacher:pilot', (req) => ({
      type: 'pilot',
      playerId: req.playerId,
      by: 'teacher',
      pilot: req.pilot === 'student' ? null : { kind: req.pilot, skill: req.skill ?? 'careful', reason: 'teacher' },
    }));
    teacher('teacher:bots', (req) => ({ type: 'bots', teams: req.teams, ...(req.role ? { role: req.role } : {}) }));
    on('teacher:control', async (req) => {
      const { reply } = await dispatchVia(gate, teacherCode(), {
        type: 'control',
        playerId: req.playerId,
        key: req.key,
        value: req.value,
        by: 'teacher',
      });
      return { change: reply };
    });
    on('teacher:message', async (req) => {
      const { reply } = await dispatchVia(gate, teacherCode(), { type: 'message', teamId: req.teamId, text: req.text });
      return { message: reply };
    });
    on('teacher:team', async (req) => ({
      history: await gate.ask(teacherCode(), { type: 'team', teamId: req.teamId }),
    }));

    socket.on('disconnect', () => leave());
  });
}
