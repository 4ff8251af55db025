// Teacher-only HTTP routes (Authorization: Bearer <teacherKey>): history, replay, what-if fork, CSV.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { buildReplay, ownedRound, teacherHistory } from '../replay/replay.ts';
import { ReplayCache, type CachedBody } from '../replay/cache.ts';
import { CSV_PARTS } from '../../shared/protocol/types.ts';
import { roundCsv } from '../replay/csv.ts';
import { bearer, parseBody } from './errors.ts';

const forkBody = z.strictObject({ teamId: z.number().int().min(1), minute: z.number().int().min(0) });
const roundParams = z.object({ id: z.coerce.number().int().min(1).max(2 ** 31) });

function sendJson(req: FastifyRequest, reply: FastifyReply, body: CachedBody): FastifyReply {
  reply.type('application/json; charset=utf-8').header('vary', 'accept-encoding').header('cache-control', 'private, no-store');
  if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(body.gzip);
  return reply.send(body.json);
}

export async function teacherRoutes(app: FastifyInstance, opts: { cache: ReplayCache }): Promise<void> {
  const { cache } = opts;

  const teacherOf = (req: FastifyRequest): Promise<number> => {
    const key = bearer(req.headers.authorization);
    if (!key) throw new ClassroomError(ErrorCode.BAD_KEY, 'a teacher key is needed (Authorization: Bearer <key>)');
    return app.rooms.teacherId(key);
  };
  const roundId = (req: FastifyRequest) => {
    const p = roundParams.safeParse(req.params);
    if (!p.success) throw new ClassroomError(ErrorCode.ROUND_NOT_FOUND, 'no such round');
    return p.data.id;
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

  app.get('/api/rounds/:id/replay', async (req, reply) => sendJson(req, reply, await replayBody(await teacherOf(req), roundId(req))));

  app.post('/api/rounds/:id/fork', async (req, reply) => {
    const teacherId = await teacherOf(req);
    const body = parseBody(forkBody, req.body);
    const room = await app.rooms.fork(teacherId, roundId(req), body.teamId, body.minute);
    // The origin's replay now lists one more fork.
    cache.clear();
    return reply.code(201).send({ code: room.code, roundId: room.round.id, room: room.view() });
  });

  app.get<{ Params: { id: string; part: string } }>('/api/rounds/:id/export/:part', async (req, reply) => {
    const teacherId = await teacherOf(req);
    const part = CSV_PARTS.find((p) => p === req.params.part.replace(/\.csv$/, ''));
    if (!part) throw new ClassroomError(ErrorCode.NOT_FOUND, `export parts are ${CSV_PARTS.join(', ')}`);
    const id = roundId(req);
    const { round, room } = await ownedRound(app.store, teacherId, id);
    const csv = roundCsv(part, await buildReplay(app.store, round, room));
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="opsroom-${room.code}-round${round.number}-${part}.csv"`)
      .send(csv);
  });
}
