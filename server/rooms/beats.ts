// A room's beats: the one timer that plans its next minute. Each minute is planned one tempo after the previous
// plan (not after the previous minute was done), so the clock does not drift, and fires at the end of its slot
// (`slotMs`) with every other room's minute due in the same slot — `leadMs` before it falls due, so that it can be
// computed and stored by then and sent on time (the room holds it until it is due: room.ts). The room owns the
// timer and stops it in dispose().
import type { Clock, Timer } from './clock.ts';
import type { RoundRun } from './state.ts';

export class Beats {
  private timer: Timer | null = null;
  /** What the next minute was planned from: the start, a resume, or the last minute's due time. */
  private last = 0;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly slotMs: number,
    /** How long before its due time a minute is started (0: at its due time). */
    private readonly leadMs: number,
    /** A minute falls due at `at` by the plan; it was to start at `startAt`, `leadMs` before it. */
    private readonly onBeat: (at: number, startAt: number) => void,
  ) {}

  /** Whether a minute is planned. */
  get planned(): boolean {
    return this.timer !== null;
  }

  /** Keeps the timer in step with the round: running ⇔ a minute is planned. `decidedAt`: the transition's time. */
  follow(prev: RoundRun, next: RoundRun, decidedAt: number): void {
    if (next.state !== 'running') this.clear();
    // Started or resumed: the first minute comes one tempo after the start (the time minute 0 was sent with),
    // not one tempo after its commit.
    else if (prev.state !== 'running' || prev.id !== next.id) this.plan(decidedAt, next.tempo);
    // A new tempo: the next minute comes one new tempo after the last one (at once if that is past).
    else if (prev.tempo !== next.tempo) this.plan(this.last, next.tempo);
  }

  /** Plans the minute one tempo (seconds) after `from`, in place of any planned. */
  plan(from: number, tempo: number): void {
    this.clear();
    if (this.stopped) return;
    this.last = from;
    const at = from + tempo * 1000;
    const startAt = at - this.leadMs;
    const fireAt = this.slotMs > 0 ? Math.ceil(startAt / this.slotMs) * this.slotMs : startAt;
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = null;
        this.onBeat(at, startAt);
      },
      Math.max(0, fireAt - this.clock.now()),
    );
  }

  clear(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /** For good: nothing is planned after this. */
  stop(): void {
    this.stopped = true;
    this.clear();
  }
}

/**
 * A stored minute held until its due time (RoomDeps.minuteLeadMs): one at a time per room, a timer the room owns,
 * let go at once by release() (the room's dispose()).
 */
export class DueHold {
  private held: { timer: Timer; release: () => void } | null = null;

  constructor(private readonly clock: Clock) {}

  /** Resolves at `at`, or at release(), to true; false at once (no promise) if `at` has passed. */
  until(at: number): Promise<boolean> | false {
    const wait = at - this.clock.now();
    if (wait <= 0) return false;
    return new Promise((resolve) => {
      const release = () => {
        this.clock.clearTimeout(this.held?.timer);
        this.held = null;
        resolve(true);
      };
      this.held = { timer: this.clock.setTimeout(release, wait), release };
    });
  }

  release(): void {
    this.held?.release();
  }
}
