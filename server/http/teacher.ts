// Teacher-only HTTP routes (Authorization: Bearer <teacherKey>): history, replay, what-if fork, CSV.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { buildReplay, ownedRound, teacherHistory } from '../replay/replay.ts';
import { ReplayCache, type CachedBody } from '../replay/cache.ts';
import { CSV_PARTS } from '../replay/csv.ts';
import { pickLocale } from '../replay/csv-words.ts';
import { exportName, type ExportFile } from '../replay/exports.ts';
import { bearer, parseBody } from './errors.ts';
import type { HttpLimits } from './rooms.ts';

const forkBody = z.strictObject({ teamId: z.number().int().min(1), minute: z.number().int().min(0) });
const roundParams = z.object({ id: z.coerce.number().int().min(1).max(2 ** 31) });

function sendJson(req: FastifyRequest, reply: FastifyReply, body: CachedBody): FastifyReply {
  reply.type('application/json; charset=utf-8').header('vary', 'accept-encoding').header('cache-control', 'private, no-store');
  if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(body.gzip);
  return reply.send(body.json);
}

export async function teacherRoutes(app: FastifyInstance, opts: { cache: ReplayCache; limits: HttpLimits }): Promise<void> {
  const { cache } = opts;

  const teacherOf = (req: FastifyRequest): number => {
    const key = bearer(req.headers.authorization);
    if (!key) throw new ClassroomError(ErrorCode.BAD_KEY, 'a teacher key is needed (Authorization: Bearer <key>)');
    return app.rooms.teacherId(key);
  };
  const roundId = (req: FastifyRequest) => {
    const p = roundParams.safeParse(req.params);
    if (!p.success) throw new ClassroomError(ErrorCode.ROUND_NOT_FOUND, 'no such round');
    return p.data.id;
  };
  const replayBody = (teacherId: number, id: number): { body: CachedBody; replay?: ReturnType<typeof buildReplay> } => {
    const { round, room } = ownedRound(app.store, teacherId, id);
    const cached = round.state === 'finished' ? cache.get(id) : undefined;
    if (cached) return { body: cached };
    const replay = buildReplay(app.store, round, room);
    const body = ReplayCache.encode(replay);
    if (round.state === 'finished') cache.set(id, body);
    return { body, replay };
  };

  app.get('/api/teacher/rooms', async (req) => ({ rooms: teacherHistory(app.store, teacherOf(req)) }));

  app.get('/api/rounds/:id/replay', async (req, reply) => sendJson(req, reply, replayBody(teacherOf(req), roundId(req)).body));

  app.post('/api/rounds/:id/fork', async (req, reply) => {
    const teacherId = teacherOf(req);
    const body = parseBody(forkBody, req.body);
    const room = app.rooms.fork(teacherId, roundId(req), body.teamId, body.minute);
    // The origin's replay now lists one more fork.
    cache.clear();
    return reply.code(201).send({ code: room.code, roundId: room.round.id, room: room.view() });
  });

  // minutes.csv, changes.csv, scores.csv, or all.zip (the three in one); ?lang= names the columns' language.
  app.get<{ Params: { id: string; file: string }; Querystring: { lang?: string } }>(
    '/api/rounds/:id/export/:file',
    { config: { rateLimit: opts.limits.exports } },
    async (req, reply) => {
      const teacherId = teacherOf(req);
      const m = /^(minutes|changes|scores)(?:\.csv)?$|^(all)\.zip$/.exec(req.params.file);
      const file = (m?.[1] ?? m?.[2]) as ExportFile | undefined;
      if (!file) throw new ClassroomError(ErrorCode.NOT_FOUND, `export files are ${CSV_PARTS.map((p) => `${p}.csv`).join(', ')} and all.zip`);
      const { round, room } = ownedRound(app.store, teacherId, roundId(req));
      const body = await app.exports.get(room, round, file, pickLocale(req.query.lang, req.headers['accept-language']));
      return reply
        .type(file === 'all' ? 'application/zip' : 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${exportName(room, round, file)}"`)
        .header('content-length', body.bytes)
        .header('cache-control', 'private, no-store')
        .send(Readable.from(body.chunks));
    },
  );
}
