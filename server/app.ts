// buildApp(): the whole Opsroom server as one Fastify app — HTTP API, socket.io classroom protocol,
// the plain WebSocket feed, the web build, and the database. main.ts only listens and shuts down.
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { randomInt } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join, resolve } from 'node:path';
import { Server } from 'socket.io';
import { ClassroomError, ErrorCode } from '../shared/protocol/errors.ts';
import { Committer } from './db/commit.ts';
import { SqliteStore } from './db/sqlite.ts';
import type { Store } from './db/store.ts';
import { sendError } from './http/errors.ts';
import { DEFAULT_HTTP_LIMITS, roomRoutes, type HttpLimits } from './http/rooms.ts';
import { teacherRoutes } from './http/teacher.ts';
import type { Interfaces } from './net/addresses.ts';
import { RequestLog } from './ops/log.ts';
import { PromMetrics } from './ops/prometheus.ts';
import { opsRoutes } from './ops/routes.ts';
import { ReplayCache } from './replay/cache.ts';
import { rawJsonParser } from './realtime/encoder.ts';
import { FeedHub } from './realtime/feed.ts';
import { attachProtocol, DEFAULT_REALTIME_LIMITS, socketOutput, type IoServer, type RealtimeLimits } from './realtime/socket.ts';
import { realClock, type Clock } from './rooms/clock.ts';
import { RoomManager } from './rooms/manager.ts';

export interface AppOptions {
  /** SQLite file, or ':memory:'. */
  databasePath: string;
  clock?: Clock;
  /** Folder of the web build (adapter-static output); null serves no web app. */
  webRoot?: string | null;
  logger?: FastifyServerOptions['logger'];
  httpLimits?: Partial<HttpLimits>;
  realtimeLimits?: Partial<RealtimeLimits>;
  /** PUBLIC_URL: where students join when the server is behind a proxy or a name. */
  publicUrl?: string | null;
  /** METRICS_TOKEN: /metrics then needs it as a Bearer token; without, /metrics answers this machine only. */
  metricsToken?: string | null;
  /** The machine's network interfaces (os.networkInterfaces), read on each /api/info. */
  interfaces?: () => Interfaces;
  /** Rooms whose minutes fall due within the same slot of this many ms play them together (RoomDeps.beatSlotMs). */
  beatSlotMs?: number;
  /** At most one database transaction starts per slot of this many ms of real time (db/commit.ts); 0: per turn. */
  commitSlotMs?: number;
}

/** Minutes due within 20 ms of each other share a timer, a transaction and an fsync: at most 20 ms later. */
export const BEAT_SLOT_MS = 20;

declare module 'fastify' {
  interface FastifyInstance {
    rooms: RoomManager;
    store: Store;
    io: IoServer;
    feed: FeedHub;
    replayCache: ReplayCache;
  }
}

