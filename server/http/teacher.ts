// Routes behind a secret (Authorization: Bearer <teacherKey or studentToken>): the teacher's history,
// replays, what-if forks and the export; a student's own rounds and their team's replay once a round is
// over. Bodies, parameters and queries are checked by their zod route schemas before a handler runs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { forkBody } from '../../shared/protocol/schemas.ts';
import { CSV_PARTS, type CoachReport, type HistoryPage, type StudentRounds } from '../../shared/protocol/types.ts';
import type { PlayerRecord, RoomRecord, RoundRecord } from '../db/records.ts';
import type { Coach } from '../replay/coach.ts';
import { hashSecret } from '../rooms/creation.ts';
import { roundPlay } from '../rooms/scenario-content.ts';
import { getModel } from '../../shared/sim/registry.ts';
import { ReplayCache, type CachedBody } from '../replay/cache.ts';
import { pickLocale } from '../replay/csv-words.ts';
import { exportName, type ExportFile } from '../replay/exports.ts';
import {
  buildReplay,
  HISTORY_PAGE,
  historyRound,
  ownedRound,
  parseCursor,
  roundMinutes,
  studentReplay,
  teacherHistory,
} from '../replay/replay.ts';
import { ch } from '../realtime/channels.ts';
import { addressKey } from './client-address.ts';
import { bearer } from './errors.ts';
import type { HttpLimits } from './rooms.ts';

export const roundParams = z.object({
  id: z.coerce
    .number()
    .int()
    .min(1)
    .max(2 ** 31),
});
const codeParams = z.object({ code: z.string().min(1).max(40) });
/** The export's files by their URL name: minutes.csv (or minutes), …, all.zip. */
const EXPORT_PATHS: Record<string, ExportFile> = {
  ...Object.fromEntries(
    CSV_PARTS.flatMap((p) => [
      [p, p],
      [`${p}.csv`, p],
    ]),
  ),
  'all.zip': 'all',
};
const exportParams = roundParams.extend({
  file: z.string().refine((f) => Object.hasOwn(EXPORT_PATHS, f), {
    message: `export files are ${CSV_PARTS.map((p) => `${p}.csv`).join(', ')} and all.zip`,
  }),
});
const exportQuery = z.object({ lang: z.string().max(35).optional() });
const historyQuery = z.object({
  before: z
    .string()
    .regex(/^\d{1,15}\.\d{1,10}$/, 'before is the `next` of the previous page')
    .optional(),
  limit: z.coerce.number().int().min(1).max(HISTORY_PAGE.rooms).optional(),
});

function sendJson(req: FastifyRequest, reply: FastifyReply, body: CachedBody): FastifyReply {
  reply
    .type('application/json; charset=utf-8')
    .header('vary', 'accept-encoding')
    .header('cache-control', 'private, no-store');
  if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')))
    return reply.header('content-encoding', 'gzip').send(body.gzip);
  return reply.send(body.json);
}

type Student = { player: PlayerRecord; room: RoomRecord };
type Reader = { kind: 'teacher'; teacherId: number } | ({ kind: 'student' } & Student);

