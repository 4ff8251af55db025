// How a socket, the feed or an HTTP request reaches its room in cluster mode: the asks of server/realtime/gate.ts,
// answered here when this process holds the room, forwarded to the holder of the room's lease otherwise, and when
// nobody holds it, the room is taken here (loaded by the same re-simulation as a restart).
//
// A forwarded ask is answered after the owner has committed what it changed. When the owner does not answer:
// - its process is gone (nobody listens on its inbox): nothing was done; the ask waits for the lease to end
//   (at most its time to live), then goes to whoever takes the room — maybe this process;
// - it received the ask and said nothing in time: the same ask (same id) is sent again to the same owner, which
//   answers a repeated id with its first outcome. If the room has moved to another owner meanwhile, an ask that
//   changes nothing is sent there; one that may have changed something is answered with an error that says so.
import { randomUUID } from 'node:crypto';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { FencedError } from '../db/writes.ts';
import {
  answer,
  changesNothing,
  normalizedCode,
  roomFor,
  tokenSeat,
  type AnswerDeps,
  type Ask,
  type AskOf,
  type AskReply,
  type AskType,
  type RoomGate,
} from '../realtime/gate.ts';
import type { RoomManager } from '../rooms/manager.ts';
import { NotOwnerError } from '../rooms/ownership.ts';
import { unreachableRedis } from './adapter.ts';
import type { RoomLeases } from './lease.ts';
import { NotReceivedError, RpcTimeoutError, type RpcBus } from './rpc.ts';

export interface ClusterGateOptions {
  manager: RoomManager;
  leases: RoomLeases;
  /** Puts a socket of any process in channels (through the adapter). */
  join: AnswerDeps['join'];
  node: string;
  /** How long one forwarded ask waits for its answer (default 5 s). */
  rpcTimeoutMs?: number;
  /** How long an ask keeps trying to reach the room's owner (default 25 s: longer than a lease's life and a takeover). */
  deadlineMs?: number;
}

const moved = (e: unknown) => e instanceof NotOwnerError || e instanceof FencedError;
const pause = (attempt: number) => new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));

/** Who holds a room, remembered for a moment so that a busy room's asks do not each ask Redis first. */
const HOLDER_MEMORY_MS = 2000;

export class ClusterGate implements RoomGate {
  private readonly deps: AnswerDeps;
  private readonly holders = new Map<string, { node: string; token: number; until: number }>();
  private rpc: RpcBus | null = null;

  constructor(private readonly o: ClusterGateOptions) {
    this.deps = { manager: o.manager, join: o.join };
  }

  /** The bus forwarded asks travel on (set once, before the first ask). */
  connect(rpc: RpcBus): void {
    this.rpc = rpc;
  }

  tokenSeat(tokenHash: string, code?: string): Promise<{ code: string; playerId: number }> {
    return tokenSeat(this.o.manager.deps.store, tokenHash, code);
  }

  /** Another process's ask for a room this process holds (the RPC handler). */
  async serve(body: unknown): Promise<unknown> {
    const { code, ask } = body as { code: string; ask: Ask };
    const held = this.o.manager.held(code);
    if (!held) throw new NotOwnerError(code, `not held by ${this.o.node}`);
    return answer(await held, ask, this.deps);
  }

  private async holder(code: string): Promise<{ node: string; token: number } | null> {
    const known = this.holders.get(code);
    if (known && known.until > Date.now()) return known;
    const h = await this.o.leases.holder(code);
    if (h)
      this.holders.set(code, { node: h.node, token: h.token, until: Date.now() + Math.min(HOLDER_MEMORY_MS, h.ttlMs) });
    else this.holders.delete(code);
    if (this.holders.size > 10_000) this.holders.clear();
    return h;
  }

  async ask<K extends AskType>(codeInput: string, ask: AskOf<K>): Promise<AskReply<K>> {
    return (await this.route(normalizedCode(codeInput), ask as Ask)) as AskReply<K>;
  }

  private async route(code: string, ask: Ask): Promise<unknown> {
    const { manager, node } = this.o;
    const deadline = Date.now() + (this.o.deadlineMs ?? 25_000);
    const id = randomUUID();
    /** The token of an owner that received this ask and did not answer. */
    let unanswered: number | null = null;
    for (let attempt = 0; ; attempt++) {
      if (Date.now() > deadline) throw unanswered !== null && !changesNothing(ask) ? uncertain() : unreachable();
      const held = manager.held(code);
      if (held) {
        try {
          return await answer(await held, ask, this.deps);
        } catch (e) {
          if (!moved(e)) throw e;
          // Lost here a moment ago (its lease ran out, or another process fenced it): ask whoever holds it now.
          await pause(attempt);
          continue;
        }
      }
      const holder = await this.holder(code).catch(unreachableRedis);
      if (!holder || holder.node === node) {
        // Nobody holds the room: someone leaving it changes nothing; anything else takes it here.
        if (ask.type === 'leave') return undefined;
        try {
          return await answer(await roomFor(manager, code, ask), ask, this.deps);
        } catch (e) {
          if (!moved(e)) throw e;
          this.holders.delete(code);
          await pause(attempt);
          continue;
        }
      }
      if (unanswered !== null && unanswered !== holder.token && !changesNothing(ask)) throw uncertain();
      if (!this.rpc) throw new Error('the cluster gate is connected to its bus before the first ask');
      try {
        return await this.rpc.call(holder.node, id, { code, ask }, this.o.rpcTimeoutMs ?? 5000);
      } catch (e) {
        this.holders.delete(code);
        // A leave is not worth waiting for: whoever takes the room next counts who is connected anyway.
        if (
          ask.type === 'leave' &&
          (e instanceof NotReceivedError || e instanceof RpcTimeoutError || e instanceof NotOwnerError)
        )
          return undefined;
        if (e instanceof RpcTimeoutError) unanswered = holder.token;
        else if (e instanceof NotReceivedError || e instanceof NotOwnerError) await pause(attempt);
        else unreachableRedis(e);
      }
    }
  }
}

function unreachable(): ClassroomError {
  return new ClassroomError(
    ErrorCode.STORAGE_FAILED,
    'the server that runs this room could not be reached: nothing changed, try again',
  );
}

function uncertain(): ClassroomError {
  return new ClassroomError(
    ErrorCode.INTERNAL,
    'the server that ran this room stopped while handling this: it may or may not have been done; look, and try again if needed',
  );
}
