// Logs a person can read: one line per request at a level that fits what it says, readable lines on
// a terminal and JSON lines for a log collector.
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import pretty from 'pino-pretty';
import type { LogFormat, LogLevel } from '../config.ts';

/** Readable lines for `pretty`, and for `auto` on a terminal; JSON lines otherwise. */
export function prettyLogs(format: LogFormat, isTTY = !!process.stdout.isTTY): boolean {
  return format === 'pretty' || (format === 'auto' && isTTY);
}

/** Fastify's logger options for a level and format. */
export function loggerOptions(
  level: LogLevel,
  format: LogFormat,
  isTTY = !!process.stdout.isTTY,
): FastifyServerOptions['logger'] {
  if (!prettyLogs(format, isTTY)) return { level };
  // Synchronous, so the start block and the last line before exit come out in order.
  // The room code leads the line; a request's fields are already its message.
  const stream = pretty({
    colorize: isTTY,
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss',
    messageFormat: '{if room}[{room}] {end}{msg}',
    ignore: 'pid,hostname,reqId,room,method,url,status,ms',
  });
  return { level, stream };
}

/**
 * Routine answers (pages, assets, health, metrics, API successes) at debug; a client's mistake at info;
 * a rate-limit refusal at warn; a server failure at error — but a 503 (storage or Redis out of reach, nothing
 * changed: the outage is logged once where it is found) at info, and readiness's answer, whatever it is, at debug.
 */
export function requestLevel(status: number, path = ''): 'debug' | 'info' | 'warn' | 'error' {
  if (path === '/api/ready') return 'debug';
  if (status === 503) return 'info';
  if (status >= 500) return 'error';
  if (status === 429) return 'warn';
  if (status >= 400) return 'info';
  return 'debug';
}

/**
 * One line per answered request, at requestLevel, in place of Fastify's two info lines
 * ("incoming request", "request completed") for every asset and health check.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    const path = req.url.split('?')[0];
    const level = error ? 'error' : requestLevel(reply.statusCode, path);
    const line = {
      method: req.method,
      url: path,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ...(error ? { err: error } : {}),
    };
    req.log[level](line, `${req.method} ${path} ${reply.statusCode} (${line.ms} ms)`);
  }
}