export async function teacherRoutes(
  fastify: FastifyInstance,
  opts: { cache: ReplayCache; limits: HttpLimits; coach: Coach },
): Promise<void> {
  const { cache, limits, coach } = opts;
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const lookup = { rateLimit: limits.lookups };

  const secretOf = (req: FastifyRequest, who: string): string => {
    const secret = bearer(req.headers.authorization);
    if (!secret) throw new ClassroomError(ErrorCode.BAD_KEY, `${who} is needed (Authorization: Bearer <key>)`);
    return secret;
  };
  const teacherOf = (req: FastifyRequest): Promise<number> => app.rooms.teacherId(secretOf(req, 'a teacher key'));
  /** A student by their token: a removed student's token opens nothing. */
  const studentOf = async (token: string): Promise<Student | undefined> => {
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
  const replayBody = async (teacherId: number, id: number): Promise<CachedBody> => {
    const { round, room } = await ownedRound(app.store, teacherId, id);
    if (round.state === 'finished')
      return cache.body(id, async () => ReplayCache.encode(await buildReplay(app.store, round, room)));
    // A round still going: its teams' minutes are read once a minute; the rest (members, role changes, names,
    // forks) is read each time, and the body is kept for as long as that is the same.
    const replay = await buildReplay(app.store, round, room, (ids) =>
      cache.minutesOf(id, round.minute, () => roundMinutes(app.store, round, ids)),
    );
    // The version is of what may change within a minute: not the minutes, nor the references (fixed by the seed).
    const rest = { ...replay, teams: replay.teams.map(({ columns: _c, chapters: _ch, baseline: _b, ...t }) => t) };
    return cache.body(`${id}@${round.minute}:${ReplayCache.version(rest)}`, () => ReplayCache.encode(replay));
  };
  /** A finished round the student played: their team's replay (every team's when the room's are shared). */
  const studentBody = async ({ player, room }: Student, id: number): Promise<CachedBody> => {
    const round = await app.store.roundById(id);
    const teams =
      round?.roomId === room.id
        ? (await app.store.roundsOfPlayer(player.id)).filter((r) => r.roundId === id).map((r) => r.teamId)
        : [];
    if (!round || !teams.length) throw new ClassroomError(ErrorCode.ROUND_NOT_FOUND, `you did not play round ${id}`);
    if (round.state !== 'finished')
      throw new ClassroomError(ErrorCode.BAD_STATE, 'the replay opens when the round is over');
    const key = `student:${id}:${room.replayShared ? 'all' : teams.sort((a, b) => a - b).join(',')}`;
    return cache.body(key, async () =>
      ReplayCache.encode(studentReplay(await buildReplay(app.store, round, room), teams, room.replayShared)),
    );
  };

  // A page of the teacher's rooms, newest first; `before` (the previous page's `next`) asks for older ones.
  app.get(
    '/api/teacher/rooms',
    { config: { rateLimit: limits.history }, schema: { querystring: historyQuery } },
    async (req): Promise<HistoryPage> =>
      teacherHistory(app.store, await teacherOf(req), {
        before: parseCursor(req.query.before),
        limit: req.query.limit,
      }),
  );

  // A rehearsal or a practice room deleted with everything recorded in it (and its what-ifs); whoever has it open is
  // disconnected and finds no room when they come back. A class's room is refused (NOT_ALLOWED).
  app.delete(
    '/api/teacher/rooms/:code',
    { config: lookup, schema: { params: codeParams } },
    async (req): Promise<{ deleted: string[] }> => {
      const deleted = await app.rooms.remove(await teacherOf(req), req.params.code);
      for (const code of deleted) {
        app.io.in(ch.all(code)).disconnectSockets(true);
        app.feed.closeRoom(code);
      }
      return { deleted };
    },
  );

  app.get('/api/rounds/:id/replay', { config: lookup, schema: { params: roundParams } }, async (req, reply) => {
    const reader = await readerOf(req);
    const id = req.params.id;
    return sendJson(
      req,
      reply,
      reader.kind === 'teacher' ? await replayBody(reader.teacherId, id) : await studentBody(reader, id),
    );
  });

  app.get('/api/student/rounds', { config: lookup }, async (req): Promise<StudentRounds> => {
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

  // The hindsight coach: the teacher gets every team, a student their own team(s); finished rounds only.
  app.get(
    '/api/rounds/:id/coach',
    { config: { rateLimit: limits.coach }, schema: { params: roundParams } },
    async (req): Promise<CoachReport> => {
      const reader = await readerOf(req);
      const id = req.params.id;
      let round: RoundRecord;
      let teamIds: number[];
      if (reader.kind === 'teacher') {
        round = (await ownedRound(app.store, reader.teacherId, id)).round;
        teamIds = (await app.store.roundTeams(id)).map((t) => t.teamId);
      } else {
        const found = await app.store.roundById(id);
        teamIds =
          found?.roomId === reader.room.id
            ? [
                ...new Set(
                  (await app.store.roundsOfPlayer(reader.player.id))
                    .filter((r) => r.roundId === id)
                    .map((r) => r.teamId),
                ),
              ]
            : [];
        if (!found || !teamIds.length)
          throw new ClassroomError(ErrorCode.ROUND_NOT_FOUND, `you did not play round ${id}`);
        round = found;
      }
      const seed = round.seed;
      if (round.state !== 'finished' || seed === null)
        throw new ClassroomError(ErrorCode.BAD_STATE, 'the coach opens when the round is over');
      const [changes, { model, def }] = await Promise.all([app.store.changesOfRound(id), roundPlay(app.store, round)]);
      // Each teacher, and each student, has a share of the coach's queue; so has their address.
      const who = {
        asker: reader.kind === 'teacher' ? `teacher:${reader.teacherId}` : `student:${reader.player.id}`,
        address: addressKey(req.ip),
      };
      const teams = await Promise.all(
        teamIds.map((teamId) =>
          coach.team(
            id,
            teamId,
            {
              simulator: round.simulator,
              scenario: round.scenario,
              ...(model === getModel(round.simulator) ? {} : { def }),
              seed,
              noise: round.noise,
              minutes: round.minutes,
              minute: round.minute,
              changes: changes
                .filter((c) => c.teamId === teamId)
                .map((c) => ({ minute: c.minute, key: c.key, value: c.value, auto: c.actor.kind === 'autopilot' })),
            },
            who,
          ),
        ),
      );
      return { roundId: id, teams };
    },
  );

  // The key and the creation allowance are checked as the request arrives, before its body (up to 500 changes) is
  // parsed and checked: a refused fork costs next to nothing. Its bytes are read to the end first (and dropped), so
  // that the refusal reaches the client rather than a connection closed under the body it is still sending.
  const forkAllowed = async (req: FastifyRequest) => {
    try {
      app.rooms.checkCreation({ address: addressKey(req.ip) }, await teacherOf(req));
    } catch (e) {
      for await (const _chunk of req.raw);
      throw e;
    }
  };
  app.post(
    '/api/rounds/:id/fork',
    { onRequest: forkAllowed, schema: { params: roundParams, body: forkBody } },
    async (req, reply) => {
      const { teamId, minute, changes } = req.body;
      const fork = await app.rooms.fork(
        await teacherOf(req),
        req.params.id,
        teamId,
        minute,
        { address: addressKey(req.ip) },
        changes ?? [],
      );
      // The origin's replay now lists one more fork.
      cache.clear();
      return reply.code(201).send(fork);
    },
  );

  // minutes.csv, changes.csv, scores.csv, or all.zip (the three in one); ?lang= names the columns' language.
  app.get(
    '/api/rounds/:id/export/:file',
    { config: { rateLimit: limits.exports }, schema: { params: exportParams, querystring: exportQuery } },
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
