// A thread's own name, as `top -H`, `ps -L` and `perf` show it: Node's worker threads are all "node" otherwise, and
// an operator (or the benchmark's per-thread CPU) could not tell the database writer from V8's helpers.
import { writeFileSync } from 'node:fs';

/** The names Opsroom's own threads give themselves (at most 15 characters: the kernel's limit). */
export const THREAD_NAMES = { writer: 'opsroom-writer', checkpoints: 'opsroom-checkpt' } as const;

/** Names the calling thread (Linux); elsewhere, or where /proc cannot be written, the thread keeps its name. */
export function nameThisThread(name: string): void {
  try {
    writeFileSync('/proc/thread-self/comm', name);
  } catch {
    // Not Linux, or /proc read-only: only the name is lost.
  }
}
