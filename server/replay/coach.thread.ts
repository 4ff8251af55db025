// The coach's thread: one team's search per message, answered with its result and CPU time.
import { parentPort } from 'node:worker_threads';
import { runCoachJob } from './coach-job.ts';
import type { CoachJob } from './coach.ts';

// Loaded only by coach.boot.mjs inside a Worker; anywhere else there is no one to answer.
if (!parentPort)
  throw new Error('coach.thread.ts runs inside the coach worker (coach.boot.mjs), not on the main thread');
const port = parentPort;

port.on('message', ({ id, job }: { id: number; job: CoachJob }) => {
  try {
    port.postMessage({ id, done: runCoachJob(job) });
  } catch (e) {
    port.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
});
