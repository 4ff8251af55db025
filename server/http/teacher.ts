// Routes behind a secret (Authorization: Bearer <teacherKey or studentToken>): the teacher's history,
// replays, what-if forks and CSV; a student's own rounds and their team's replay once a round is over.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { CSV_PARTS, type StudentRounds } from '../../shared/protocol/types.ts';
import type { PlayerRecord, RoomRecord } from '../db/store.ts';
import { hashSecret } from '../rooms/manager.ts';
import { ReplayCache, type CachedBody } from '../replay/cache.ts';
import { roundCsv } from '../replay/csv.ts';
import { buildReplay, historyRound, ownedRound, studentReplay, teacherHistory } from '../replay/replay.ts';
import { bearer, parseBody } from './errors.ts';
import type { HttpLimits } from './rooms.ts';

const forkBody = z.strictObject({ teamId: z.number().int().min(1), minute: z.number().int().min(0) });
const roundParams = z.object({ id: z.coerce.number().int().min(1).max(2 ** 31) });

function sendJson(req: FastifyRequest, reply: FastifyReply, body: CachedBody): FastifyReply {
  reply.type('application/json; charset=utf-8').header('vary', 'accept-encoding').header('cache-control', 'private, no-store');
  if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(body.gzip);
  return reply.send(body.json);
}

type Reader = { kind: 'teacher'; teacherId: number } | { kind: 'student'; player: PlayerRecord; room: RoomRecord };

export async function teacherRoutes(app: FastifyInstance, opts: { cache: ReplayCache; limits: HttpLimits }): Promise<void> {
  const { cache, limits } = opts;
  const lookup = { config: { rateLimit: limits.lookups } };

  const secretOf = (req: FastifyRequest, who: string): string => {
    const secret = bearer(req.headers.authorization);
    if (!secret) throw new ClassroomError(ErrorCode.BAD_KEY, `${who} is needed (Authorization: Bearer <key>)`);
    return secret;
  };
  const teacherOf = (req: FastifyRequest): Promise<number> => app.rooms.teacherId(secretOf(req, 'a teacher key'));
  /** A student by their token: a removed student's token opens nothing. */
  const studentOf = async (token: string): Promise<{ player: PlayerRecord; room: RoomRecord } | undefined> => {
    const player = await app.store.playerByTokenHash(hashSecret(token));
    const room = player && !player.removed ? await app.store.roomById(player.roomId) : undefined;
    return player && room ? { player, room } : undefined;
  };
  /** The teacher whose key it is, else the student whose token it is. */
  const readerOf = async (req: FastifyRequest): Promise<Reader> => {
    const secret = secretOf(req, 'a teacher key or a student token');
    const teacherId = await app.store.teacherByKeyHash(hashSecret(secret));
    if (teacherId !== undefined) return { kind: 'teacher', teacherId };
    const student = await studentOf(secret);
    if (!student) throw new ClassroomError(ErrorCode.BAD_TOKEN, 'this key or token is not valid');
    return { kind: 'student', ...student };
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
  /** A finished round the student played: their team's replay (every team's when the room's are shared). */
  const studentBody = async ({ player, room }: { player: PlayerRecord; room: RoomRecord }, id: number): Promise<CachedBody> => {
    const round = await app.store.roundById(id);
    const teams = round?.roomId === room.id ? (await app.store.roundsOfPlayer(player.id)).filter((r) => r.roundId === id).map((r) => r.teamId) : [];
    if (!round || !teams.length) throw new ClassroomError(ErrorCode.ROUND_NOT_FOUND, `you did not play round ${id}`);
    if (round.state !== 'finished') throw new ClassroomError(ErrorCode.BAD_STATE, 'the replay opens when the round is over');
    const key = `student:${id}:${room.replayShared ? 'all' : teams.sort((a, b) => a - b).join(',')}`;
    const cached = cache.get(key);
    if (cached) return cached;
    const body = ReplayCache.encode(studentReplay(await buildReplay(app.store, round, room), teams, room.replayShared));
    cache.set(key, body);
    return body;
  };

  app.get('/api/teacher/rooms', async (req) => ({ rooms: await teacherHistory(app.store, await teacherOf(req)) }));

  app.get('/api/rounds/:id/replay', lookup, async (req, reply) => {
    const reader = await readerOf(req);
    const id = roundId(req);
    return sendJson(req, reply, reader.kind === 'teacher' ? await replayBody(reader.teacherId, id) : await studentBody(reader, id));
  });

  app.get('/api/student/rounds', lookup, async (req): Promise<StudentRounds> => {
    const student = await studentOf(secretOf(req, 'a student token'));
    if (!student) throw new ClassroomError(ErrorCode.BAD_TOKEN, 'this student token is not valid');
    const { player, room } = student;
    const played = await app.store.roundsOfPlayer(player.id);
    const rounds: StudentRounds['rounds'] = [];
    for (const id of new Set(played.map((r) => r.roundId))) {
      const round = await app.store.roundById(id);
      if (round?.state !== 'finished') continue;
      const teamIds = played.filter((r) => r.roundId === id).map((r) => r.teamId);
      const h = await historyRound(app.store, round);
      rounds.push({ ...h, teams: h.teams.filter((t) => room.replayShared || teamIds.includes(t.teamId)), teamIds });
    }
    return { roomCode: room.code, playerId: player.id, name: player.name, replayShared: room.replayShared, rounds };
  });

  app.post('/api/rounds/:id/fork', async (req, reply) => {
    const teacherId = await teacherOf(req);
    const body = parseBody(forkBody, req.body);
    const fork = await app.rooms.fork(teacherId, roundId(req), body.teamId, body.minute, { address: req.ip });
    // The origin's replay now lists one more fork.
    cache.clear();
    return reply.code(201).send(fork);
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
