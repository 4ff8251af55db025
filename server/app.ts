// buildApp(): the whole Opsroom server as one Fastify app — HTTP API, socket.io classroom protocol,
// the plain WebSocket feed, the web build, and the database. main.ts only listens and shuts down.
import fastifyHelmet from '@fastify/helmet';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { randomInt } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { networkInterfaces } from 'node:os';
import { join, resolve } from 'node:path';
import { Server } from 'socket.io';
import { ClassroomError, ErrorCode } from '../shared/protocol/errors.ts';
import type { Cluster, ClusterOptions } from './cluster/node.ts';
import { Committer } from './db/commit.ts';
import { DatabaseHealth } from './db/health.ts';
import { openPostgres, openSqlite } from './db/open.ts';
import type { Store } from './db/store.ts';
import { addressKey, type TrustFn, trustNobody } from './http/client-address.ts';
import { clientErrorHandler, errorHandler, sendError } from './http/errors.ts';
import { BARE_HEADERS, helmetOptions } from './http/headers.ts';
import { originCheck } from './http/origins.ts';
import { DEFAULT_HTTP_LIMITS, type HttpLimits, roomRoutes } from './http/rooms.ts';
import { scenarioRoutes } from './http/scenarios.ts';
import { teacherRoutes } from './http/teacher.ts';
import { classDataRoutes } from './http/classdata.ts';
import { type Clock, realClock } from './lib/clock.ts';
import type { BucketConfig } from './lib/limiter.ts';
import type { Interfaces } from './net/addresses.ts';
import { RequestLog } from './ops/log.ts';
import { PromMetrics } from './ops/prometheus.ts';
import { opsRoutes } from './ops/routes.ts';
import type { IoServer } from './realtime/channels.ts';
import { FeedHub, feedRoutes } from './realtime/feed.ts';
import { LocalGate, type RoomGate } from './realtime/gate.ts';
import {
  AddressBook,
  allowRequest,
  type ConnectionLimits,
  DEFAULT_CONNECTION_LIMITS,
  guardSocketIo,
} from './realtime/guard.ts';
import { CodeGuesses, DEFAULT_GUESS_LIMIT } from './realtime/guesses.ts';
import { attachProtocol, DEFAULT_REALTIME_LIMITS, type RealtimeLimits } from './realtime/inbound.ts';
import { socketOutput } from './realtime/outbound.ts';
import { ReplayCache } from './replay/cache.ts';
import { Coach, type CoachLimits, type CoachRunner, DEFAULT_COACH_LIMITS, WorkerRunner } from './replay/coach.ts';
import { DEFAULT_EXPORT_LIMITS, type ExportLimits, Exports } from './replay/exports.ts';
import { DEFAULT_ROOM_LIMITS, type RoomLimits } from './rooms/creation.ts';
import { RoomManager } from './rooms/manager.ts';

export interface AppOptions {
  /** SQLite file, or ':memory:' (not used in cluster mode). */
  databasePath: string;
  /** Cluster mode: PostgreSQL and Redis shared with other Opsroom processes (server/cluster/). */
  cluster?: ClusterOptions;
  clock?: Clock;
  /** Folder of the web build (adapter-static output); null serves no web app. */
  webRoot?: string | null;
  logger?: FastifyServerOptions['logger'];
  httpLimits?: Partial<HttpLimits>;
  realtimeLimits?: Partial<RealtimeLimits>;
  /** Room creation (new rooms and what-ifs), the live-room quota, how long anonymous viewers see a finished room. */
  roomLimits?: Partial<RoomLimits>;
  exportLimits?: Partial<ExportLimits>;
  /** Unknown room codes per address, on every path (HTTP look-up, feed, socket.io joins). */
  guessLimit?: Partial<BucketConfig>;
  /** Caps per connection and per address: bytes waiting to be sent, inbound packets, open connections. */
  connectionLimits?: Partial<ConnectionLimits>;
  /** ALLOWED_ORIGINS: origins besides the server's own whose pages may open WebSockets to it. */
  allowedOrigins?: string[];
  /** TRUST_PROXY: which reverse proxies to believe about the client's address; none by default. */
  trustProxy?: TrustFn;
  /** PUBLIC_URL: where students join when the server is behind a proxy or a name. */
  publicUrl?: string | null;
  /** METRICS_TOKEN: /metrics then needs it as a Bearer token; without, /metrics answers this machine only. */
  metricsToken?: string | null;
  /** The machine's network interfaces (os.networkInterfaces), read on each /api/info. */
  interfaces?: () => Interfaces;
  /** Where the hindsight coach searches (its own worker thread by default) and how many teams may wait. */
  coachRunner?: CoachRunner;
  coachLimits?: Partial<CoachLimits>;
}

