// The plain, read-only WebSocket feed of a room (projectors, external tools): JSON messages
// {type:'hello'|'room'|'summary'|'scores', ...}. Anything a client sends is answered with an error.
import type { WebSocket } from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';

export type FeedMessage =
  | { type: 'hello'; [k: string]: unknown }
  | { type: 'room'; room: unknown }
  | { type: 'summary'; [k: string]: unknown }
  | { type: 'scores'; [k: string]: unknown }
  | { type: 'error'; code: string; message: string };

export class FeedHub {
  private byRoom = new Map<string, Set<WebSocket>>();

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
    // OPEN = 1; slow readers with a large backlog are skipped rather than buffered without end.
    for (const ws of set) if (ws.readyState === 1 && ws.bufferedAmount < 1 << 20) ws.send(text);
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

/** The route: a room's feed by its code (a look-up the shared guess limit counts), then its messages. */
export async function feedRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { code: string } }>('/api/rooms/:code/feed', { websocket: true }, (ws, req) => {
    let room;
    try {
      room = app.guesses.attempt(req.ip, () => app.rooms.get(req.params.code));
    } catch (e) {
      const err = e instanceof ClassroomError ? e.toJSON() : { code: ErrorCode.INTERNAL, message: 'internal error' };
      if (!(e instanceof ClassroomError)) req.log.error({ err: e }, 'feed look-up failed');
      ws.send(JSON.stringify({ type: 'error', ...err }));
      ws.close(err.code === ErrorCode.RATE_LIMITED ? 4429 : err.code === ErrorCode.INTERNAL ? 1011 : 4404, err.code);
      return;
    }
    ws.on('message', () => ws.send(JSON.stringify({ type: 'error', code: ErrorCode.BAD_REQUEST, message: 'the feed is read-only' })));
    app.feed.add(room.code, ws);
    ws.send(JSON.stringify({ type: 'hello', room: room.view(), summary: room.summary(), scores: room.scores() }));
  });
}
