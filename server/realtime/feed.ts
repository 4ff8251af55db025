// The plain, read-only WebSocket feed of a room (projectors, external tools): JSON messages
// {type:'hello'|'room'|'presence'|'summary'|'scores', ...}. Anything a client sends is answered with an error, and
// a client that keeps sending is closed; so is one that does not read what it is sent.
import type { WebSocket } from '@fastify/websocket';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { addressKey } from '../http/client-address.ts';
import { codeParams } from '../http/rooms.ts';
import { noMetrics, type Metrics } from '../lib/metrics.ts';
import { refusalsByKey } from '../ops/refusals.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/log.ts';
import { QueueWatch, type ConnectionLimits } from './guard.ts';
import { normalizedCode, type RoomLook } from './gate.ts';
import { TokenBucket } from '../lib/limiter.ts';

export type FeedMessage =
  | { type: 'hello'; [k: string]: unknown }
  | { type: 'room'; room: unknown }
  | { type: 'presence'; [k: string]: unknown }
  | { type: 'summary'; [k: string]: unknown }
  | { type: 'scores'; [k: string]: unknown }
  | { type: 'error'; code: string; message: string };

/** WebSocket close codes the feed uses besides the standard ones. */
export const FEED_CLOSE = { notFound: 4404, rateLimited: 4429, policy: 1008, internal: 1011 } as const;
/** How long a feed closed for sending waits for its close frame to go out before the socket is dropped. */
const FEED_CLOSE_GRACE_MS = 1000;

export class FeedHub {
  private byRoom = new Map<string, Set<WebSocket>>();

  private watches = new WeakMap<WebSocket, QueueWatch>();
  /** Counts and logs (first and every 100th per address) what the feed refuses. */
  readonly refused: (limit: string, address: string) => void;

  constructor(
    private readonly limits: Pick<
      ConnectionLimits,
      'maxQueuedBytes' | 'slowQueuedBytes' | 'slowReaderMs' | 'feedMessages'
    >,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly metrics: Metrics = noMetrics,
  ) {
    const refuse = refusalsByKey(metrics, log, 'rate limit refused a feed');
    this.refused = (limit, address) => refuse(address, limit);
  }

  /** Puts a new connection under the outbound caps (before anything is sent to it). */
  watch(ws: WebSocket): void {
    // terminate, not close: a close handshake would wait behind the unread bytes.
    const cut = (why: string, queued: number, limit: string) => {
      this.metrics.rateLimited(`feed:${limit}`);
      this.log.warn({ why, queued, limit: `feed:${limit}` }, 'feed connection cut');
      ws.terminate();
    };
    const out = new QueueWatch(this.limits, this.clock, () => ws.bufferedAmount, cut);
    this.watches.set(ws, out);
    ws.once('close', () => out.stop());
  }

  add(code: string, ws: WebSocket): void {
    const set = this.byRoom.get(code) ?? new Set<WebSocket>();
    this.byRoom.set(code, set);
    set.add(ws);
    ws.on('close', () => {
      set.delete(ws);
      if (set.size === 0 && this.byRoom.get(code) === set) this.byRoom.delete(code);
    });
  }

  /** Sends unless that would leave more than the cap waiting for this client, which is then cut. */
  sendTo(ws: WebSocket, text: string): boolean {
    // OPEN = 1
    if (ws.readyState !== 1) return false;
    const out = this.watches.get(ws);
    if (out && !out.check(text.length)) return false;
    ws.send(text);
    return true;
  }

  send(code: string, msg: FeedMessage): void {
    const set = this.byRoom.get(code);
    if (!set) return;
    const text = JSON.stringify(msg);
    let sent = 0;
    for (const ws of set) if (this.sendTo(ws, text)) sent++;
    this.metrics.sent(`feed:${msg.type}`, sent);
  }

  /** A budget for what one client sends: the feed is read-only, so any message is a mistake or abuse. */
  inbound(): TokenBucket {
    return new TokenBucket(this.limits.feedMessages, this.clock);
  }

