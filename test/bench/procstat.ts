// CPU and memory of a process (another, or this one), by thread too, read from /proc (Linux).
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // _SC_CLK_TCK on Linux

/** The fields of a `/proc/…/stat` line after the command name (which may hold spaces): the state first. */
const afterName = (stat: string): string[] => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

/**
 * User and system CPU of a `/proc/…/stat` line (a process's or a thread's), each in clock ticks: whole numbers,
 * so that a difference of two readings is exact (no -0 where nothing was spent).
 */
function statTicks(stat: string): { user: number; system: number } {
  const rest = afterName(stat);
  return { user: Number(rest[11]), system: Number(rest[12]) };
}

/** The name of a `/proc/…/stat` line's process or thread (its `comm`, between the parentheses). */
const nameOf = (stat: string): string => stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));

/** Threads that name themselves `opsroom-…` are reported apart, by name (the server starts none today). */
const OWN_THREAD = /^opsroom-/;

/** A process's user and system CPU together, in seconds. */
export function cpuSeconds(pid: number): number {
  const t = statTicks(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return (t.user + t.system) / TICKS_PER_SECOND;
}

/**
 * A process's minor page faults so far, all its threads together (`minflt` of `/proc/<pid>/stat`): each the first
 * touch of a page the kernel had not yet given it.
 */
export function minorFaults(pid: number): number {
  return Number(afterName(readFileSync(`/proc/${pid}/stat`, 'utf8'))[7]);
}

/** Where a process's CPU went, in seconds: its main thread (user and system) and all its other threads. */
export interface ThreadSplit {
  mainUser: number;
  mainSystem: number;
  others: number;
  /** Of `others`, each thread that names itself (`opsroom-…`), by its name. */
  named: Record<string, number>;
  /** Of `named`, the kernel's part (system time): its system calls. */
  namedSystem: Record<string, number>;
}

/** One reading per thread of a process, by thread id, from `/proc/<pid>/task/<tid>/<file>`. */
function perThread<T>(pid: number, file: string, read: (text: string) => T): Map<number, T> {
  const out = new Map<number, T>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(tid), read(readFileSync(`/proc/${pid}/task/${tid}/${file}`, 'utf8')));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

/** Each thread's CPU now in clock ticks and its name, by thread id (the main thread's id is the process's): for splitBetween. */
export function threadTimes(pid: number): Map<number, { user: number; system: number; name: string }> {
  return perThread(pid, 'stat', (stat) => ({ ...statTicks(stat), name: nameOf(stat) }));
}

/**
 * A thread's `schedstat` line: nanoseconds on a CPU, nanoseconds runnable but waiting for one (on a run queue
 * behind other threads), and how many times it ran.
 */
export function schedstatOf(text: string): { ranNs: number; waitedNs: number } {
  const [ran, waited] = text.trim().split(' ').map(Number);
  if (!Number.isFinite(ran) || !Number.isFinite(waited)) throw new Error(`not a schedstat line: ${text}`);
  return { ranNs: ran, waitedNs: waited };
}

/**
 * Each thread's time on a CPU now in nanoseconds, by thread id, from the scheduler's own clock
 * (`/proc/…/task/…/schedstat`): exact where the ticks of `threadTimes` are a sample, one every 4 ms here, that a
 * load coming in bursts on a timer can alias. No split between user and system.
 */
export function threadRuntimes(pid: number): Map<number, number> {
  return perThread(pid, 'schedstat', (text) => schedstatOf(text).ranNs);
}

/**
 * Each thread's time so far runnable but not running, in nanoseconds, by thread id: what it waited for a core
 * while other threads (its own process's or another's) had them. On shared cores it tells contention apart from
 * work: a late minute whose threads waited is the machine's crowding, not the server's cost.
 */
export function threadWaits(pid: number): Map<number, number> {
  return perThread(pid, 'schedstat', (text) => schedstatOf(text).waitedNs);
}

/** What a process's threads waited for a core between two readings of `threadWaits`, in seconds. */
export interface WaitSplit {
  main: number;
  others: number;
}

export function waitsBetween(pid: number, a: Map<number, number>, b: Map<number, number>): WaitSplit {
  const out: WaitSplit = { main: 0, others: 0 };
  for (const [tid, ns] of b) {
    const d = (ns - (a.get(tid) ?? 0)) / 1e9;
    if (tid === pid) out.main = d;
    else out.others += d;
  }
  return out;
}

/**
 * The CPU of each thread between two readings, in seconds. Other threads are V8's helpers (the collector's parallel and
 * concurrent work, compilation) and the process's own workers (the hindsight coach's thread); one that started
 * in between counts from zero, one that ended is not counted.
 */
export function splitBetween(
  pid: number,
  a: ReturnType<typeof threadTimes>,
  b: ReturnType<typeof threadTimes>,
): ThreadSplit {
  const ticks = { mainUser: 0, mainSystem: 0, others: 0 };
  const named: Record<string, number> = {};
  const namedSystem: Record<string, number> = {};
  for (const [tid, t] of b) {
    const t0 = a.get(tid) ?? { user: 0, system: 0 };
    const spent = t.user + t.system - t0.user - t0.system;
    if (tid === pid) {
      ticks.mainUser = t.user - t0.user;
      ticks.mainSystem = t.system - t0.system;
      continue;
    }
    ticks.others += spent;
    if (!OWN_THREAD.test(t.name)) continue;
    named[t.name] = (named[t.name] ?? 0) + spent / TICKS_PER_SECOND;
    namedSystem[t.name] = (namedSystem[t.name] ?? 0) + (t.system - t0.system) / TICKS_PER_SECOND;
  }
  return {
    mainUser: ticks.mainUser / TICKS_PER_SECOND,
    mainSystem: ticks.mainSystem / TICKS_PER_SECOND,
    others: ticks.others / TICKS_PER_SECOND,
    named,
    namedSystem,
  };
}

/** The CPUs this process may run on, from Linux's list ("0-3,6" → [0, 1, 2, 3, 6]). */
export function allowedCpus(status = readFileSync('/proc/self/status', 'utf8')): number[] {
  const list = /Cpus_allowed_list:\s*(\S+)/.exec(status)?.[1];
  if (!list) throw new Error('--pin needs Linux: /proc/self/status has no Cpus_allowed_list');
  return list.split(',').flatMap((part) => {
    const [a, b = a] = part.split('-').map(Number);
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });
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
    /** The window's length in seconds, as this sampler timed it. */
    wallSeconds: number;
    /** Minor page faults in the window. */
    minorFaults: number;
    /** The window's CPU by thread. */
    threads: ThreadSplit;
    /** What the process's threads waited for a core in the window (seconds; schedstat, Linux). */
    waited: WaitSplit;
    rssMaxMB: number;
    rssEndMB: number;
    samples: { t: number; rssMB: number }[];
  };
}

