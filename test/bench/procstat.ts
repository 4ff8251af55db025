// CPU and memory of another process, sampled from /proc (Linux).
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // _SC_CLK_TCK on Linux

/** User and system CPU of a `/proc/…/stat` line (a process's or a thread's), each in seconds. */
function statTimes(stat: string): { user: number; system: number } {
  // Fields after the command name (which may hold spaces) start at index 2 of the rest.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(rest[11]) / TICKS_PER_SECOND, system: Number(rest[12]) / TICKS_PER_SECOND };
}

/** User and system CPU of a `/proc/…/stat` line together, in seconds. */
export function statCpuSeconds(stat: string): number {
  const t = statTimes(stat);
  return t.user + t.system;
}

export function cpuSeconds(pid: number): number {
  return statCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** Where a process's CPU went, in seconds: its main thread (user and system) and all its other threads. */
export interface ThreadSplit {
  mainUser: number;
  mainSystem: number;
  others: number;
}

/** Each thread's CPU now, by thread id (the main thread's id is the process's). */
function threadTimes(pid: number): Map<number, { user: number; system: number }> {
  const out = new Map<number, { user: number; system: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(tid), statTimes(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

/**
 * The CPU of each thread between two readings. Other threads are V8's helpers (the collector's parallel and
 * concurrent work, compilation) and the process's own workers (Opsroom's database writer); one that started
 * in between counts from zero, one that ended is not counted.
 */
function splitBetween(pid: number, a: ReturnType<typeof threadTimes>, b: ReturnType<typeof threadTimes>): ThreadSplit {
  const out: ThreadSplit = { mainUser: 0, mainSystem: 0, others: 0 };
  for (const [tid, t] of b) {
    const t0 = a.get(tid) ?? { user: 0, system: 0 };
    if (tid === pid) {
      out.mainUser = t.user - t0.user;
      out.mainSystem = t.system - t0.system;
    } else out.others += t.user + t.system - t0.user - t0.system;
  }
  return out;
}

export function rssMB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) / 1024 : NaN;
}

export interface Sampler {
  /** Starts the measured window now. */
  mark(): void;
  stop(): {
    cpuPercent: number;
    cpuSeconds: number;
    /** The window's CPU by thread. */
    threads: ThreadSplit;
    rssMaxMB: number;
    rssEndMB: number;
    samples: { t: number; rssMB: number }[];
  };
}

export function sampleProcess(pid: number, everyMs = 1000): Sampler {
  let t0 = Date.now();
  let c0 = cpuSeconds(pid);
  let th0 = threadTimes(pid);
  const samples: { t: number; rssMB: number }[] = [];
  let marked = false;
  // Unreferenced, and stopped once the process is gone: a sampler of a process killed mid-run (the failover
  // bench) is never stopped, and its timer kept the bench from exiting after its last line.
  const timer = setInterval(() => {
    try {
      if (marked) samples.push({ t: (Date.now() - t0) / 1000, rssMB: rssMB(pid) });
    } catch {
      clearInterval(timer); // The process ended.
    }
  }, everyMs).unref();
  return {
    mark() {
      t0 = Date.now();
      c0 = cpuSeconds(pid);
      th0 = threadTimes(pid);
      marked = true;
    },
    stop() {
      clearInterval(timer);
      const wall = (Date.now() - t0) / 1000;
      const cpu = cpuSeconds(pid) - c0;
      const threads = splitBetween(pid, th0, threadTimes(pid));
      const end = rssMB(pid);
      samples.push({ t: wall, rssMB: end });
      return {
        cpuPercent: (100 * cpu) / wall,
        cpuSeconds: cpu,
        threads,
        rssMaxMB: Math.max(...samples.map((s) => s.rssMB)),
        rssEndMB: end,
        samples,
      };
    },
  };
}
