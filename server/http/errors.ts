// Typed classroom errors as HTTP answers: { error: { code, message } } with a fitting status.
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';

const STATUS: Partial<Record<ErrorCode, number>> = {
  BAD_REQUEST: 400,
  BAD_KEY: 401,
  NOT_TEACHER: 403,
  NOT_FOUND: 404,
  ROOM_NOT_FOUND: 404,
  PLAYER_NOT_FOUND: 404,
  ROUND_NOT_FOUND: 404,
  TEAM_NOT_FOUND: 404,
  RATE_LIMITED: 429,
  ROOM_FULL: 409,
  ROOM_LOCKED: 403,
  ROOM_CLOSED: 410,
  ROOM_QUOTA: 409,
  BAD_TOKEN: 401,
  BAD_STATE: 409,
};

export function sendError(reply: FastifyReply, e: ClassroomError): FastifyReply {
  return reply.code(STATUS[e.code] ?? 400).send({ error: e.toJSON() });
}

export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const r = schema.safeParse(body ?? {});
  if (!r.success) throw new ClassroomError(ErrorCode.BAD_REQUEST, r.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  return r.data;
}

/** The teacher key from `Authorization: Bearer <key>`, if any. */
export function bearer(header: string | undefined): string | undefined {
  const m = header ? /^Bearer\s+(\S{16,128})$/i.exec(header) : null;
  return m ? m[1] : undefined;
}
