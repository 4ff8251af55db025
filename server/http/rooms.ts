// HTTP routes for rooms: creation (rate-limited), public look-up by code, health.
import type { FastifyInstance } from 'fastify';
import { createRoomBody } from '../../shared/protocol/schemas.ts';
import { bearer, parseBody } from './errors.ts';

export interface HttpLimits {
  /** Room creations per IP per window. */
  createRooms: { max: number; timeWindow: string };
  /** Code look-ups per IP per window. */
  lookups: { max: number; timeWindow: string };
}
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  createRooms: { max: 30, timeWindow: '10 minutes' },
  lookups: { max: 120, timeWindow: '1 minute' },
};

export async function roomRoutes(app: FastifyInstance, opts: { limits: HttpLimits }): Promise<void> {
  app.post('/api/rooms', { config: { rateLimit: opts.limits.createRooms } }, async (req, reply) => {
    const body = parseBody(createRoomBody, req.body);
    const { room, teacherKey } = await app.rooms.create(body, bearer(req.headers.authorization));
    return reply.code(201).send({ code: room.code, teacherKey, joinPath: `/join/${room.code}`, room: room.view() });
  });

  app.get<{ Params: { code: string } }>('/api/rooms/:code', { config: { rateLimit: opts.limits.lookups } }, async (req) => {
    const { room: v } = await app.gate.ask(req.params.code, { type: 'look' });
    return { code: v.code, simulator: v.round.simulator, scenario: v.round.scenario, state: v.round.state, teams: v.teams.length, players: v.players.length };
  });

  app.get('/api/health', async () => ({ ok: true, rooms: app.rooms.all().length }));
}
