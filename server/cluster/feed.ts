// The plain WebSocket feed across processes (cluster mode): the room's owner publishes each feed message on the
// room's Redis channel `opsroom:feed:{CODE}`, and every process with feed clients of that room — the owner too —
// subscribes to it while it has any and hands each message to them (server/realtime/feed.ts).
import type { Redis } from 'ioredis';
import type { FeedHub, FeedMessage } from '../realtime/feed.ts';

/** What a process closes on: enough of a WebSocket to know when it closes. */
interface Closable {
  once(event: 'close', fn: () => void): unknown;
}

export class ClusterFeed {
  /** Local feed clients per room followed. */
  private readonly following = new Map<string, number>();
  private readonly prefix: string;
  private readonly onMessage = (channel: string, raw: string) => {
    const code = this.codeOf(channel);
    if (code === null || !this.following.has(code)) return;
    try {
      this.hub.send(code, JSON.parse(raw) as FeedMessage);
    } catch {
      // Not ours to read.
    }
  };

  constructor(
    private readonly hub: FeedHub,
    private readonly pub: Redis,
    /** A connection in subscriber mode (shared with other subscriptions). */
    private readonly sub: Redis,
    prefix = 'opsroom',
  ) {
    this.prefix = `${prefix}:feed:`;
    sub.on('smessage', this.onMessage);
  }

  private channel(code: string): string {
    return `${this.prefix}{${code}}`;
  }

  private codeOf(channel: string): string | null {
    return channel.startsWith(this.prefix) ? channel.slice(this.prefix.length + 1, -1) : null;
  }

  /**
   * Feed clients that may receive the room's messages: those of other processes are not counted here, so never
   * 0 — the owner always publishes, and Redis delivers only to the processes that follow the room.
   */
  count(_code?: string): number {
    return Number.POSITIVE_INFINITY;
  }

  /** To every feed client of the room, on every process. */
  send(code: string, msg: FeedMessage): void {
    this.pub.spublish(this.channel(code), JSON.stringify(msg)).catch(() => undefined);
  }

  /** A feed client of the room connected here: resolves once this process receives the room's feed messages. */
  async follow(code: string, ws: Closable): Promise<void> {
    const n = this.following.get(code) ?? 0;
    this.following.set(code, n + 1);
    ws.once('close', () => {
      const left = (this.following.get(code) ?? 1) - 1;
      if (left > 0) return void this.following.set(code, left);
      this.following.delete(code);
      this.sub.sunsubscribe(this.channel(code)).catch(() => undefined);
    });
    if (n === 0) await this.sub.ssubscribe(this.channel(code));
    // A second client waits for the first one's subscription too.
    else await this.sub.ping();
  }

  stop(): void {
    this.sub.off('smessage', this.onMessage);
  }
}
