// Time to the next simulated minute, for the projector: a minute arrived now, the next one comes
// after the round's tempo. Counted from when this screen received the minute (the server's clock
// and this one need not agree), to the whole second.
export class NextMinute {
  seconds = $state<number | null>(null);
  #due = 0;
  #timer: ReturnType<typeof setInterval> | null = null;

  /** A minute has just arrived; the next is due in `tempo` seconds. */
  arrived(tempo: number): void {
    this.#due = performance.now() + tempo * 1000;
    this.#update();
    this.#timer ??= setInterval(() => this.#update(), 250);
  }

  /** The clock is not running (lobby, paused, finished): no countdown. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.seconds = null;
  }

  #update(): void {
    this.seconds = Math.max(0, Math.ceil((this.#due - performance.now()) / 1000));
  }
}
