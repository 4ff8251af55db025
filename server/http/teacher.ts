// Teacher-only HTTP routes (Authorization: Bearer <teacherKey>): history, replay, what-if fork, export.
// Bodies, parameters and queries are checked by their zod route schemas before a handler runs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { buildReplay, ownedRound, teacherHistory } from '../replay/replay.ts';
import { ReplayCache, type CachedBody } from '../replay/cache.ts';
import { CSV_PARTS } from '../../shared/protocol/types.ts';
import { pickLocale } from '../replay/csv-words.ts';
import { exportName, type ExportFile } from '../replay/exports.ts';
import { bearer } from './errors.ts';
import type { HttpLimits } from './rooms.ts';

const forkBody = z.strictObject({ teamId: z.number().int().min(1), minute: z.number().int().min(0) });
const roundParams = z.object({ id: z.coerce.number().int().min(1).max(2 ** 31) });
/** The export's files by their URL name: minutes.csv (or minutes), …, all.zip. */
const EXPORT_PATHS: Record<string, ExportFile> = { ...Object.fromEntries(CSV_PARTS.flatMap((p) => [[p, p], [`${p}.csv`, p]])), 'all.zip': 'all' };
const exportParams = roundParams.extend({
  file: z.string().refine((f) => Object.hasOwn(EXPORT_PATHS, f), { message: `export files are ${CSV_PARTS.map((p) => `${p}.csv`).join(', ')} and all.zip` }),
});
const exportQuery = z.object({ lang: z.string().max(35).optional() });

function sendJson(req: FastifyRequest, reply: FastifyReply, body: CachedBody): FastifyReply {
  reply.type('application/json; charset=utf-8').header('vary', 'accept-encoding').header('cache-control', 'private, no-store');
  if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(body.gzip);
  return reply.send(body.json);
}

export async function teacherRoutes(fastify: FastifyInstance, opts: { cache: ReplayCache; limits: HttpLimits }): Promise<void> {
  const { cache } = opts;
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  const teacherOf = (req: FastifyRequest): Promise<number> => {
    const key = bearer(req.headers.authorization);
    if (!key) throw new ClassroomError(ErrorCode.BAD_KEY, 'a teacher key is needed (Authorization: Bearer <key>)');
    return app.rooms.teacherId(key);
  };
  const replayBody = async (teacherId: number, id: number): Promise<CachedBody> => {
    const { round, room } = await ownedRound(app.store, teacherId, id);
    const cached = round.state === 'finished' ? cache.get(id) : undefined;
    if (cached) return cached;
    const body = ReplayCache.encode(await buildReplay(app.store, round, room));
    if (round.state === 'finished') cache.set(id, body);
    return body;
  };

  app.get('/api/teacher/rooms', async (req) => ({ rooms: await teacherHistory(app.store, await teacherOf(req)) }));

  app.get('/api/rounds/:id/replay', { schema: { params: roundParams } }, async (req, reply) =>
    sendJson(req, reply, await replayBody(await teacherOf(req), req.params.id)),
  );

  app.post('/api/rounds/:id/fork', { schema: { params: roundParams, body: forkBody } }, async (req, reply) => {
    const room = await app.rooms.fork(await teacherOf(req), req.params.id, req.body.teamId, req.body.minute);
    // The origin's replay now lists one more fork.
    cache.clear();
    return reply.code(201).send({ code: room.code, roundId: room.round.id, room: room.view() });
  });

  // minutes.csv, changes.csv, scores.csv, or all.zip (the three in one); ?lang= names the columns' language.
  app.get(
    '/api/rounds/:id/export/:file',
    { config: { rateLimit: opts.limits.exports }, schema: { params: exportParams, querystring: exportQuery } },
    async (req, reply) => {
      const file = EXPORT_PATHS[req.params.file];
      const { round, room } = await ownedRound(app.store, await teacherOf(req), req.params.id);
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
