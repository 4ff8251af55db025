// Requests between Opsroom processes over Redis (cluster mode): each process listens on its own inbox channel
// `opsroom:rpc:{NODE}` (sharded Pub/Sub) for requests and for the answers to its own requests, matched by
// correlation id. Pub/Sub delivers at most once, so the caller learns three outcomes apart:
// - SPUBLISH reports that nobody listens on the inbox: the process is gone and the request surely not handled
//   (NotReceivedError) — safe to send anywhere;
// - an answer (a value or the handler's error);
// - no answer in time (RpcTimeoutError): handled or not, nobody knows. A retry carries the same id and the handler
//   side answers a repeated id with the first outcome (kept for DEDUP_MS), so a retry to the same process is done once.
import type { Redis } from 'ioredis';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { FencedError } from '../db/writes.ts';
import { NotOwnerError } from '../rooms/ownership.ts';

/** Nobody listens on the process's inbox: it is gone, and the request was not handled. */
export class NotReceivedError extends Error {
  override readonly name = 'NotReceivedError';
}
/** The request was received and no answer came in time. */
export class RpcTimeoutError extends Error {
  override readonly name = 'RpcTimeoutError';
}

type WireError =
  | { kind: 'classroom'; code: ErrorCode; message: string; key?: string; allowed?: string }
  | { kind: 'notOwner'; room: string; reason: string }
  | { kind: 'internal'; message: string };

interface Request {
  t: 'req';
  id: string;
  from: string;
  body: unknown;
}
interface Response {
  t: 'res';
  id: string;
  ok: boolean;
  value?: unknown;
  error?: WireError;
}

/** How long a handled request's outcome is kept for a retry with the same id. */
const DEDUP_MS = 60_000;

export interface RpcOptions {
  /** Channel prefix (default "opsroom"). */
  prefix?: string;
  log?: { error(obj: object, msg?: string): void };
}

function toWire(e: unknown): WireError {
  if (e instanceof ClassroomError) return { kind: 'classroom', ...e.toJSON() };
  if (e instanceof NotOwnerError) return { kind: 'notOwner', room: e.code, reason: e.reason };
  // A command that came back fenced changed nothing: the room is another process's now.
  if (e instanceof FencedError) return { kind: 'notOwner', room: String(e.roomId), reason: e.message };
  return { kind: 'internal', message: e instanceof Error ? e.message : String(e) };
}

function fromWire(w: WireError): Error {
  switch (w.kind) {
    case 'classroom':
      return new ClassroomError(w.code, w.message, {
        ...(w.key !== undefined ? { key: w.key } : {}),
        ...(w.allowed !== undefined ? { allowed: w.allowed } : {}),
      });
    case 'notOwner':
      return new NotOwnerError(w.room, w.reason);
    case 'internal':
      return new ClassroomError(ErrorCode.INTERNAL, 'internal error');
  }
}

export class RpcBus {
  private readonly pending = new Map<
    string,
    { resolve(v: unknown): void; reject(e: unknown): void; timer: NodeJS.Timeout }
  >();
  /** Outcomes of requests handled here, by caller and id, oldest first. */
  private readonly handled = new Map<string, { at: number; outcome: Promise<unknown> }>();
  private readonly prefix: string;
  private readonly onMessage = (channel: string, raw: string) => {
    if (channel === this.inbox(this.node)) this.receive(raw);
  };

  constructor(
    private readonly pub: Redis,
    /** A connection in subscriber mode (shared with other subscriptions). */
    private readonly sub: Redis,
    readonly node: string,
    private readonly handler: (body: unknown) => Promise<unknown>,
    private readonly opts: RpcOptions = {},
  ) {
    this.prefix = opts.prefix ?? 'opsroom';
  }

  private inbox(node: string): string {
    return `${this.prefix}:rpc:{${node}}`;
  }

  /** Starts listening; resolves once the inbox subscription is in place. */
  async start(): Promise<void> {
    this.sub.on('smessage', this.onMessage);
    await this.sub.ssubscribe(this.inbox(this.node));
  }

  async stop(): Promise<void> {
    this.sub.off('smessage', this.onMessage);
    await this.sub.sunsubscribe(this.inbox(this.node)).catch(() => undefined);
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new RpcTimeoutError(`request ${id}: this process is stopping`));
    }
    this.pending.clear();
  }

  /** Sends `body` to `node`'s handler; `id` identifies the request across retries. */
  async call(node: string, id: string, body: unknown, timeoutMs: number): Promise<unknown> {
    if (this.pending.has(id)) throw new Error(`request ${id} is already waiting for an answer`);
    const answer = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RpcTimeoutError(`no answer from ${node} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
    });
    answer.catch(() => undefined);
    let listeners: number;
    try {
      listeners = Number(
        await this.pub.spublish(
          this.inbox(node),
          JSON.stringify({ t: 'req', id, from: this.node, body } satisfies Request),
        ),
      );
    } catch (e) {
      this.settle(id);
      throw e;
    }
    if (listeners === 0) {
      this.settle(id);
      throw new NotReceivedError(`${node} does not listen: its process is gone`);
    }
    return answer;
  }

  private settle(id: string) {
    const p = this.pending.get(id);
    if (p) clearTimeout(p.timer);
    this.pending.delete(id);
    return p;
  }

  private receive(raw: string): void {
    let msg: Request | Response;
    try {
      msg = JSON.parse(raw);
    } catch {
      return;
    }
    if (msg.t === 'res') {
      const p = this.settle(msg.id);
      if (!p) return; // answered after its caller gave up: the retry (same id) gets the kept outcome
      if (msg.ok) p.resolve(msg.value);
      else p.reject(fromWire(msg.error ?? { kind: 'internal', message: 'an error without its description' }));
      return;
    }
    if (msg.t === 'req') void this.handle(msg);
  }

  private async handle(req: Request): Promise<void> {
    const now = Date.now();
    for (const [key, h] of this.handled) {
      if (now - h.at < DEDUP_MS) break;
      this.handled.delete(key);
    }
    const key = `${req.from}/${req.id}`;
    let entry = this.handled.get(key);
    if (!entry) {
      entry = { at: now, outcome: this.handler(req.body) };
      this.handled.set(key, entry);
    }
    let res: Response;
    try {
      res = { t: 'res', id: req.id, ok: true, value: await entry.outcome };
    } catch (e) {
      const error = toWire(e);
      if (error.kind === 'internal') this.opts.log?.error({ err: e }, 'a request from another process failed');
      // An owner that is not (any more) may be asked again once it is: do not keep that answer.
      if (error.kind === 'notOwner') this.handled.delete(key);
      res = { t: 'res', id: req.id, ok: false, error };
    }
    await this.pub.spublish(this.inbox(req.from), JSON.stringify(res)).catch(() => undefined);
  }
}
