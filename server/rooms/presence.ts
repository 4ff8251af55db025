// Who is connected to a room right now: ephemeral, never stored, not part of the room's state.
export class Presence {
  /** Open sockets per student (a student may have the desk open twice). */
  private sockets = new Map<number, number>();
  /** Teacher and observer sockets. */
  private watchers = 0;
  private lastActive: number;

  constructor(now: number) {
    this.lastActive = now;
  }

  /** True when the student had no socket before. */
  connect(playerId: number, now: number): boolean {
    this.lastActive = now;
    const n = (this.sockets.get(playerId) ?? 0) + 1;
    this.sockets.set(playerId, n);
    return n === 1;
  }
  /** True when the student's last socket went. */
  disconnect(playerId: number, now: number): boolean {
    this.lastActive = now;
    const n = (this.sockets.get(playerId) ?? 0) - 1;
    if (n > 0) {
      this.sockets.set(playerId, n);
      return false;
    }
    return this.sockets.delete(playerId);
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
    this.sockets.clear();
    for (const id of studentSockets) this.sockets.set(id, (this.sockets.get(id) ?? 0) + 1);
    this.watchers = watchers;
  }

  isConnected(playerId: number): boolean {
    return this.sockets.has(playerId);
  }
  /** Nobody connected, and nobody came or went for at least `ms`. */
  quietFor(ms: number, now: number): boolean {
    return this.watchers === 0 && this.sockets.size === 0 && now - this.lastActive >= ms;
  }
}
