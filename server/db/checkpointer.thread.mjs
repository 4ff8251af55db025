// The checkpoint thread (checkpointer.ts): its own connection to the file, a PASSIVE checkpoint every `everyMs` and
// on request. It never writes a row, so its own automatic checkpoint is off.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { nameThisThread, THREAD_NAMES } from './thread-name.mjs';

const { path, everyMs, counts } = workerData;
nameThisThread(THREAD_NAMES.checkpoints);
// Shared with the main thread (checkpointer.ts, COUNT): read when an operator asks, no message per checkpoint.
const count = new Int32Array(counts);
const db = new Database(path);
// FULL: the log is synced before its frames are copied, and the database file after (as the writer's commits).
db.pragma('synchronous = FULL');
db.pragma('wal_autocheckpoint = 0');
const checkpoint = () => {
  const r = db.pragma('wal_checkpoint(PASSIVE)')[0];
  Atomics.add(count, 0, 1);
  Atomics.store(count, 2, r.log);
  Atomics.store(count, 3, r.log - r.checkpointed);
  Atomics.store(count, 4, 0);
  return r;
};

const timer = setInterval(() => {
  try {
    checkpoint();
  } catch (e) {
    Atomics.add(count, 1, 1);
    Atomics.store(count, 4, 1);
    parentPort.postMessage({ failed: e instanceof Error ? e.message : String(e) });
  }
}, everyMs);

parentPort.on('message', (msg) => {
  if (msg === 'close') {
    clearInterval(timer);
    db.close();
    parentPort.close();
    return;
  }
  try {
    parentPort.postMessage({ id: msg.id, result: checkpoint() });
  } catch (e) {
    parentPort.postMessage({ id: msg.id, error: e instanceof Error ? e.message : String(e) });
  }
});