declare module 'fastify' {
  interface FastifyInstance {
    rooms: RoomManager;
    /** How transports reach a room (here, or at its owner in cluster mode). */
    gate: RoomGate;
    store: Store;
    io: IoServer;
    feed: FeedHub;
    replayCache: ReplayCache;
    exports: Exports;
    dbHealth: DatabaseHealth;
    guesses: CodeGuesses;
    addressBook: AddressBook;
    checkOrigin: (req: IncomingMessage) => string | null;
    /** Cluster mode's part of this process, or null (one process on SQLite). */
    cluster: Cluster | null;
  }
}

/** Largest socket.io message accepted: every classroom message is far smaller. */
export const MAX_SOCKET_MESSAGE = 8 * 1024;

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const trust = opts.trustProxy ?? trustNobody;
  const metrics = new PromMetrics();
  const handleError = errorHandler(metrics);
  const app = Fastify({
    logger: opts.logger ?? false,
    // One line per request at a level that fits it (ops/log.ts).
    logController: new RequestLog(),
    bodyLimit: 16 * 1024,
    forceCloseConnections: true,
    // req.ip is the client's address behind the proxies TRUST_PROXY names (socket.io uses the same rule).
    trustProxy: trust,
    // Fastify's own errors (a malformed URL, a parameter too long, an unparsable request) in our shape too.
    frameworkErrors: handleError,
    clientErrorHandler,
  });
  const clock = opts.clock ?? realClock;
  const store: Store = opts.cluster
    ? await openPostgres(opts.cluster.databaseUrl, { maxConnections: opts.cluster.pgConnections })
    : openSqlite(opts.databasePath);
  let cluster: Cluster | null = null;
  try {
    // Cluster mode's modules (Redis, the adapter) are loaded only when it is asked for: one process starts sooner.
    if (opts.cluster) cluster = await (await import('./cluster/node.ts')).Cluster.connect(opts.cluster, store, app.log);
  } catch (e) {
    await store.close();
    throw e;
  }
  const dbHealth = new DatabaseHealth(store, clock);
  if (!dbHealth.intact)
    app.log.error(
      { problems: store.integrity },
      'the database failed its quick check: rounds on damaged pages may not load',
    );

  // Per-address and per-connection guards, shared by HTTP, the feed and socket.io (docs/security.md).
  const connectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...opts.connectionLimits };
  const addresses = new AddressBook(connectionLimits, clock);
  const guesses = new CodeGuesses({ ...DEFAULT_GUESS_LIMIT, ...opts.guessLimit }, clock, metrics, app.log);
  const checkOrigin = originCheck(opts.allowedOrigins ?? [], trust, opts.publicUrl ?? null);
  app.decorate('checkOrigin', checkOrigin);
  const guard = { limits: connectionLimits, clock, trust, addresses, log: app.log, metrics, admit: checkOrigin };

  // socket.io handles its own upgrades; @fastify/websocket gets only the others (it would answer them all).
  const io: IoServer = new Server(app.server, {
    serveClient: false,
    destroyUpgrade: false,
    maxHttpBufferSize: MAX_SOCKET_MESSAGE,
    allowRequest: allowRequest(guard),
    ...(cluster ? { adapter: cluster.adapter.adapter } : {}),
  });
  const upgrades = new EventEmitter();
  app.server.on('upgrade', (req, socket, head) => {
    if (!req.url?.startsWith('/socket.io/')) upgrades.emit('upgrade', req, socket, head);
  });
  guardSocketIo(io, guard);
  // socket.io's own answers (long-polling, handshakes) go around Fastify, helmet's headers with it.
  const withHeaders = (headers: Record<string, string>) => Object.assign(headers, BARE_HEADERS);
  io.engine.on('initial_headers', withHeaders);
  io.engine.on('headers', withHeaders);

  const feed = new FeedHub(connectionLimits, clock, app.log, metrics);
  const committer = new Committer(store, metrics);
  const feedOut = cluster ? cluster.feedFor(feed) : feed;
  const rooms = new RoomManager(
    {
      store,
      committer,
      out: socketOutput(io, feedOut, { cluster: cluster !== null, metrics }),
      clock,
      log: app.log,
      metrics,
      drawSeed: () => randomInt(0, 2 ** 32),
    },
    { ...DEFAULT_ROOM_LIMITS, ...opts.roomLimits },
    cluster?.ownership ?? null,
  );
  metrics.watch({
    roomStates: () => rooms.all().map((r) => r.round.state),
    socketRoles: () => [...io.sockets.sockets.values()].map((s) => s.data.role),
    feeds: () => feed.count(),
  });
  app.decorate('rooms', rooms);
  app.decorate('store', store);
  app.decorate('dbHealth', dbHealth);
  app.decorate('io', io);
  app.decorate('feed', feed);
  app.decorate('guesses', guesses);
  app.decorate('addressBook', addresses);
  const joinSocket = (socketId: string, channels: string[]) => io.in(socketId).socketsJoin(channels);
  const gate: RoomGate = cluster ? cluster.gateFor(rooms, joinSocket) : new LocalGate(rooms, joinSocket);
  app.decorate('gate', gate);
  app.decorate('cluster', cluster);
  attachProtocol(
    io,
    gate,
    clock,
    app.log,
    { ...DEFAULT_REALTIME_LIMITS, ...opts.realtimeLimits },
    { guesses, trust },
    metrics,
  );

  app.setErrorHandler(handleError);
  // Route schemas are zod schemas (shared/protocol/schemas.ts and the routes' own).
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const webRoot = opts.webRoot == null ? null : resolve(opts.webRoot);
  const hasWeb = webRoot !== null && existsSync(join(webRoot, 'index.html'));
  await app.register(fastifyHelmet, helmetOptions(hasWeb ? webRoot : null));

  // A page of another site — or of a name pointed at this server (DNS rebinding) — sends no request here either.
  // (An upgrade to the feed is checked by the feed's own route, which refuses it before the upgrade.)
  app.addHook('onRequest', async (req) => {
    if (req.headers.origin === undefined || req.headers.upgrade !== undefined) return;
    const refused = checkOrigin(req.raw);
    if (refused) throw new ClassroomError(ErrorCode.NOT_ALLOWED, refused);
  });
  await app.register(fastifyRateLimit, { global: false, keyGenerator: (req) => addressKey(req.ip) });
  await app.register(fastifyWebsocket, { options: { server: upgrades as never, maxPayload: 4096 } });
  const httpLimits = { ...DEFAULT_HTTP_LIMITS, ...opts.httpLimits };
  await app.register(roomRoutes, { limits: httpLimits });
  await app.register(scenarioRoutes, { limits: httpLimits });
  const replayCache = new ReplayCache();
  app.decorate('replayCache', replayCache);
  app.decorate('exports', new Exports(store, { ...DEFAULT_EXPORT_LIMITS, ...opts.exportLimits }));
  const coach = new Coach(opts.coachRunner ?? new WorkerRunner(), { ...DEFAULT_COACH_LIMITS, ...opts.coachLimits });
  await app.register(teacherRoutes, { cache: replayCache, limits: httpLimits, coach });
  await app.register(classDataRoutes, { limits: httpLimits, clock });
  await app.register(opsRoutes, {
    metrics,
    metricsToken: opts.metricsToken ?? null,
    publicUrl: opts.publicUrl ?? null,
    interfaces: opts.interfaces ?? networkInterfaces,
  });
  await app.register(feedRoutes);

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
    // Nothing is taken from now on; then what is held is closed (cluster mode: its leases released for the others).
    await cluster?.halt();
    await rooms.close();
    feed.closeAll();
    io.local.disconnectSockets(true);
    io.engine.close();
  });
  app.addHook('onClose', async () => {
    await coach.close();
    // Whatever was asked to be stored is stored (or refused) before the database closes.
    await committer.idle();
    // Cluster mode: the rooms' leases were released when they closed; then the Redis connections go.
    await cluster?.stop();
    await store.close();
  });

  // One process resumes every interrupted round paused; a cluster process takes the running rounds nobody holds.
  try {
    if (cluster) await cluster.start(rooms, io);
    else await rooms.recover();
  } catch (err) {
    if (cluster) throw err;
    // Not even the list of rounds to recover could be read: serve what can be served, health says why.
    app.log.error({ err }, 'recovery of interrupted rounds failed');
  }
  rooms.startSweeping();
  return app;
}
