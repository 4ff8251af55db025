// Connection-level guards for socket.io, below the classroom protocol: caps on the bytes waiting to be
// sent to each connection (at once past a hard cap, after a while past a slow-reader cap), a budget for
// every inbound packet (per connection and per address), a cap on open connections per address, the
// per-socket event limit, and a per-address budget for requests answered with a history. A connection
// past a cap is cut at once — its buffers are freed, not drained — and a client that reconnects starts afresh.
import type { IncomingMessage } from 'node:http';
import type { Socket as NetSocket } from 'node:net';
import type { Socket as EngineSocket } from 'engine.io';
import { ErrorCode } from '../../shared/protocol/errors.ts';
import type { Logger } from '../rooms/room.ts';
import type { Clock, Timer } from '../rooms/clock.ts';
import { addressKey, clientAddress, type TrustFn } from '../http/client-address.ts';
import { noMetrics, type Metrics } from '../ops/metrics.ts';
import { refusalsByKey, refusalsOf } from '../ops/refusals.ts';
import { KeyedLimiter, TokenBucket, type BucketConfig } from './limits.ts';
import type { IoServer } from './socket.ts';

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
 * The outbound cap of one connection: `check(queued)` after anything is queued for it; cuts it past the
 * hard cap at once, and past the slow-reader cap if it is still there `slowReaderMs` later.
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

  /** False when the connection was cut. */
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

interface Watched {
  conn: EngineSocket;
  key: string;
  out: QueueWatch;
  /** Bytes in engine.io's write buffer, not yet handed to the transport. */
  pending: number;
  /** TCP sockets of this session's long-polling answers (data may still sit in them). */
  polls: Set<NetSocket>;
  packets: TokenBucket;
}

/** What the transport has taken but the network not yet: the websocket's buffer, or unsent polling answers. */
function transportBytes(w: Watched): number {
  const t = w.conn.transport as unknown as { name: string; socket?: { bufferedAmount?: number } };
  let n = t.name === 'websocket' ? (t.socket?.bufferedAmount ?? 0) : 0;
  for (const s of w.polls) n += s.writableLength;
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

export function guardSocketIo(io: IoServer, o: GuardOptions): void {
  const { limits, clock, addresses, log } = o;
  const metrics = o.metrics ?? noMetrics;
  const sessions = new Map<string, Watched>();

  /** A connection past a cap, cut: counted under `limit`, one line each (a connection is cut once). */
  const cut = (w: Watched, limit: string, why: string, extra: object = {}) => {
    if (w.conn.readyState === 'closed') return;
    metrics.rateLimited(`socket:${limit}`);
    log.warn({ address: w.key, limit: `socket:${limit}`, why, ...extra }, 'socket.io connection cut');
    // Close the network sockets first: their buffers go with them, instead of waiting to drain.
    const t = w.conn.transport as unknown as {
      name: string;
      socket?: { terminate?: () => void };
      req?: IncomingMessage;
    };
    if (t.name === 'websocket') t.socket?.terminate?.();
    t.req?.socket.destroy();
    for (const s of w.polls) s.destroy();
    // engine.io's close() would wait for the write buffer to drain, which a non-reader never does.
    (w.conn as unknown as { onClose(reason: string, description?: string): void }).onClose('forced close', why);
  };

  const refuseAddress = refusalsByKey(metrics, log, 'rate limit refused a socket');
  io.engine.opts.allowRequest = (req, callback) => {
    const key = addressKey(clientAddress(req, o.trust));
    if (!addresses.mayOpen(key)) {
      refuseAddress(key, 'socket:connections');
      return callback('too many connections from this address', false);
    }
    const refused = o.admit?.(req) ?? null;
    if (refused) return callback(refused, false);
    callback(null, true);
  };

  io.engine.on('connection', (conn: EngineSocket) => {
    const key = addressKey(clientAddress(conn.request, o.trust));
    const w: Watched = {
      conn,
      key,
      pending: 0,
      polls: new Set(),
      packets: new TokenBucket(limits.packets, clock),
      out: new QueueWatch(
        limits,
        clock,
        () => w.pending + transportBytes(w),
        (why, queued, limit) => cut(w, limit, why, { queued }),
      ),
    };
    // The session id, as long-polling requests carry it (?sid=).
    const sid = (conn as unknown as { id: string }).id;
    sessions.set(sid, w);
    const closed = addresses.opened(key);
    const engine = conn as unknown as { transport: { name: string; writable: boolean }; writeBuffer: unknown[] };
    conn.on('packetCreate', (p: { data?: unknown }) => {
      const bytes = packetBytes(p);
      // The common case, every socket at every minute: a websocket with nothing waiting takes the packet at once
      // (writable: its previous frames were handed to the network), so nothing queues and there is nothing to count.
      const t = engine.transport;
      if (t.writable && t.name === 'websocket' && engine.writeBuffer.length === 0 && bytes < limits.slowQueuedBytes)
        return;
      w.pending += bytes;
      w.out.check();
    });
    // A flush hands the whole write buffer to the transport.
    conn.on('flush', () => {
      w.pending = 0;
    });
    conn.on('packet', () => {
      if (!w.packets.take()) cut(w, 'packets', 'too many packets from this connection');
      else if (!addresses.packet(key)) cut(w, 'address-packets', 'too many packets from this address');
    });
    conn.once('close', () => {
      w.out.stop();
      sessions.delete(sid);
      closed();
      // Answers a client never read would otherwise stay in their sockets' buffers.
      for (const s of w.polls) if (s.writableLength > 0) s.destroy();
      w.polls.clear();
    });
  });

  // Every long-polling answer passes here: remember its socket, to count what waits in it.
  io.engine.on('headers', (_headers: unknown, req: IncomingMessage & { _query?: { sid?: string } }) => {
    const w = req.method === 'GET' && req._query?.sid ? sessions.get(req._query.sid) : undefined;
    if (!w || w.polls.has(req.socket)) return;
    const s = req.socket;
    w.polls.add(s);
    s.once('close', () => w.polls.delete(s));
    w.out.check();
  });

  // Every event counts against the socket's budget — unknown ones and those without an acknowledgement
  // too — and those answered with a history against the address's budget for them as well.
  const heavy = new KeyedLimiter(limits.heavyRequests, clock);
  io.use((socket, next) => {
    const events = new TokenBucket(limits.events, clock);
    const key =
      sessions.get((socket.conn as unknown as { id: string }).id)?.key ??
      addressKey(clientAddress(socket.request, o.trust));
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
