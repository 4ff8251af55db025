// The coach's thread: one team's search per message, answered with its result and CPU time.
import { parentPort } from 'node:worker_threads';
import { runCoachJob } from './coach-job.ts';
import type { CoachJob } from './coach.ts';

parentPort!.on('message', ({ id, job }: { id: number; job: CoachJob }) => {
  try {
    parentPort!.postMessage({ id, done: runCoachJob(job) });
  } catch (e) {
    parentPort!.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
});
