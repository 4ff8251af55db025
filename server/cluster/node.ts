// One Opsroom process in a cluster (DATABASE_URL + REDIS_URL): its Redis connections, the socket.io adapter, the
// room leases, the requests between processes, the feed across processes — and its watch. Every `scanMs` (a third
// of a lease's life) it says it is alive, and takes every room whose round is running and whose lease nobody
// holds: the owner died (or stopped and released it), and the round goes on here. When another process stops
// saying it is alive, the rooms held here count their connected people again (that process's sockets are gone).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Store } from '../db/store.ts';
import { ch } from '../realtime/channels.ts';
import type { FeedHub } from '../realtime/feed.ts';
import type { AnswerDeps } from '../realtime/gate.ts';
import type { IoServer } from '../realtime/channels.ts';
import { realClock, type Clock, type Timer } from '../lib/clock.ts';
import type { RoomManager } from '../rooms/manager.ts';
import { type HeldRoom, NotOwnerError } from '../rooms/ownership.ts';
import type { Logger } from '../lib/log.ts';
import { NoticeCode } from '../../shared/protocol/errors.ts';
import {
  createRedisAdapter,
  isRedisUnreachable,
  openRedis,
  type RedisAdapter,
  RedisLink,
  unreachableRedis,
} from './adapter.ts';
import { ClusterFeed } from './feed.ts';
import { ClusterGate } from './gate.ts';
import { DEFAULT_LEASE_TTL_MS, RoomLeases } from './lease.ts';
import { LeaseOwnership } from './ownership.ts';
import { RpcBus } from './rpc.ts';

export interface ClusterOptions {
  /** postgres://… — the shared database. */
  databaseUrl: string;
  /** redis://… — leases, requests between processes, broadcasts. */
  redisUrl: string;
  /** This process's name in the cluster, unique among the live ones (default: host, pid and a random suffix). */
  node?: string;
  /** A room lease's time to live (default 10 s): a dead owner's rooms move within about this long. */
  leaseTtlMs?: number;
  /** How often this process says it is alive and looks for rooms nobody holds (default: a third of the lease's life). */
  scanMs?: number;
  /** Clock of leases, scans and fence times (default: real time, also when rooms run on a manual clock in tests). */
  clock?: Clock;
  /** How long a forwarded request waits for its answer (default 5 s). */
  rpcTimeoutMs?: number;
  /** Connections to PostgreSQL in this process's pool (default 10). */
  pgConnections?: number;
}

const PREFIX = 'opsroom';
/** Most rooms taken at once by one scan. */
const ADOPT_CONCURRENCY = 8;

// KEYS: the nodes' sorted set. ARGV: node, liveness window (ms). Scores are Redis's own time, so the processes' clocks do not matter.
const HEARTBEAT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 86400000)
return redis.call('ZRANGEBYSCORE', KEYS[1], now - tonumber(ARGV[2]), '+inf')`;

export function defaultNodeName(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`.replace(/#/g, '-');
}

/** A process's part of the cluster. `connect()`, then the app wires its pieces, then `start()`. */
export class Cluster {
  readonly ownership: LeaseOwnership;
  readonly gate: ClusterGate | null = null;
  private feed: ClusterFeed | null = null;
  private rpc: RpcBus | null = null;
  private timer: Timer | null = null;
  private scanning: Promise<string[]> | null = null;
  private live = new Set<string>();
  private manager: RoomManager | null = null;
  private io: IoServer | null = null;
  private stopped = false;
  /**
   * Until when this process takes no room nobody holds (epoch ms, the cluster's clock): a lease's life after Redis
   * came back, so that the processes that held rooms through the outage take their own back first.
   */
  private quietUntil = 0;
  /** Rejections nobody handled that are Redis's connection going (ioredis's own resubscriptions): counted, not fatal. */
  private readonly onUnhandled = (reason: unknown) => {
    if (!isRedisUnreachable(reason)) throw reason;
    if (this.link.up) this.log.warn({ err: reason }, 'a Redis command failed as its connection went');
  };

