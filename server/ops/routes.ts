// Routes for operators and for the teacher's join screen: GET /metrics (Prometheus), GET /api/health (the process
// works: liveness), GET /api/ready (it can serve rooms now: readiness) and GET /api/info (where students can reach
// this server).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { bearer } from '../http/errors.ts';
import { isLoopback, joinInfo, type Interfaces } from '../net/addresses.ts';
import type { PromMetrics } from './prometheus.ts';

export interface OpsRouteOptions {
  metrics: PromMetrics;
  /** With a token, /metrics needs `Authorization: Bearer <token>`; without, it answers this machine only. */
  metricsToken: string | null;
  publicUrl: string | null;
  interfaces: () => Interfaces;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** A request from this machine that no proxy forwarded (a local proxy would make everyone look local). */
function fromThisMachine(req: FastifyRequest): boolean {
  const h = req.headers;
  return isLoopback(req.socket.remoteAddress ?? '') && !h['x-forwarded-for'] && !h.forwarded && !h['x-real-ip'];
}

export async function opsRoutes(app: FastifyInstance, opts: OpsRouteOptions): Promise<void> {
  const expected = opts.metricsToken ? digest(opts.metricsToken) : null;

  app.get('/metrics', async (req, reply) => {
    if (expected) {
      const given = bearer(req.headers.authorization);
      // Compared as digests: equal length, constant time.
      if (!given || !timingSafeEqual(digest(given), expected))
        throw new ClassroomError(ErrorCode.BAD_KEY, 'metrics need Authorization: Bearer <METRICS_TOKEN>');
    } else if (!fromThisMachine(req)) {
      throw new ClassroomError(
        ErrorCode.NOT_FOUND,
        'metrics are served to this machine only (set METRICS_TOKEN to read them from elsewhere)',
      );
    }
    const { contentType, body } = await opts.metrics.scrape();
    return reply.type(contentType).header('cache-control', 'no-store').send(body);
  });

  // Liveness: the process answers. Nothing it depends on is asked, so an outage of the database or of Redis, shared
  // by every process, never makes a supervisor restart them all at once.
  app.get('/api/health', async () => ({ ok: true, rooms: app.rooms.all().length }));

  // Readiness: this process can serve rooms now — its database can be read and written (and is intact), Redis is
  // reached (cluster mode), and it is not stopping. 503 otherwise, with the reasons: a load balancer sends it nobody
  // meanwhile.
  app.get('/api/ready', async (_req, reply) => {
    const database = await app.dbHealth.status();
    const redis = app.cluster ? { reachable: app.cluster.link.up } : undefined;
    const reasons = [
      ...(database.intact ? [] : ['the database failed its check at start']),
      ...(database.writable ? [] : ['the database cannot be written']),
      ...(redis && !redis.reachable ? ['Redis cannot be reached'] : []),
      ...(app.rooms.stopping ? ['the server is stopping'] : []),
    ];
    const ready = reasons.length === 0;
    return reply
      .code(ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({
        ready,
        ...(ready ? {} : { reasons }),
        rooms: app.rooms.all().length,
        database,
        ...(redis ? { redis } : {}),
      });
  });

  app.get('/api/info', async (req) => {
    const addr = app.server.address();
    const bound = typeof addr === 'object' && addr ? addr : { address: '127.0.0.1', port: 0 };
    return joinInfo({
      publicUrl: opts.publicUrl,
      bound: bound.address,
      port: bound.port,
      interfaces: opts.interfaces(),
      via: req.socket.localAddress,
    });
  });
}
