// The class's data leaving Opsroom, teacher-only (Authorization: Bearer <teacherKey>): the research package of a round
// or of a room (docs/research-data.md), and the room's gradebook with the roster mapping to the school's ids
// (docs/gradebook.md). Built in the export's slots, rate-limited like the export.
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { normalizeCode } from '../../shared/classroom/code.ts';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import type { RosterView } from '../../shared/protocol/types.ts';
import type { RoomRecord } from '../db/records.ts';
import type { Clock } from '../lib/clock.ts';
import { projectPath } from '../lib/paths.ts';
import { checkRoster, GRADE_LAYOUTS, GRADE_RULES, gradebookCsv, roomGrades } from '../replay/gradebook.ts';
import { ownedRound } from '../replay/replay.ts';
import { researchZip } from '../replay/research.ts';
import { bearer } from './errors.ts';
import { codeParams, type HttpLimits } from './rooms.ts';
import { roundParams } from './teacher.ts';

const VERSION = (JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string }).version;

/** `names=true` (or 1) asks for a named export; anything else is pseudonymous. */
const researchQuery = z.object({ names: z.enum(['true', 'false', '1', '0']).optional() });
const weight = z.coerce.number().min(0).max(100);
const gradebookQuery = z
  .object({
    rule: z.enum(GRADE_RULES).default('participation'),
    layout: z.enum(GRADE_LAYOUTS).default('plain'),
    points: z.coerce.number().positive().max(10000).default(100),
    wp: weight.default(1),
    ws: weight.default(1),
    wr: weight.default(1),
    assignment: z.string().trim().min(1).max(100).optional(),
  })
  .refine((q) => q.rule !== 'mix' || q.wp + q.ws + q.wr > 0, { message: 'the mix needs a weight above 0' });
export const rosterBody = z.object({
  entries: z
    .array(
      z.object({
        playerId: z.number().int().min(1),
        schoolId: z.string().max(100),
        email: z.string().max(254).default(''),
      }),
    )
    .max(1000),
});

const safeName = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '-');

export async function classDataRoutes(
  fastify: FastifyInstance,
  opts: { limits: HttpLimits; clock: Clock },
): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const limited = { rateLimit: opts.limits.exports };

  const teacherOf = (req: FastifyRequest): Promise<number> => {
    const key = bearer(req.headers.authorization);
    if (!key) throw new ClassroomError(ErrorCode.BAD_KEY, 'a teacher key is needed (Authorization: Bearer <key>)');
    return app.rooms.teacherId(key);
  };
  const ownedRoom = async (req: FastifyRequest, code: string): Promise<RoomRecord> => {
    const teacherId = await teacherOf(req);
    const normal = normalizeCode(code);
    const room = normal ? await app.store.roomByCode(normal) : undefined;
    if (!room || room.teacherId !== teacherId)
      throw new ClassroomError(ErrorCode.ROOM_NOT_FOUND, `no room ${code} of yours`);
    return room;
  };
  const zipReply = (name: string, data: Buffer) => ({
    type: 'application/zip',
    headers: {
      'content-disposition': `attachment; filename="${name}"`,
      'content-length': data.length,
      'cache-control': 'private, no-store',
    },
    data,
  });

  // One round's research package.
  app.get(
    '/api/rounds/:id/research.zip',
    { config: limited, schema: { params: roundParams, querystring: researchQuery } },
    async (req, reply) => {
      const { round, room } = await ownedRound(app.store, await teacherOf(req), req.params.id);
      const named = req.query.names === 'true' || req.query.names === '1';
      const data = await app.exports.slot(() =>
        researchZip(app.store, room, [round], { named, version: VERSION, now: opts.clock.now() }),
      );
      const r = zipReply(`opsroom-${room.code}-round${round.number}-research${named ? '-named' : ''}.zip`, data);
      return reply.type(r.type).headers(r.headers).send(r.data);
    },
  );

  // Every round of a room (what-if rooms are rooms of their own).
  app.get(
    '/api/teacher/rooms/:code/research.zip',
    { config: limited, schema: { params: codeParams, querystring: researchQuery } },
    async (req, reply) => {
      const room = await ownedRoom(req, req.params.code);
      const rounds = (await app.store.roundsOfRoom(room.id)).filter((r) => r.state !== 'lobby');
      const named = req.query.names === 'true' || req.query.names === '1';
      const data = await app.exports.slot(() =>
        researchZip(app.store, room, rounds, { named, version: VERSION, now: opts.clock.now() }),
      );
      const r = zipReply(`opsroom-${room.code}-research${named ? '-named' : ''}.zip`, data);
      return reply.type(r.type).headers(r.headers).send(r.data);
    },
  );

  app.get(
    '/api/teacher/rooms/:code/roster',
    { config: { rateLimit: opts.limits.lookups }, schema: { params: codeParams } },
    async (req): Promise<RosterView> => {
      const room = await ownedRoom(req, req.params.code);
      const [players, teams, roster] = await Promise.all([
        app.store.playersOfRoom(room.id),
        app.store.teamsOfRoom(room.id),
        app.store.rosterOfRoom(room.id),
      ]);
      const ids = new Map(roster.map((r) => [r.playerId, r]));
      return {
        roomCode: room.code,
        students: players.map((p) => {
          const team = teams.find((t) => t.id === p.teamId);
          return {
            playerId: p.id,
            name: p.name,
            team: team ? team.name || `Team ${team.idx + 1}` : '',
            removed: p.removed,
            schoolId: ids.get(p.id)?.schoolId ?? '',
            email: ids.get(p.id)?.email ?? '',
          };
        }),
      };
    },
  );

  // The whole mapping at once: what the page shows is what is stored.
  app.put(
    '/api/teacher/rooms/:code/roster',
    { config: limited, schema: { params: codeParams, body: rosterBody } },
    async (req) => {
      const room = await ownedRoom(req, req.params.code);
      let entries: ReturnType<typeof checkRoster>;
      try {
        entries = checkRoster(req.body.entries, await app.store.playersOfRoom(room.id));
      } catch (e) {
        throw new ClassroomError(ErrorCode.BAD_REQUEST, (e as Error).message);
      }
      await app.store.commit([[{ op: 'setRoster', roomId: room.id, entries }]]);
      return { roomCode: room.code, mapped: entries.length };
    },
  );

  app.get(
    '/api/teacher/rooms/:code/gradebook.csv',
    { config: limited, schema: { params: codeParams, querystring: gradebookQuery } },
    async (req, reply) => {
      const room = await ownedRoom(req, req.params.code);
      const q = req.query;
      const rounds = (await app.store.roundsOfRoom(room.id)).filter((r) => r.state === 'finished');
      const options = {
        rule: q.rule,
        layout: q.layout,
        points: q.points,
        weights: { participation: q.wp, score: q.ws, rank: q.wr },
        assignment: q.assignment ?? `Opsroom ${room.code}`,
      };
      const csv = await app.exports.slot(async () =>
        gradebookCsv(await roomGrades(app.store, room, rounds, options), options),
      );
      // A byte-order mark: spreadsheets then read names as UTF-8; Canvas and Moodle read it too.
      const data = Buffer.from(`\uFEFF${csv}`, 'utf8');
      return reply
        .type('text/csv; charset=utf-8')
        .header(
          'content-disposition',
          `attachment; filename="${safeName(`opsroom-${room.code}-gradebook-${q.layout}-${q.rule}`)}.csv"`,
        )
        .header('content-length', data.length)
        .header('cache-control', 'private, no-store')
        .send(data);
    },
  );
}