  private constructor(
    readonly node: string,
    readonly opts: ClusterOptions,
    readonly adapter: RedisAdapter,
    /** Commands (leases, publishing). */
    readonly redis: Redis,
    /** Subscriptions of this process's inbox and followed feeds. */
    private readonly sub: Redis,
    readonly leases: RoomLeases,
    readonly store: Store,
    private readonly clock: Clock,
    private readonly log: Logger,
    /** Whether this process reaches Redis now. */
    readonly link: RedisLink,
  ) {
    this.ownership = new LeaseOwnership({ leases, store, clock, recount: (room) => this.recount(room) });
    link.onChange((up) => void this.reached(up));
    process.on('unhandledRejection', this.onUnhandled);
  }

  static async connect(opts: ClusterOptions, store: Store, log: Logger): Promise<Cluster> {
    const node = opts.node ?? defaultNodeName();
    const clock = opts.clock ?? realClock;
    const link = new RedisLink(log);
    const adapter = await createRedisAdapter(opts.redisUrl, { channelPrefix: PREFIX, link });
    let redis: Redis | null = null;
    let sub: Redis | null = null;
    try {
      redis = await openRedis(opts.redisUrl, link, 'commands');
      sub = await openRedis(opts.redisUrl, link, 'subscriptions');
    } catch (e) {
      link.close();
      await adapter.close();
      redis?.disconnect();
      throw e;
    }
    redis.defineCommand('opsroomHeartbeat', { numberOfKeys: 1, lua: HEARTBEAT });
    const leases = new RoomLeases(redis, {
      node,
      ttlMs: opts.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
      clock,
      prefix: PREFIX,
    });
    return new Cluster(node, opts, adapter, redis, sub, leases, store, clock, log, link);
  }

  /**
   * Redis went or came back. Gone: no room held here can be sure it is still this process's, nor reach the
   * students of the other processes — each holds its clock and its inputs — and every page connected here is told.
   * Back: each room renews its lease (or takes it again, if the room is still its own) and goes on; the pages are
   * told; rooms nobody holds are left a lease's life to their owners before this process takes any.
   */
  private async reached(up: boolean): Promise<void> {
    if (this.stopped) return;
    if (!up) {
      this.ownership.lapseAll();
      this.io?.local.emit('notice', {
        code: NoticeCode.CLUSTER_UNAVAILABLE,
        message: 'the servers of this class cannot reach each other: the round waits and goes on by itself',
      });
      return;
    }
    this.quietUntil = this.clock.now() + this.leases.ttlMs;
    await this.ownership.confirmAll();
    this.io?.local.emit('notice', { code: NoticeCode.RESUMED, message: 'the servers reach each other again' });
  }

  /** The gate of the transports: asks answered here or forwarded to the room's owner. */
  gateFor(manager: RoomManager, join: AnswerDeps['join']): ClusterGate {
    const gate = new ClusterGate({
      manager,
      leases: this.leases,
      join,
      node: this.node,
      rpcTimeoutMs: this.opts.rpcTimeoutMs,
    });
    (this as { gate: ClusterGate | null }).gate = gate;
    return gate;
  }

  /** Feed messages through Redis, to the feed clients of every process. */
  feedFor(hub: FeedHub): ClusterFeed {
    this.feed = new ClusterFeed(hub, this.redis, this.sub, PREFIX);
    return this.feed;
  }

  /** A feed client of the room connected here: resolves once this process receives the room's feed messages. */
  async followFeed(code: string, ws: { once(event: 'close', fn: () => void): unknown }): Promise<void> {
    if (!this.feed) throw new Error('the cluster feed is made before a feed client connects');
    await this.feed.follow(code, ws).catch(unreachableRedis);
  }

  /** Starts answering other processes, takes the rooms nobody holds, and keeps watch. */
  async start(manager: RoomManager, io: IoServer): Promise<void> {
    const gate = this.gate;
    if (!gate) throw new Error('the cluster gate is made before start()');
    this.manager = manager;
    this.io = io;
    this.rpc = new RpcBus(this.redis, this.sub, this.node, (body) => gate.serve(body), {
      prefix: PREFIX,
      log: this.log,
    });
    gate.connect(this.rpc);
    await this.rpc.start();
    await this.watch();
    this.schedule();
  }

  private get scanMs(): number {
    return this.opts.scanMs ?? Math.floor(this.leases.ttlMs / 3);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimeout(() => {
      void this.watch().finally(() => this.schedule());
    }, this.scanMs);
  }

