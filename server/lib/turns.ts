// Work that costs milliseconds of CPU and may come in bursts (rooms and what-ifs being built) takes turns of the
// event loop one at a time: each waiter goes on in a later turn than the one before it, so the timers phase — the
// rooms' due minutes — runs between any two of them. (Awaiting setImmediate alone is not enough: immediates queued
// in one turn all run in the same check phase.)
import { setImmediate as nextTurn } from 'node:timers/promises';

export class Turns {
  private last: Promise<unknown> = Promise.resolve();

  /** Resolves in a turn of the event loop of its own, after every earlier waiter's. */
  take(): Promise<void> {
    const mine = this.last.then(() => nextTurn());
    this.last = mine;
    return mine;
  }
}
