// Connection-level guards for socket.io, below the classroom protocol, on engine.io's documented events and
// properties only: caps on the bytes waiting to be sent to each connection (at once past a hard cap, after a while
// past a slow-reader cap), a budget for every inbound packet (per connection and per address), a cap on open
// connections per address, the per-socket event limit, and a per-address budget for requests answered with a
// history. A connection past a cap is cut at once — its network sockets destroyed, so that their buffers are freed,
// not drained — and a client that reconnects starts afresh.
import type { IncomingMessage } from 'node:http';
import type { Socket as NetSocket } from 'node:net';
import { ErrorCode } from '../../shared/protocol/errors.ts';
import { addressKey, clientAddress, type TrustFn } from '../http/client-address.ts';
import type { Clock, Timer } from '../lib/clock.ts';
import { type BucketConfig, KeyedLimiter, TokenBucket } from '../lib/limiter.ts';
import type { Logger } from '../lib/log.ts';
import { type Metrics, noMetrics } from '../lib/metrics.ts';
import { refusalsByKey, refusalsOf } from '../ops/refusals.ts';
import type { IoServer, IoSocket } from './channels.ts';

/** engine.io's socket under a socket.io socket: one connection, whatever its transport. */
type EngineSocket = IoSocket['conn'];

export interface ConnectionLimits {
  /** Bytes waiting to be sent to one connection (socket.io or feed) past which it is closed at once. */
  maxQueuedBytes: number;
  /** A connection with more than this waiting for `slowReaderMs` on end is closed: it reads too slowly. */
  slowQueuedBytes: number;
  slowReaderMs: number;
  /** Inbound packets of one connection (every engine.io packet, every feed message): past it, closed. */
  packets: BucketConfig;
  /** Inbound packets of all the connections of one address together: past it, the sender is closed. */
  addressPackets: BucketConfig;
  /** Connections open at once from one address (socket.io sessions and feeds together). */
  connectionsPerAddress: number;
  /** socket.io events per socket: past it, an event is answered RATE_LIMITED, or dropped if it takes no answer. */
  events: BucketConfig;
  /** Messages a feed client may send (each answered with an error) before it is closed. */
  feedMessages: BucketConfig;
  /**
   * Requests whose answer is large (a team's or the whole room's history, up to ~500 KB to build and
   * send) per address, all its sockets together: past it they are answered RATE_LIMITED.
   */
  heavyRequests: BucketConfig;
}

/** The events answered with a history: what `heavyRequests` counts. */
const HEAVY: ReadonlySet<string> = new Set(['teacher:join', 'teacher:team']);

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  // Four times the largest answer (a 30-team, 240-minute teacher:join: 524 KB), far below what hurts the
  // server; a reader on slow Wi-Fi may lag behind by half a megabyte, but not for ten seconds.
  maxQueuedBytes: 2 << 20,
  slowQueuedBytes: 512 << 10,
  slowReaderMs: 10_000,
  packets: { capacity: 200, refillPerSecond: 50 },
  // A class of 120 behind one school NAT sends a few packets a second; bursts of a control each stay far below.
  addressPackets: { capacity: 2000, refillPerSecond: 500 },
  connectionsPerAddress: 250,
  events: { capacity: 30, refillPerSecond: 10 },
  feedMessages: { capacity: 5, refillPerSecond: 1 },
  // A teacher opening every team's desk of a 30-team room in a row; a few a second after that.
  heavyRequests: { capacity: 40, refillPerSecond: 4 },
};

/**
 * The outbound cap of one connection: `check()` after anything is queued for it; cuts it past the hard cap at
 * once, and past the slow-reader cap if it is still there `slowReaderMs` later.
 */
export class QueueWatch {
  private timer: Timer | null = null;
  constructor(
    private readonly limits: Pick<ConnectionLimits, 'maxQueuedBytes' | 'slowQueuedBytes' | 'slowReaderMs'>,
    private readonly clock: Clock,
    private readonly queued: () => number,
    /** `limit` names the cap for the metrics: queued-bytes (the hard cap) or slow-reader. */
    private readonly cut: (why: string, queued: number, limit: 'queued-bytes' | 'slow-reader') => void,
  ) {}