export function sampleProcess(pid: number, everyMs = 1000): Sampler {
  let t0 = Date.now();
  let c0 = cpuSeconds(pid);
  let f0 = minorFaults(pid);
  let th0 = threadTimes(pid);
  let w0 = threadWaits(pid);
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
      f0 = minorFaults(pid);
      th0 = threadTimes(pid);
      w0 = threadWaits(pid);
      marked = true;
    },
    stop() {
      clearInterval(timer);
      const wall = (Date.now() - t0) / 1000;
      const cpu = cpuSeconds(pid) - c0;
      const faults = minorFaults(pid) - f0;
      const threads = splitBetween(pid, th0, threadTimes(pid));
      const waited = waitsBetween(pid, w0, threadWaits(pid));
      const end = rssMB(pid);
      samples.push({ t: wall, rssMB: end });
      return {
        cpuPercent: (100 * cpu) / wall,
        cpuSeconds: cpu,
        wallSeconds: wall,
        minorFaults: faults,
        threads,
        waited,
        rssMaxMB: Math.max(...samples.map((s) => s.rssMB)),
        rssEndMB: end,
        samples,
      };
    },
  };
}

/** The named threads' CPU of several processes (ThreadSplit's `named`) added up, by name. */
export function sumNamed(all: readonly Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of all) for (const [name, seconds] of Object.entries(r)) out[name] = (out[name] ?? 0) + seconds;
  return out;
}
