// Typed classroom errors as HTTP answers: { error: { code, message } } with a fitting status.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import type { ScenarioFileError } from '../../shared/scenarios/load.ts';
import { noMetrics, type Metrics } from '../lib/metrics.ts';
import { BARE_HEADERS } from './headers.ts';

const STATUS: Partial<Record<ErrorCode, number>> = {
  BAD_REQUEST: 400,
  BAD_KEY: 401,
  NOT_TEACHER: 403,
  NOT_ALLOWED: 403,
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
  ROUND_LIMIT: 409,
  STORAGE_QUOTA: 409,
  BAD_TOKEN: 401,
  BAD_STATE: 409,
  // Transient: nothing changed, and the same request may succeed in a moment.
  STORAGE_FAILED: 503,
  UNAVAILABLE: 503,
};

export function sendError(reply: FastifyReply, e: ClassroomError): FastifyReply {
  return bare(reply)
    .code(STATUS[e.code] ?? 400)
    .send({ error: e.toJSON() });
}

/** The security headers on an answer that helmet's hook may not have reached (an error before routing). */
function bare(reply: FastifyReply): FastifyReply {
  for (const [k, v] of Object.entries(BARE_HEADERS)) if (!reply.hasHeader(k)) reply.header(k, v);
  return reply;
}

/** Any error on its way out of a route or a hook: classroom errors, Fastify's own 4xx, or a 500. */
export function errorHandler(metrics: Metrics = noMetrics) {
  return (err: FastifyError | ClassroomError, req: FastifyRequest, reply: FastifyReply): FastifyReply => {
    if (err instanceof ClassroomError) return sendError(reply, err);
    if (hasZodFastifySchemaValidationErrors(err)) {
      // A route schema refused the request: "teamCount: Too small…", as every other check words it.
      const where = err.validationContext ?? 'request';
      const message = err.validation
        .map((v) => `${v.instancePath.slice(1).replace(/\//g, '.') || where}: ${v.message}`)
        .join('; ');
      return bare(reply)
        .code(400)
        .send({ error: { code: ErrorCode.BAD_REQUEST, message } });
    }
    const status = err.statusCode;
    if (status === 429) {
      metrics.rateLimited(`http:${req.method} ${req.routeOptions?.url ?? '*'}`);
      return sendError(reply, new ClassroomError(ErrorCode.RATE_LIMITED, 'too many requests: wait a little'));
    }
    if (status && status >= 400 && status < 500) {
      // Fastify's own 4xx (bad JSON, body too large, bad URL…) keep their status, with our error shape.
      const code = status === 413 || status === 414 ? ErrorCode.TOO_LARGE : ErrorCode.BAD_REQUEST;
      return bare(reply)
        .code(status)
        .send({ error: { code, message: err.message } });
    }
    req.log.error({ err }, 'request failed');
    return bare(reply)
      .code(500)
      .send({ error: { code: ErrorCode.INTERNAL, message: 'internal error' } });
  };
}

/**
 * Errors Node's HTTP parser meets before Fastify sees a request (malformed request line, headers too
 * large, a timeout): answered in our shape, then the connection is closed, as Node itself would.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, ErrorCode.BAD_REQUEST, 'the request took too long']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, ErrorCode.TOO_LARGE, 'the request headers are too large']
        : [400, ErrorCode.BAD_REQUEST, 'malformed HTTP request'];
  const body = JSON.stringify({ error: { code, message } });
  if (socket.writable) {
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      ...Object.entries(BARE_HEADERS).map(([k, v]) => `${k}: ${v}`),
      'Connection: close',
    ];
    socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
  }
  socket.destroy();
}

/** The teacher key from `Authorization: Bearer <key>`, if any. */
export function bearer(header: string | undefined): string | undefined {
  const m = header ? /^Bearer\s+(\S{16,128})$/i.exec(header) : null;
  return m ? m[1] : undefined;
}

/** A refused file as the one error shape: BAD_REQUEST, every issue named by its field, the first as `key`. */
export function scenarioRefusal(e: ScenarioFileError): ClassroomError {
  const first = e.issues[0];
  return new ClassroomError(
    ErrorCode.BAD_REQUEST,
    `scenario file: ${e.message}`,
    first?.path ? { key: first.path } : {},
  );
}
