// HTTP routes for rooms: creation (limited per address and per teacher, with what-if forks, by the
// room manager), public look-up by code, health.
import type { FastifyInstance } from 'fastify';
import { createRoomBody } from '../../shared/protocol/schemas.ts';
import { bearer, parseBody } from './errors.ts';

export interface HttpLimits {
  /** Code look-ups per IP per window (the public look-up, a student's replays). */
  lookups: { max: number; timeWindow: string };
}
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  lookups: { max: 120, timeWindow: '1 minute' },
};

export async function roomRoutes(app: FastifyInstance, opts: { limits: HttpLimits }): Promise<void> {
  app.post('/api/rooms', async (req, reply) => {
    const body = parseBody(createRoomBody, req.body);
    const { room, teacherKey } = await app.rooms.create(body, bearer(req.headers.authorization), { address: req.ip });
    return reply.code(201).send({ code: room.code, teacherKey, joinPath: `/join/${room.code}`, room: room.view('teacher') });
  });

  app.get<{ Params: { code: string } }>('/api/rooms/:code', { config: { rateLimit: opts.limits.lookups } }, async (req) => {
    // Anonymous: a room whose last round ended over an hour ago is not shown (ROOM_CLOSED).
    const room = await app.rooms.forViewers(req.params.code);
    const v = room.view('public');
    return {
      ...{ code: v.code, simulator: v.round.simulator, scenario: v.round.scenario, state: v.round.state, seed: v.round.seed },
      ...{ teams: v.teams.length, players: v.players.length, locked: v.locked },
    };
  });

  app.get('/api/health', async () => ({ ok: true, rooms: app.rooms.all().length }));
}
