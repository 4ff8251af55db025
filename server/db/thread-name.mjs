// A thread's own name, as `top -H`, `ps -L` and `perf` show it: Node's worker threads are all "node" otherwise, and
// an operator (or the benchmark's per-thread CPU) could not tell the database writer from V8's helpers. Plain
// JavaScript: the checkpoint thread (checkpointer.thread.mjs) runs without tsx and names itself with it too.
import { writeFileSync } from 'node:fs';

/** The names Opsroom's own threads give themselves (at most 15 characters: the kernel's limit). */
export const THREAD_NAMES = Object.freeze({ writer: 'opsroom-writer', checkpoints: 'opsroom-checkpt' });

/**
 * Names the calling thread (Linux); elsewhere, or where /proc cannot be written, the thread keeps its name.
 * @param {string} name
 */
export function nameThisThread(name) {
  try {
    writeFileSync('/proc/thread-self/comm', name);
  } catch {
    // Not Linux, or /proc read-only: only the name is lost.
  }
}
