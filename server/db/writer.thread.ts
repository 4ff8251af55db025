// The database writer thread (writer.ts): its own connection to the file, one transaction per request, the
// same writes as SqliteStore applies in the main thread, each with the request's number (the mark).
import { parentPort, workerData } from 'node:worker_threads';
import { leaveCheckpointsToThread } from './checkpointer.ts';
import { SqliteStore } from './sqlite.ts';
import { nameThisThread, THREAD_NAMES } from './thread-name.mjs';
import { MARK_WRITE, type WriterReply, type WriterRequest } from './writer.ts';

if (!parentPort)
  throw new Error('writer.thread.ts runs inside the writer thread (writer.boot.mjs), not on the main thread');
const port = parentPort;
nameThisThread(THREAD_NAMES.writer);
const { path, session } = workerData as { path: string; session: string };
const store = SqliteStore.open(path);
// Checkpoints are the checkpoint thread's (checkpointer.ts): this connection's own only if that one stops.
leaveCheckpointsToThread(store.db.$client);
const mark = store.db.$client.prepare(MARK_WRITE);

port.on('message', (msg: WriterRequest | 'close') => {
  if (msg === 'close') {
    void store.close().then(() => port.close());
    return;
  }
  let reply: WriterReply = { id: msg.id };
  const marked = () => void mark.run(session, msg.id);
  try {
    store.commitNow(msg.lists, marked);
  } catch (e) {
    const err = e as Error & { code?: unknown };
    reply = { id: msg.id, error: { message: err.message, code: typeof err.code === 'string' ? err.code : undefined } };
  }
  port.postMessage(reply);
});