  count(code?: string): number {
    if (code !== undefined) return this.byRoom.get(code)?.size ?? 0;
    let n = 0;
    for (const s of this.byRoom.values()) n += s.size;
    return n;
  }

  /** The room is gone (a deleted rehearsal): its feeds are closed, as for a room that never was. */
  closeRoom(code: string): void {
    for (const ws of this.byRoom.get(code) ?? []) ws.close(FEED_CLOSE.notFound, 'room deleted');
    this.byRoom.delete(code);
  }

  closeAll(): void {
    for (const set of this.byRoom.values()) for (const ws of set) ws.close(1001, 'server shutting down');
    this.byRoom.clear();
  }
}

const errorText = (code: ErrorCode, message: string) => JSON.stringify({ type: 'error', code, message });

/** The route: a room's feed by its code (a look-up the shared guess limit counts), then its messages. */
export async function feedRoutes(app: FastifyInstance): Promise<void> {
  // Refused before the upgrade, in the HTTP error shape: a page of another site, or an address that
  // already holds its share of connections.
  const admit = async (req: FastifyRequest, reply: FastifyReply) => {
    const refused = app.checkOrigin(req.raw);
    if (refused) return reply.code(403).send({ error: { code: ErrorCode.BAD_REQUEST, message: refused } });
    if (!app.addressBook.mayOpen(addressKey(req.ip))) {
      app.feed.refused('feed:connections', addressKey(req.ip));
      throw new ClassroomError(ErrorCode.RATE_LIMITED, 'too many connections from this address');
    }
  };

  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      '/api/rooms/:code/feed',
      { websocket: true, preValidation: admit, schema: { params: codeParams } },
      async (ws, req) => {
        const key = addressKey(req.ip);
        ws.once('close', app.addressBook.opened(key));
        const { feed } = app;
        feed.watch(ws);
        const inbound = feed.inbound();
        ws.on('message', () => {
          if (ws.readyState !== 1) return;
          if (inbound.take() && app.addressBook.packet(key))
            return void feed.sendTo(ws, errorText(ErrorCode.BAD_REQUEST, 'the feed is read-only'));
          feed.refused('feed:messages', key);
          // Past the budget: the close frame goes out, nothing more is read (a flood costs no more CPU),
          // and the socket is dropped a moment later rather than after ws's 30-second close handshake.
          ws.close(FEED_CLOSE.policy, 'the feed is read-only');
          ws.pause();
          setTimeout(() => ws.terminate(), FEED_CLOSE_GRACE_MS).unref();
        });

        let look: RoomLook;
        try {
          look = await app.guesses.attempt(req.ip, 'feed', async () => {
            // Cluster mode: this process receives the room's feed messages before the room is read.
            if (app.cluster) await app.cluster.followFeed(normalizedCode(req.params.code), ws);
            return app.gate.ask(req.params.code, { type: 'look' });
          });
        } catch (e) {
          const err =
            e instanceof ClassroomError ? e.toJSON() : { code: ErrorCode.INTERNAL, message: 'internal error' };
          if (!(e instanceof ClassroomError)) req.log.error({ err: e }, 'feed look-up failed');
          if (ws.readyState !== 1) return;
          ws.send(errorText(err.code, err.message));
          const closeCode =
            err.code === ErrorCode.RATE_LIMITED
              ? FEED_CLOSE.rateLimited
              : err.code === ErrorCode.INTERNAL
                ? FEED_CLOSE.internal
                : FEED_CLOSE.notFound;
          ws.close(closeCode, err.code);
          return;
        }
        // Gone (or cut) while the room was being read: nothing to add.
        if (ws.readyState !== 1) return;
        feed.add(look.code, ws);
        feed.sendTo(ws, JSON.stringify({ type: 'hello', room: look.room, summary: look.summary, scores: look.scores }));
      },
    );
}
