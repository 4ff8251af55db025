// What the rooms, the database and the realtime layer report as they work. A small interface with a
// no-op default, so a Room or a Store built without it (tests, tools) costs nothing; production
// passes the Prometheus implementation (prometheus.ts). Durations in milliseconds.
export interface Metrics {
  /** A room's minute, computed, stored and sent (also when it failed). */
  tick(durationMs: number): void;
  /** How late a planned minute started against its plan. */
  tickLag(lateMs: number): void;
  /**
   * A minute played and broadcast, this long after it fell due: the lag, the compute, the store and the send
   * together, the delay its students see leave the server.
   */
  minuteDelay(delayMs: number): void;
  /** A minute could not be computed or stored (the round paused). */
  tickFailed(): void;
  /** One database transaction (the group commit of one turn), holding `minutes` room-minutes. */
  committed(durationMs: number, minutes: number): void;
  /** `count` copies of one message went out (one per receiving socket or feed). */
  sent(event: string, count: number): void;
  /** A request refused by a rate limit (`limit` names which). */
  rateLimited(limit: string): void;
}

export const noMetrics: Metrics = {
  tick() {},
  tickLag() {},
  minuteDelay() {},
  tickFailed() {},
  committed() {},
  sent() {},
  rateLimited() {},
};
