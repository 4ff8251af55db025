// A student's page: one connection, joined with the token this browser keeps for the room, and the
// team's desk rebuilt from the join's history after every (re)connect.
import type { ControlValue } from '$shared/sim/types.ts';
import type { RoomView, RoundScores, TeacherMessage } from '$shared/protocol/types.ts';
import { Connection } from '$lib/net/connection.svelte.ts';
import { clearToken, loadToken, saveToken } from '$lib/net/storage.ts';
import { DeskState } from './desk.svelte.ts';
import { afterMinute, afterNotice } from './notice.ts';
import { withPresence } from './presence.ts';

/** Codes after which joining again cannot help. */
const FATAL = new Set(['BAD_TOKEN', 'ROOM_NOT_FOUND', 'REMOVED']);

export class StudentSession {
  readonly conn: Connection;
  readonly desk = new DeskState();
  room = $state.raw<RoomView | null>(null);
  playerId = $state<number | null>(null);
  scores = $state.raw<RoundScores | null>(null);
  /** The teacher's messages to this team or to all, until the round ends. */
  messages = $state.raw<TeacherMessage[]>([]);
  joined = $state(false);
  /** The last notice from the server that is not an answer (the server stopping…), as a code; cleared by joining again. */
  notice = $state<string | null>(null);
  /** Why the session stopped (an error code), or null while it runs. */
  failure = $state<string | null>(null);
  me = $derived(this.room?.players.find((p) => p.id === this.playerId) ?? null);

  constructor(readonly code: string) {
    this.conn = new Connection(() => void this.join());
    const s = this.conn.socket;
    s.on('disconnect', () => (this.joined = false));
    s.on('room', (room) => this.setRoom(room));
    s.on('presence', (p) => {
      if (this.room) this.room = withPresence(this.room, p);
    });
    s.on('minute', (tm) => {
      this.notice = afterMinute(this.notice);
      if (!this.desk.applyMinute(tm)) void this.join();
    });
    s.on('pending', (c) => this.desk.addChange(c));
    s.on('seat', (t) => this.desk.addSeatTurn(t));
    s.on('history', (h) => this.desk.load(h));
    s.on('scores', (sc) => (this.scores = sc));
    s.on('roles', (r) => {
      this.desk.addRoleChanges(r);
      // In split view a role of mine changing hands changes what my desk receives: the history again.
      const mine = r.changes.some((c) => c.from?.playerId === this.playerId || c.to?.playerId === this.playerId);
      if (mine && this.room?.config.splitView && this.desk.snapshots.length > 0) void this.join();
    });
    s.on('message', (msg) => {
      if (!this.messages.some((x) => x.id === msg.id)) this.messages = [...this.messages, msg];
    });
    s.on('notice', (n) => {
      if (n.code === 'REMOVED') this.stop('REMOVED');
      else this.notice = afterNotice(n.code);
    });
  }

  /** Starts the session; false when this browser has no seat in the room (go to the join page). */
  start(): boolean {
    if (!loadToken(this.code)) return false;
    this.conn.open();
    return true;
  }

  /** Practice: the seat is taken by this name the first time (no join page), then by its token as always. */
  startAs(name: string): void {
    this.newName = loadToken(this.code) ? null : name;
    this.conn.open();
  }
  private newName: string | null = null;

  private setRoom(room: RoomView): void {
    if (this.room && room.round.id !== this.room.round.id) {
      // Next round: a fresh desk; its minutes arrive once the teacher starts it.
      this.scores = null;
      this.messages = [];
      this.desk.reset(room.round.id);
    }
    this.room = room;
    const me = room.players.find((p) => p.id === this.playerId);
    if (me && me.teamId !== this.desk.teamId && this.desk.snapshots.length === 0) this.desk.teamId = me.teamId;
  }

  async join(): Promise<void> {
    const token = loadToken(this.code);
    const name = this.newName;
    if (!token && !name) return this.stop('BAD_TOKEN');
    this.joined = false;
    const res = await this.conn.request(
      'student:join',
      token ? { code: this.code, token } : { code: this.code, name: name ?? '' },
    );
    if (res.ok) this.newName = null;
    if (!res.ok) {
      // Anything but a lost seat passes (a rate limit, a timeout, a server that could not store): try again.
      const fatal = this.conn.afterFailedJoin(
        res.error.code,
        (c) => FATAL.has(c),
        () => void this.join(),
      );
      if (fatal) this.stop(fatal);
      return;
    }
    saveToken(this.code, res.token);
    this.playerId = res.playerId;
    this.room = res.room;
    // After a reload at the end of a round, the leaderboard comes with the join.
    this.scores = res.scores;
    this.messages = res.messages;
    const me = res.room.players.find((p) => p.id === res.playerId);
    if (res.history) this.desk.load(res.history);
    else {
      // In the lobby there is no history yet; the team's role changes come with the join.
      this.desk.reset(res.room.round.id, me?.teamId ?? null);
      this.desk.roleChanges = res.roleChanges;
      this.desk.seatTurns = res.seatTurns;
    }
    this.notice = null;
    this.joined = true;
    // A page hidden before (re)joining still counts as hidden.
    if (typeof document !== 'undefined' && document.hidden) void this.setHidden(true);
  }

  /** The page was hidden or shown: the seat's idle state (the server trusts it for this seat only). */
  async setHidden(hidden: boolean): Promise<void> {
    if (this.joined) await this.conn.request('student:presence', { hidden });
  }

  /** Steps out of the seat (the autopilot plays it) or takes it back; resolves with an error code or null. */
  async pilot(autopilot: boolean): Promise<string | null> {
    const res = await this.conn.request('student:pilot', { autopilot });
    return res.ok ? null : res.error.code;
  }

  /** Takes a free teammate's roles ("ask the team"); resolves with an error code or null. */
  async take(fromId: number): Promise<string | null> {
    const res = await this.conn.request('student:take', { fromId });
    return res.ok ? null : res.error.code;
  }

  /** Sends a change of one of this student's controls; resolves with an error code or null. */
  async change(key: string, value: ControlValue): Promise<string | null> {
    const res = await this.conn.request('student:control', { key, value });
    if (!res.ok) return res.error.code;
    this.desk.addChange(res.change);
    return null;
  }

  private stop(code: string): void {
    this.failure = code;
    this.joined = false;
    if (code === 'BAD_TOKEN' || code === 'REMOVED') clearToken(this.code);
    this.conn.close();
  }

  dispose(): void {
    this.conn.close();
  }
}
