// HTTP routes for rooms: creation (limited per address and per teacher, with what-if forks, by the
// room manager) and the public look-up by code. Bodies and parameters are checked by their zod route
// schemas before a handler runs (errors.ts shapes the answer).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { createRoomBody } from '../../shared/protocol/schemas.ts';
import { addressKey } from './client-address.ts';
import { bearer } from './errors.ts';

/** A room code as typed (normalised by the look-up): any short text. */
export const codeParams = z.object({ code: z.string().max(32) });

export interface HttpLimits {
  /** Code look-ups per IP per window (the public look-up, a student's replays). */
  lookups: { max: number; timeWindow: string };
  /** Export downloads (CSV, ZIP) per IP per window. */
  exports: { max: number; timeWindow: string };
  /** Hindsight coach requests per IP per window (a search costs CPU; answers are kept once made). */
  coach: { max: number; timeWindow: string };
  /** Pages of a teacher's history per IP per window. */
  history: { max: number; timeWindow: string };
}
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  lookups: { max: 120, timeWindow: '1 minute' },
  exports: { max: 30, timeWindow: '1 minute' },
  // As the look-ups: a class behind one school NAT opens its debriefs at once (answers are kept, searches shared per team).
  coach: { max: 120, timeWindow: '1 minute' },
  // A page of twenty rooms: a teacher looking back through a year of classes turns a few pages.
  history: { max: 60, timeWindow: '1 minute' },
};

export async function roomRoutes(fastify: FastifyInstance, opts: { limits: HttpLimits }): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // No body at all is an empty configuration: every field has its default.
  const body = createRoomBody.nullish().transform((b) => b ?? {});
  app.post('/api/rooms', { schema: { body } }, async (req, reply) => {
    const { room, teacherKey } = await app.rooms.create(req.body, bearer(req.headers.authorization), {
      address: addressKey(req.ip),
    });
    return reply
      .code(201)
      .send({ code: room.code, teacherKey, joinPath: `/join/${room.code}`, room: room.view('teacher') });
  });

  app.get(
    '/api/rooms/:code',
    { config: { rateLimit: opts.limits.lookups }, schema: { params: codeParams } },
    async (req) => {
      // Anonymous: a room whose last round ended over an hour ago is not shown (ROOM_CLOSED).
      const { room: v } = await app.guesses.attempt(req.ip, 'http', () =>
        app.gate.ask(req.params.code, { type: 'look' }),
      );
      return {
        code: v.code,
        simulator: v.round.simulator,
        scenario: v.round.scenario,
        state: v.round.state,
        seed: v.round.seed,
        teams: v.teams.length,
        players: v.players.length,
        locked: v.locked,
      };
    },
  );
}
