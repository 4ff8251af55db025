// SQLite's writes on a thread of their own. A commit with synchronous=FULL waits for the disk (an fsync, a few
// milliseconds on a busy disk); on the event loop every other room's minute and every socket would wait with
// it. Here the main thread keeps its connection for reads and hands each transaction to a worker thread with a
// connection of its own; the commit resolves once the worker's transaction is durable, so "stored before seen"
// holds as before. While one transaction is on the disk the group committer (commit.ts) gathers the next, so
// the busier the server, the more room-minutes share one fsync.
//
// One request is on the thread at a time, and each transaction also writes its request's number (the mark):
// should the thread die before its answer arrives, the mark read on the main connection tells whether that
// transaction was stored. Nothing stored is reported failed, nothing failed is reported stored.
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { Write } from './writes.ts';

export interface WriterRequest {
  id: number;
  lists: readonly (readonly Write[])[];
}
export interface WriterReply {
  id: number;
  error?: { message: string; code?: string };
}

/** The last request a writer thread stored, written in the same transaction (one row; created by the thread). */
export const MARK_TABLE =
  'CREATE TABLE IF NOT EXISTS writer_mark (id INTEGER PRIMARY KEY CHECK (id = 1), session TEXT NOT NULL, seq INTEGER NOT NULL)';
export const MARK_WRITE =
  'INSERT INTO writer_mark (id, session, seq) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET session = excluded.session, seq = excluded.seq';
export const MARK_READ = 'SELECT session, seq FROM writer_mark WHERE id = 1';
export interface WriterMark {
  session: string;
  seq: number;
}

interface Asked {
  request: WriterRequest;
  resolve(): void;
  reject(e: Error): void;
}

export class WriterThread {
  private worker: Worker | null = null;
  /** The request on the thread now, and those waiting for it. */
  private current: Asked | null = null;
  private readonly queue: Asked[] = [];
  private seq = 0;
  private closed = false;
  private readonly session = randomUUID();
  private drained: (() => void) | null = null;

  constructor(
    private readonly path: string,
    /** The mark as the main connection reads it (undefined: none yet). */
    private readonly readMark: () => WriterMark | undefined,
  ) {
    // Started now, not at the first commit: loading the thread takes a moment.
    this.started().unref();
  }

  /** Applies every list in one transaction on the writer thread; resolves once it is stored. */
  commit(lists: readonly (readonly Write[])[]): Promise<void> {
    return this.ask((id) => ({ id, lists }));
  }

  private ask(request: (id: number) => WriterRequest): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ request: request(++this.seq), resolve, reject });
      this.next();
    });
  }

  /** Hands the next request to the thread, if it holds none. */
  private next(): void {
    if (this.current) return;
    const asked = this.queue.shift();
    if (!asked) {
      this.worker?.unref();
      this.drained?.();
      return;
    }
    const worker = this.started();
    this.current = asked;
    // The thread keeps the process alive only while it holds a request of ours.
    worker.ref();
    worker.postMessage(asked.request);
  }

  /** Waits for what was asked, then closes the writer's connection and ends its thread. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.current || this.queue.length) await new Promise<void>((r) => (this.drained = r));
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((r) => worker.once('exit', () => r()));
    worker.postMessage('close');
    worker.ref();
    await exited;
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    // execArgv [] and a plain-JavaScript entry that loads tsx itself: the same in the server, a bench or a test run.
    const worker = new Worker(new URL('./writer.boot.mjs', import.meta.url), {
      workerData: { path: this.path, session: this.session },
      execArgv: [],
    });
    worker.on('message', (reply: WriterReply) => {
      const asked = this.current;
      if (!asked || asked.request.id !== reply.id) return;
      this.current = null;
      if (reply.error) asked.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
      else asked.resolve();
      this.next();
    });
    // A thread that dies: the request it held was stored if the mark says so, and failed otherwise; those
    // waiting were never tried and fail (nothing of them was stored). The next request starts another thread.
    const lost = (why: Error) => {
      if (this.worker !== worker) return;
      this.worker = null;
      const asked = this.current;
      this.current = null;
      if (asked) {
        let mark: WriterMark | undefined;
        try {
          mark = this.readMark();
        } catch {
          mark = undefined;
        }
        if (mark?.session === this.session && mark.seq === asked.request.id) asked.resolve();
        else asked.reject(why);
      }
      for (const w of this.queue.splice(0)) w.reject(why);
      this.drained?.();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the database writer thread stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}
