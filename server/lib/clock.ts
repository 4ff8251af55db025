// Time as the rooms see it: a small interface so tests drive it by hand instead of sleeping.

/** An opaque handle from setTimeout. */
export type Timer = object;

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): Timer;
  clearTimeout(t: Timer | null | undefined): void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout(t) {
    if (t) clearTimeout(t as NodeJS.Timeout);
  },
};

/** A clock that moves only when told to; due timers fire in time order, synchronously. */
export class ManualClock implements Clock {
  private t: number;
  private seq = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): Timer {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    return { id };
  }
  clearTimeout(t: Timer | null | undefined): void {
    if (t) this.timers.delete((t as { id: number }).id);
  }
  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.timers)
        if (e[1].at <= end && (!next || e[1].at < next[1].at || (e[1].at === next[1].at && e[0] < next[0]))) next = e;
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
    }
    this.t = end;
  }
  /** Number of timers waiting. */
  get pending(): number {
    return this.timers.size;
  }
}