  /** False when the connection was cut. `extra`: bytes about to be queued. */
  check(extra = 0): boolean {
    const q = this.queued() + extra;
    if (q > this.limits.maxQueuedBytes) {
      this.stop();
      this.cut('too many bytes waiting to be sent', q, 'queued-bytes');
      return false;
    }
    if (q > this.limits.slowQueuedBytes) {
      this.timer ??= this.clock.setTimeout(() => {
        this.timer = null;
        const now = this.queued();
        if (now > this.limits.slowQueuedBytes) this.cut('reads too slowly', now, 'slow-reader');
      }, this.limits.slowReaderMs);
    }
    return true;
  }

  stop(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}

/** Open connections and inbound packets per address, shared by socket.io and the feed. */
export class AddressBook {
  private open = new Map<string, number>();
  private readonly packets: KeyedLimiter;
  constructor(
    private readonly limits: ConnectionLimits,
    clock: Clock,
  ) {
    this.packets = new KeyedLimiter(limits.addressPackets, clock);
  }
  /** Whether one more connection from this address may open. */
  mayOpen(key: string): boolean {
    return (this.open.get(key) ?? 0) < this.limits.connectionsPerAddress;
  }
  /** Counts a connection as open; the returned function counts it closed (once). */
  opened(key: string): () => void {
    this.open.set(key, (this.open.get(key) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = (this.open.get(key) ?? 1) - 1;
      if (n > 0) this.open.set(key, n);
      else this.open.delete(key);
    };
  }
  /** Takes one inbound packet from the address's budget. */
  packet(key: string): boolean {
    return this.packets.take(key);
  }
  connections(key?: string): number {
    if (key !== undefined) return this.open.get(key) ?? 0;
    let n = 0;
    for (const v of this.open.values()) n += v;
    return n;
  }
}

/** Bytes of one engine.io packet's payload (strings count a byte a character: what they hold in memory, near enough). */
function packetBytes(p: { data?: unknown }): number {
  const d = p.data;
  if (typeof d === 'string') return d.length;
  if (d && typeof (d as ArrayBufferLike).byteLength === 'number') return (d as ArrayBufferLike).byteLength;
  return 1;
}

/** The session id a request of an existing engine.io session carries (`?sid=`), or null for a first request. */
function sessionOf(req: IncomingMessage): string | null {
  const q = req.url?.indexOf('?') ?? -1;
  return q < 0 ? null : new URLSearchParams(req.url?.slice(q + 1)).get('sid');
}

interface Watched {
  conn: EngineSocket;
  key: string;
  out: QueueWatch;
  /** Bytes in engine.io's write buffer: created, not yet handed to the transport (its `flush` event). */
  buffered: number;
  /** The session's TCP sockets (its websocket's, its long-polling answers'): what they hold is not read yet. */
  sockets: Set<NetSocket>;
  /** Its websocket's TCP socket, once it has one. */
  websocket: NetSocket | null;
  packets: TokenBucket;
}

/** Bytes waiting for one connection: in engine.io's buffer, and in its network sockets not yet taken by the kernel. */
function queuedBytes(w: Watched): number {
  let n = w.buffered;
  for (const s of w.sockets) n += s.writableLength;
  return n;
}

export interface GuardOptions {
  limits: ConnectionLimits;
  clock: Clock;
  trust: TrustFn;
  addresses: AddressBook;
  log: Logger;
  metrics?: Metrics;
  /** Further checks of a new session's first request (the Origin check): an error message refuses it. */
  admit?: (req: IncomingMessage) => string | null;
}

/** The socket.io server's `allowRequest` option: connections per address, then `admit` (the Origin check). */
export function allowRequest(o: GuardOptions) {
  const refuse = refusalsByKey(o.metrics ?? noMetrics, o.log, 'rate limit refused a socket');
  return (req: IncomingMessage, callback: (err: string | null | undefined, success: boolean) => void): void => {
    const key = addressKey(clientAddress(req, o.trust));
    if (!o.addresses.mayOpen(key)) {
      refuse(key, 'socket:connections');
      callback('too many connections from this address', false);
      return;
    }
    const refused = o.admit?.(req) ?? null;
    if (refused) callback(refused, false);
    else callback(null, true);
  };
}

export function guardSocketIo(io: IoServer, o: GuardOptions): void {
  const { limits, clock, addresses, log } = o;
  const metrics = o.metrics ?? noMetrics;
  /** Sessions by id, for the requests that name theirs (`?sid=`). */
  const sessions = new Map<string, Watched>();
  /** Sessions by their first request, until their id is known from a later request. */
  const byRequest = new WeakMap<IncomingMessage, Watched>();

  /** A connection past a cap, cut: counted under `limit`, one line each (a connection is cut once). */
  const cut = (w: Watched, limit: string, why: string, extra: object = {}) => {
    if (w.conn.readyState === 'closed') return;
    metrics.rateLimited(`socket:${limit}`);
    log.warn({ address: w.key, limit: `socket:${limit}`, why, ...extra }, 'socket.io connection cut');
    // The network sockets first — the websocket's, and any still holding an answer — so that their buffers go with
    // them instead of waiting to drain (a keep-alive socket that holds nothing may carry the client's next request).
    for (const s of w.sockets) if (s === w.websocket || s.writableLength > 0) s.destroy();
    // Discarding the transport: engine.io's close() would otherwise wait for its write buffer to drain.
    w.conn.close(true);
  };

  /**
   * The TCP socket of a request of the session, if its answer may wait in it: a long-polling answer (GET) or the
   * websocket (an upgrade). Counted while it holds bytes; destroyed if the session is cut.
   */
  const track = (w: Watched, req: IncomingMessage) => {
    const s = req.socket;
    const upgrade = req.headers.upgrade?.toLowerCase() === 'websocket';
    if (upgrade) w.websocket = s;
    if ((!upgrade && req.method !== 'GET') || w.sockets.has(s) || s.destroyed) return;
    w.sockets.add(s);
    s.once('close', () => w.sockets.delete(s));
  };

  io.engine.on('connection', (conn: EngineSocket) => {
    const key = addressKey(clientAddress(conn.request, o.trust));
    const w: Watched = {
      conn,
      key,
      buffered: 0,
      sockets: new Set(),
      websocket: null,
      packets: new TokenBucket(limits.packets, clock),
      out: new QueueWatch(
        limits,
        clock,
        () => queuedBytes(w),
        (why, queued, limit) => cut(w, limit, why, { queued }),
      ),
    };
    const sid = conn.transport.sid;
    if (sid) sessions.set(sid, w);
    byRequest.set(conn.request, w);
    track(w, conn.request);
    const closed = addresses.opened(key);
    conn.on('packetCreate', (p: { data?: unknown }) => {
      w.buffered += packetBytes(p);
      w.out.check();
    });
    // The write buffer handed to the transport: what it holds from now on is in the network sockets.
    conn.on('flush', () => {
      w.buffered = 0;
    });
    conn.on('packet', () => {
      if (!w.packets.take()) cut(w, 'packets', 'too many packets from this connection');
      else if (!addresses.packet(key)) cut(w, 'address-packets', 'too many packets from this address');
    });
    conn.once('close', () => {
      w.out.stop();
      if (sid) sessions.delete(sid);
      closed();
      // Answers a client never read would otherwise stay in their sockets' buffers.
      for (const s of w.sockets) if (s.writableLength > 0) s.destroy();
      w.sockets.clear();
    });
  });

  // Every later request of a session passes here (each long-polling answer, the websocket's upgrade): its TCP
  // socket is counted with the session.
  io.engine.on('headers', (_headers: unknown, req: IncomingMessage) => {
    const sid = sessionOf(req);
    const w = sid ? sessions.get(sid) : byRequest.get(req);
    if (!w) return;
    track(w, req);
    w.out.check();
  });

  // Every event counts against the socket's budget — unknown ones and those without an acknowledgement
  // too — and those answered with a history against the address's budget for them as well.
  const heavy = new KeyedLimiter(limits.heavyRequests, clock);
  io.use((socket, next) => {
    const events = new TokenBucket(limits.events, clock);
    const key = addressKey(clientAddress(socket.request, o.trust));
    const refused = refusalsOf(metrics, log, 'rate limit refused a socket', () => ({
      ip: key,
      room: socket.data.code,
    }));
    socket.use((packet, nextEvent) => {
      if (!events.take()) refused('socket:events');
      else if (HEAVY.has(packet[0]) && !heavy.take(key)) refused('socket:heavy');
      else return nextEvent();
      const ack = packet[packet.length - 1];
      if (typeof ack === 'function')
        ack({ ok: false, error: { code: ErrorCode.RATE_LIMITED, message: 'too many messages: slow down' } });
      // Without an acknowledgement the event is dropped unanswered: answering would cost the server more.
    });
    next();
  });
}