  /** One round of the watch: alive, departed processes, rooms nobody holds. Never rejects. */
  private async watch(): Promise<void> {
    // Redis out of reach is said once, by the link: nothing to look at until it is back.
    if (!this.link.up) return;
    try {
      await this.heartbeat();
      await this.scan();
    } catch (err) {
      if (!isRedisUnreachable(err)) this.log.warn({ err }, 'cluster watch failed; tried again at the next one');
    }
  }

  private async heartbeat(): Promise<void> {
    const live = new Set(
      (await (
        this.redis as Redis & { opsroomHeartbeat(key: string, node: string, windowMs: number): Promise<string[]> }
      ).opsroomHeartbeat(`${PREFIX}:nodes`, this.node, this.leases.ttlMs)) ?? [],
    );
    // Right after Redis came back, the others' heartbeats are not in yet (Redis may have restarted empty): nobody left.
    const departed =
      this.clock.now() < this.quietUntil ? [] : [...this.live].filter((n) => !live.has(n) && n !== this.node);
    this.live = this.clock.now() < this.quietUntil ? new Set([...this.live, ...live]) : live;
    if (departed.length === 0 || !this.manager) return;
    this.log.warn({ departed }, 'processes stopped answering: counting who is connected again');
    await Promise.all(this.manager.all().map((room) => this.recount(room)));
  }

  /** Takes every room whose round runs and whose lease nobody holds; returns their codes. */
  scan(): Promise<string[]> {
    this.scanning ??= this.takeOrphans().finally(() => (this.scanning = null));
    return this.scanning;
  }

  private async takeOrphans(): Promise<string[]> {
    const manager = this.manager;
    if (!manager || this.stopped || !this.link.up || this.clock.now() < this.quietUntil) return [];
    const rows = (await this.store.roomsInPlay()).filter((r) => !manager.held(r.code));
    const holders = await this.leases.holders(rows.map((r) => r.code));
    const free = rows.filter((_r, i) => holders[i] === null);
    const taken: string[] = [];
    for (let i = 0; i < free.length; i += ADOPT_CONCURRENCY) {
      await Promise.all(
        free.slice(i, i + ADOPT_CONCURRENCY).map(async (row) => {
          try {
            await manager.adopt(row);
            taken.push(row.code);
          } catch (err) {
            // Another process was quicker: fine. Anything else is tried again at the next scan.
            if (!(err instanceof NotOwnerError))
              this.log.error({ err, room: row.code }, 'could not take a room nobody holds');
          }
        }),
      );
    }
    return taken;
  }

  /** Who is connected to a room, counted from the sockets of every process. */
  private async recount(room: HeldRoom): Promise<void> {
    if (!this.io) return;
    try {
      const sockets = await this.io.in(ch.all(room.code)).fetchSockets();
      const students: number[] = [];
      let watchers = 0;
      for (const s of sockets) {
        if (s.data.code !== room.code) continue;
        if (s.data.role === 'student' && s.data.playerId !== undefined) students.push(s.data.playerId);
        else if (s.data.role === 'teacher' || s.data.role === 'observer') watchers++;
      }
      room.recount(students, watchers);
    } catch (err) {
      this.log.warn({ err, room: room.code }, 'could not count who is connected to the room');
    }
  }

  /**
   * The process begins to stop: it no longer says it is alive nor takes rooms nobody holds — those its own rooms'
   * leases free as they close are for the processes that go on. Resolves once a look under way has finished.
   */
  async halt(): Promise<void> {
    this.stopped = true;
    this.clock.clearTimeout(this.timer);
    await this.scanning?.catch(() => undefined);
  }

  /** After the rooms were closed (and their leases released): stops watching and closes the connections. */
  async stop(): Promise<void> {
    await this.halt();
    await this.rpc?.stop();
    this.feed?.stop();
    await this.redis.zrem(`${PREFIX}:nodes`, this.node).catch(() => 0);
    this.link.close();
    await Promise.allSettled([this.redis.quit(), this.sub.quit(), this.adapter.close()]);
    process.off('unhandledRejection', this.onUnhandled);
  }
}
