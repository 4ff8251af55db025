// The database writer thread (writer.ts): its own connection to the file, one transaction per request, the
// same writes as SqliteStore applies in the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteStore } from './sqlite.ts';
import type { WriterReply, WriterRequest } from './writer.ts';

const port = parentPort!;
const store = SqliteStore.open((workerData as { path: string }).path);

port.on('message', (msg: WriterRequest | 'close') => {
  if (msg === 'close') {
    void store.close().then(() => port.close());
    return;
  }
  let reply: WriterReply = { id: msg.id };
  try {
    if ('probe' in msg) store.probeNow(msg.probe);
    else store.commitNow(msg.lists);
  } catch (e) {
    const err = e as Error & { code?: unknown };
    reply = { id: msg.id, error: { message: err.message, code: typeof err.code === 'string' ? err.code : undefined } };
  }
  port.postMessage(reply);
});
