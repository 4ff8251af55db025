// A room's beat: the one timer that plans its next minute. Each minute is planned one tempo after the previous plan
// (not after the previous minute was done), so the clock does not drift. The room owns the timer and stops it in
// dispose().
import type { Clock, Timer } from '../lib/clock.ts';
import type { RoundRun } from './state.ts';

export class Beats {
  private timer: Timer | null = null;
  /** What the next minute was planned from: the start, a resume, or the last minute's due time. */
  private last = 0;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    /** A minute falls due at `at` by the plan. */
    private readonly onBeat: (at: number) => void,
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
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = null;
        this.onBeat(at);
      },
      Math.max(0, at - this.clock.now()),
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
