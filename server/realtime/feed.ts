// The plain, read-only WebSocket feed of a room (projectors, external tools): JSON messages
// {type:'hello'|'room'|'presence'|'summary'|'scores', ...}. Anything a client sends is answered with an error.
import type { WebSocket } from '@fastify/websocket';
import { noMetrics, type Metrics } from '../ops/metrics.ts';

export type FeedMessage =
  | { type: 'hello'; [k: string]: unknown }
  | { type: 'room'; room: unknown }
  | { type: 'presence'; [k: string]: unknown }
  | { type: 'summary'; [k: string]: unknown }
  | { type: 'scores'; [k: string]: unknown }
  | { type: 'error'; code: string; message: string };

export class FeedHub {
  private byRoom = new Map<string, Set<WebSocket>>();

  constructor(private readonly metrics: Metrics = noMetrics) {}

  add(code: string, ws: WebSocket): void {
    let set = this.byRoom.get(code);
    if (!set) this.byRoom.set(code, (set = new Set()));
    set.add(ws);
    ws.on('close', () => {
      set.delete(ws);
      if (set.size === 0 && this.byRoom.get(code) === set) this.byRoom.delete(code);
    });
  }

  send(code: string, msg: FeedMessage): void {
    const set = this.byRoom.get(code);
    if (!set) return;
    const text = JSON.stringify(msg);
    let sent = 0;
    // OPEN = 1; slow readers with a large backlog are skipped rather than buffered without end.
    for (const ws of set) {
      if (ws.readyState !== 1 || ws.bufferedAmount >= 1 << 20) continue;
      ws.send(text);
      sent++;
    }
    this.metrics.sent(`feed:${msg.type}`, sent);
  }

  count(code?: string): number {
    if (code !== undefined) return this.byRoom.get(code)?.size ?? 0;
    let n = 0;
    for (const s of this.byRoom.values()) n += s.size;
    return n;
  }

  closeAll(): void {
    for (const set of this.byRoom.values()) for (const ws of set) ws.close(1001, 'server shutting down');
    this.byRoom.clear();
  }
}
