// Which of the team's events this student has read. The desk's banner shows the newest unread event
// until it is read; the choice is kept in this browser per round and team, so a reload or a
// reconnection does not bring back what was already read.
import { loadReadEvents, saveReadEvents } from '$lib/net/storage.ts';

export class ReadEvents {
  #ids = $state<string[]>([]);
  #key: string | null = null;

  /** Follows the round and team shown (`roundId.teamId`); null keeps nothing. */
  use(key: string | null): void {
    if (key === this.#key) return;
    this.#key = key;
    this.#ids = key ? loadReadEvents(key) : [];
  }

  has(id: string): boolean {
    return this.#ids.includes(id);
  }

  read(ids: readonly string[]): void {
    this.#ids = [...new Set([...this.#ids, ...ids])];
    if (this.#key) saveReadEvents(this.#key, this.#ids);
  }
}