/** Largest socket.io message accepted: every classroom message is far smaller. */
export const MAX_SOCKET_MESSAGE = 8 * 1024;

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  // One line per request at a level that fits it (ops/log.ts).
  const app = Fastify({ logger: opts.logger ?? false, logController: new RequestLog(), bodyLimit: 16 * 1024, forceCloseConnections: true });
  const clock = opts.clock ?? realClock;
  const metrics = new PromMetrics();
  // The disk's waits off the event loop: SQLite commits on a thread of their own (db/writer.ts).
  const store = SqliteStore.open(opts.databasePath, { writerThread: true });

  // socket.io handles its own upgrades; @fastify/websocket gets only the others (it would answer them all).
  // rawJsonParser: minutes go out as the JSON text made once per snapshot (realtime/encoder.ts).
  const io: IoServer = new Server(app.server, { serveClient: false, destroyUpgrade: false, maxHttpBufferSize: MAX_SOCKET_MESSAGE, parser: rawJsonParser });
  const upgrades = new EventEmitter();
  app.server.on('upgrade', (req, socket, head) => {
    if (!req.url?.startsWith('/socket.io/')) upgrades.emit('upgrade', req, socket, head);
  });

  const feed = new FeedHub(metrics);
  // Transactions in real time's slots (the disk's time, not the rooms' clock): at most one per beat slot.
  const committer = new Committer(store, metrics, opts.commitSlotMs ?? BEAT_SLOT_MS);
  const rooms = new RoomManager({
    ...{ store, committer, out: socketOutput(io, feed, metrics), clock, log: app.log, metrics },
    drawSeed: () => randomInt(0, 2 ** 32),
    beatSlotMs: opts.beatSlotMs ?? BEAT_SLOT_MS,
  });
  metrics.watch({
    roomStates: () => rooms.all().map((r) => r.round.state),
    socketRoles: () => [...io.sockets.sockets.values()].map((s) => s.data.role),
    feeds: () => feed.count(),
  });
  app.decorate('rooms', rooms);
  app.decorate('store', store);
  app.decorate('io', io);
  app.decorate('feed', feed);
  attachProtocol(io, rooms, clock, app.log, { ...DEFAULT_REALTIME_LIMITS, ...opts.realtimeLimits }, metrics);

  app.setErrorHandler((err, req, reply) => {
    if (err instanceof ClassroomError) return sendError(reply, err);
    const status = (err as { statusCode?: number }).statusCode;
    if (status === 429) {
      metrics.rateLimited(`http:${req.method} ${req.routeOptions.url ?? '*'}`);
      return sendError(reply, new ClassroomError(ErrorCode.RATE_LIMITED, 'too many requests: wait a little'));
    }
    if (status && status >= 400 && status < 500) {
      // Fastify's own 4xx (bad JSON, body too large…) keep their status, with our error shape.
      const code = status === 413 ? ErrorCode.TOO_LARGE : ErrorCode.BAD_REQUEST;
      return reply.code(status).send({ error: { code, message: (err as Error).message } });
    }
    req.log.error({ err }, 'request failed');
    return reply.code(500).send({ error: { code: ErrorCode.INTERNAL, message: 'internal error' } });
  });

  await app.register(fastifyRateLimit, { global: false });
  await app.register(fastifyWebsocket, { options: { server: upgrades as never, maxPayload: 4096 } });
  const httpLimits = { ...DEFAULT_HTTP_LIMITS, ...opts.httpLimits };
  await app.register(roomRoutes, { limits: httpLimits });
  const replayCache = new ReplayCache();
  app.decorate('replayCache', replayCache);
  await app.register(teacherRoutes, { cache: replayCache });
  await app.register(opsRoutes, { metrics, metricsToken: opts.metricsToken ?? null, publicUrl: opts.publicUrl ?? null, interfaces: opts.interfaces ?? networkInterfaces });

  app.register(async (scope) => {
    scope.get<{ Params: { code: string } }>('/api/rooms/:code/feed', { websocket: true }, async (ws, req) => {
      ws.on('message', () => ws.send(JSON.stringify({ type: 'error', code: ErrorCode.BAD_REQUEST, message: 'the feed is read-only' })));
      let room;
      try {
        room = await rooms.get(req.params.code);
      } catch (e) {
        const err = e instanceof ClassroomError ? e.toJSON() : { code: ErrorCode.INTERNAL, message: 'internal error' };
        ws.send(JSON.stringify({ type: 'error', ...err }));
        ws.close(4404, err.code);
        return;
      }
      feed.add(room.code, ws);
      ws.send(JSON.stringify({ type: 'hello', room: room.view(), summary: room.summary(), scores: room.scores() }));
    });
  });

  const webRoot = opts.webRoot == null ? null : resolve(opts.webRoot);
  const hasWeb = webRoot !== null && existsSync(join(webRoot, 'index.html'));
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: webRoot,
      wildcard: false,
      preCompressed: true,
      setHeaders(reply, path) {
        if (path.includes('/_app/immutable/')) reply.header('cache-control', 'public, max-age=31536000, immutable');
      },
    });
  }
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    if (req.method === 'GET' && hasWeb && !path.startsWith('/api/') && !path.startsWith('/socket.io/')) {
      // The web app routes in the browser: every page is index.html.
      return reply.type('text/html').sendFile('index.html');
    }
    return sendError(reply, new ClassroomError(ErrorCode.NOT_FOUND, `no route ${req.method} ${path}`));
  });

  app.addHook('preClose', async () => {
    await rooms.close();
    feed.closeAll();
    io.local.disconnectSockets(true);
    io.engine.close();
  });
  app.addHook('onClose', async () => {
    // Whatever was asked to be stored is stored (or refused) before the database closes.
    await committer.idle();
    await store.close();
  });

  await rooms.recover();
  rooms.startSweeping();
  return app;
}

