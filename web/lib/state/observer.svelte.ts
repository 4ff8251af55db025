// The projector: read-only, joined as an observer. Rebuilt from the join's answer after a reconnect.
import type { RoomSummary, RoomView, RoundScores } from '$shared/protocol/types.ts';
import { Connection, isTransient } from '$lib/net/connection.svelte.ts';
import { afterMinute, afterNotice } from './notice.ts';
import { withPresence } from './presence.ts';

export class ObserverSession {
  readonly conn: Connection;
  room = $state.raw<RoomView | null>(null);
  summary = $state.raw<RoomSummary | null>(null);
  scores = $state.raw<RoundScores | null>(null);
  joined = $state(false);
  failure = $state<string | null>(null);
  /** The server stopping (a notice), until the projector has joined again. */
  notice = $state<string | null>(null);

  constructor(readonly code: string) {
    this.conn = new Connection(() => void this.join());
    const s = this.conn.socket;
    s.on('disconnect', () => (this.joined = false));
    s.on('room', (room) => {
      if (this.room && room.round.id !== this.room.round.id) {
        this.summary = null;
        this.scores = null;
      }
      this.room = room;
    });
    s.on('presence', (p) => {
      if (this.room) this.room = withPresence(this.room, p);
    });
    s.on('summary', (sm) => {
      this.summary = sm;
      this.notice = afterMinute(this.notice);
    });
    s.on('scores', (sc) => (this.scores = sc));
    s.on('notice', (n) => (this.notice = afterNotice(n.code)));
  }

  start(): void {
    this.conn.open();
  }

  async join(): Promise<void> {
    this.joined = false;
    const res = await this.conn.request('observer:join', { code: this.code });
    if (!res.ok) {
      this.failure = this.conn.afterFailedJoin(
        res.error.code,
        (c) => !isTransient(c),
        () => void this.join(),
      );
      return;
    }
    this.room = res.room;
    this.summary = res.summary;
    this.scores = res.scores;
    this.notice = null;
    this.joined = true;
  }

  dispose(): void {
    this.conn.close();
  }
}
