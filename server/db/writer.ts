// SQLite's writes on a thread of their own. A commit with synchronous=FULL waits for the disk (an fsync, a few
// milliseconds on a busy disk); on the event loop every other room's minute and every socket would wait with
// it. Here the main thread keeps its connection for reads and hands each transaction to a worker thread with a
// connection of its own; the commit resolves once the worker's transaction is durable, so "stored before seen"
// holds as before. While one transaction is on the disk the group committer (commit.ts) gathers the next, so
// the busier the server, the more room-minutes share one fsync.
import { Worker } from 'node:worker_threads';
import type { Write } from './writes.ts';

/** A transaction of write lists, or the health probe's write (health.ts). */
export type WriterRequest = { id: number; lists: readonly (readonly Write[])[] } | { id: number; probe: number };
export interface WriterReply {
  id: number;
  error?: { message: string; code?: string };
}

interface Pending {
  resolve(): void;
  reject(e: Error): void;
}

export class WriterThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  private closed = false;

  constructor(private readonly path: string) {
    // Started now, not at the first commit: loading the thread takes a moment.
    this.started().unref();
  }

  /** Applies every list in one transaction on the writer thread; resolves once it is stored. */
  commit(lists: readonly (readonly Write[])[]): Promise<void> {
    return this.ask((id) => ({ id, lists }));
  }

  /** The health probe's write, on the writer's connection (the one that holds the write lock). */
  probe(at: number): Promise<void> {
    return this.ask((id) => ({ id, probe: at }));
  }

  private ask(request: (id: number) => WriterRequest): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    const worker = this.started();
    const id = ++this.seq;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // The thread keeps the process alive only while it holds a request of ours.
      if (this.pending.size === 1) worker.ref();
      worker.postMessage(request(id));
    });
  }

  /** Waits for what was asked, then closes the writer's connection and ends its thread. */
  async close(): Promise<void> {
    this.closed = true;
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
    const worker = new Worker(new URL('./writer.boot.mjs', import.meta.url), { workerData: { path: this.path }, execArgv: [] });
    worker.on('message', (reply: WriterReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.error) p.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
      else p.resolve();
    });
    // A thread that dies fails what it held (nothing of it was acknowledged); the next commit starts another.
    const lost = (why: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const p of this.pending.values()) p.reject(why);
      this.pending.clear();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the database writer thread stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}
