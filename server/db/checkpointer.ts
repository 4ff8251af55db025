// WAL checkpoints on a thread of their own. SQLite's automatic checkpoint runs inside the commit that takes the log
// past 1,000 pages: at 10,000 students that was one transaction in ~0.6 s taking 20–38 ms instead of 2, on the writer
// thread, and every room's minute due meanwhile waited behind it (docs/performance-log.md, "The twentieth stretch").
// Here a connection of its own copies the log into the database file every CHECKPOINT_EVERY_MS, PASSIVE: it neither
// waits for nor blocks the writer or a reader, and what it leaves (frames a reader still needs) goes in the next.
// The writer's and the main connection's own automatic checkpoint is moved out to FALLBACK_CHECKPOINT_PAGES: with
// this thread running the log never gets there; should the thread stop, the log still cannot grow without bound.
import { Worker } from 'node:worker_threads';

export const CHECKPOINT_EVERY_MS = 250;
/** ~40 MB of log: ten times SQLite's default, reached only if checkpoints stop. */
export const FALLBACK_CHECKPOINT_PAGES = 10_000;

/** A connection that writes beside the checkpoint thread: its own automatic checkpoint only as the backstop. */
export const leaveCheckpointsToThread = (client: { pragma(source: string): unknown }) =>
  void client.pragma(`wal_autocheckpoint = ${FALLBACK_CHECKPOINT_PAGES}`);

/** `PRAGMA wal_checkpoint`'s answer: frames in the log, and how many of them are now in the database file. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}
type Reply = { id: number; result?: CheckpointResult; error?: string } | { failed: string };

/** The thread's counters, in a shared block of Int32 it writes and the main thread reads (no message per checkpoint). */
const COUNT = { done: 0, failed: 1, log: 2, waiting: 3, failing: 4 } as const;

/** What an operator reads of the checkpoints (`/api/health`, `/metrics`). */
export interface CheckpointStatus {
  /** The thread is running. Stopped, the log is checkpointed only by the writer's backstop, past ~40 MB. */
  running: boolean;
  /** Checkpoints done, and failed, since the store opened. */
  done: number;
  failed: number;
  /** The last periodic checkpoint failed (the next one tries again). */
  failing: boolean;
  /** Frames in the log at the last checkpoint, and of those not yet in the database file (a reader still needed them). */
  logFrames: number;
  framesWaiting: number;
  /** The message of the last failure, if any. */
  lastFailure: string | null;
}

export class Checkpointer {
  private readonly worker: Worker;
  private seq = 0;
  private readonly asked = new Map<number, { resolve(r: CheckpointResult): void; reject(e: Error): void }>();
  private readonly exited: Promise<void>;
  private stopped: Error | null = null;
  private readonly count = new Int32Array(new SharedArrayBuffer(5 * Int32Array.BYTES_PER_ELEMENT));
  /** The message of the last periodic checkpoint that failed, if any (the next one tries again). */
  lastFailure: string | null = null;

  constructor(path: string, everyMs = CHECKPOINT_EVERY_MS) {
    // Plain JavaScript, no tsx: the thread needs nothing of ours, only better-sqlite3.
    this.worker = new Worker(new URL('./checkpointer.thread.mjs', import.meta.url), {
      workerData: { path, everyMs, counts: this.count.buffer },
      execArgv: [],
    });
    // It never keeps the process alive: a checkpoint cut short is redone by the next connection to open the file.
    this.worker.unref();
    this.worker.on('message', (m: Reply) => {
      if ('failed' in m) {
        this.lastFailure = m.failed;
        return;
      }
      const waiting = this.asked.get(m.id);
      this.asked.delete(m.id);
      if (m.result) waiting?.resolve(m.result);
      else waiting?.reject(new Error(m.error));
    });
    const stop = (why: Error) => {
      this.stopped ??= why;
      for (const w of this.asked.values()) w.reject(why);
      this.asked.clear();
    };
    this.worker.on('error', stop);
    this.exited = new Promise((r) =>
      this.worker.once('exit', (code) => {
        stop(new Error(`the checkpoint thread stopped (exit code ${code})`));
        r();
      }),
    );
  }

  /** One checkpoint now, besides the periodic ones. */
  checkpoint(): Promise<CheckpointResult> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.asked.set(id, { resolve, reject });
      this.worker.postMessage({ id });
    });
  }

  status(): CheckpointStatus {
    const at = (i: number) => Atomics.load(this.count, i);
    return {
      running: this.stopped === null,
      done: at(COUNT.done),
      failed: at(COUNT.failed),
      failing: at(COUNT.failing) === 1,
      logFrames: at(COUNT.log),
      framesWaiting: at(COUNT.waiting),
      lastFailure: this.lastFailure,
    };
  }

  /** Stops the periodic checkpoints and closes the thread's connection. */
  async close(): Promise<void> {
    if (!this.stopped) this.worker.postMessage('close');
    // Held by the close: an unreferenced thread would let a process with nothing else to do end before it exits
    // (a bench's or a script's top-level await then never settles: exit code 13).
    this.worker.ref();
    await this.exited;
  }
}
