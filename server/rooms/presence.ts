// Who is at a seat right now: ephemeral, never stored, not part of the room's state. A student is connected (a
// socket open), idle (connected, but every page of theirs hidden, or no change of theirs while banners showed for
// the room's idle minutes) or dropped (no socket: since when is kept, for the grace before the absence rule).
// Only a student's own sockets and changes move their seat's presence: nobody can make someone else's seat idle.
export class Presence {
  /** Open sockets per student (a student may have the desk open twice). */
  private sockets = new Map<number, number>();
  /** The student's sockets whose page is hidden, by socket id. */
  private hidden = new Map<number, Set<string>>();
  /** Since when a student has had no socket (players never seen since the room was loaded: from then). */
  private gone = new Map<number, number>();
  /** Minutes with a banner on the student's team desk since their last change. */
  private quiet = new Map<number, number>();
  /** Teacher and observer sockets. */
  private watchers = 0;
  private lastActive: number;
  private readonly since: number;

  constructor(now: number) {
    this.lastActive = now;
    this.since = now;
  }

  /** True when the student had no socket before. */
  connect(playerId: number, now: number): boolean {
    this.lastActive = now;
    const n = (this.sockets.get(playerId) ?? 0) + 1;
    this.sockets.set(playerId, n);
    this.gone.delete(playerId);
    return n === 1;
  }
  /** True when the student's last socket went. */
  disconnect(playerId: number, now: number, socketId?: string): boolean {
    this.lastActive = now;
    if (socketId) this.hidden.get(playerId)?.delete(socketId);
    const n = (this.sockets.get(playerId) ?? 0) - 1;
    if (n > 0) {
      this.sockets.set(playerId, n);
      return false;
    }
    this.hidden.delete(playerId);
    this.quiet.delete(playerId);
    const was = this.sockets.delete(playerId);
    if (was) this.gone.set(playerId, now);
    return was;
  }
  /** One of the student's pages was hidden or shown; true when their idle state changed. */
  setHidden(playerId: number, socketId: string, hidden: boolean, idleMinutes: number): boolean {
    if (!this.sockets.has(playerId)) return false;
    const before = this.isIdle(playerId, idleMinutes);
    const set = this.hidden.get(playerId) ?? new Set<string>();
    if (hidden) set.add(socketId);
    else set.delete(socketId);
    if (set.size) this.hidden.set(playerId, set);
    else this.hidden.delete(playerId);
    return before !== this.isIdle(playerId, idleMinutes);
  }
  /** The student made a change; true when their idle state changed. */
  acted(playerId: number, idleMinutes: number): boolean {
    const before = this.isIdle(playerId, idleMinutes);
    this.quiet.delete(playerId);
    return before !== this.isIdle(playerId, idleMinutes);
  }
  /** A minute with a banner passed on the student's desk without a change of theirs; true when they turned idle. */
  quietMinute(playerId: number, idleMinutes: number): boolean {
    if (!this.sockets.has(playerId)) return false;
    const before = this.isIdle(playerId, idleMinutes);
    this.quiet.set(playerId, (this.quiet.get(playerId) ?? 0) + 1);
    return before !== this.isIdle(playerId, idleMinutes);
  }
  watch(now: number): void {
    this.lastActive = now;
    this.watchers++;
  }
  unwatch(now: number): void {
    this.lastActive = now;
    this.watchers = Math.max(0, this.watchers - 1);
  }

  /** Counts everyone again (cluster mode: from every process's sockets). */
  reset(studentSockets: readonly number[], watchers: number, now: number): void {
    this.lastActive = now;
    for (const id of this.sockets.keys()) this.gone.set(id, now);
    this.sockets.clear();
    this.hidden.clear();
    for (const id of studentSockets) {
      this.sockets.set(id, (this.sockets.get(id) ?? 0) + 1);
      this.gone.delete(id);
    }
    this.watchers = watchers;
  }

  isConnected(playerId: number): boolean {
    return this.sockets.has(playerId);
  }
  isIdle(playerId: number, idleMinutes: number): boolean {
    if (!this.sockets.has(playerId)) return false;
    const hidden = this.hidden.get(playerId)?.size ?? 0;
    return hidden >= (this.sockets.get(playerId) ?? 0) || (this.quiet.get(playerId) ?? 0) >= idleMinutes;
  }
  /** Milliseconds since the student's last socket went (0 while one is open). */
  absentFor(playerId: number, now: number): number {
    return this.sockets.has(playerId) ? 0 : now - (this.gone.get(playerId) ?? this.since);
  }
  /** Nobody connected, and nobody came or went for at least `ms`. */
  quietFor(ms: number, now: number): boolean {
    return this.watchers === 0 && this.sockets.size === 0 && now - this.lastActive >= ms;
  }
}
