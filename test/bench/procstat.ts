// CPU and memory of another process, sampled from /proc (Linux).
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // _SC_CLK_TCK on Linux

/** User and system CPU of a `/proc/…/stat` line (a process's or a thread's), in seconds. */
export function statCpuSeconds(stat: string): number {
  // Fields after the command name (which may hold spaces) start at index 2 of the rest.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / TICKS_PER_SECOND;
}

export function cpuSeconds(pid: number): number {
  return statCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
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
    rssMaxMB: number;
    rssEndMB: number;
    samples: { t: number; rssMB: number }[];
  };
}

export function sampleProcess(pid: number, everyMs = 1000): Sampler {
  let t0 = Date.now();
  let c0 = cpuSeconds(pid);
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
      marked = true;
    },
    stop() {
      clearInterval(timer);
      const wall = (Date.now() - t0) / 1000;
      const cpu = cpuSeconds(pid) - c0;
      const end = rssMB(pid);
      samples.push({ t: wall, rssMB: end });
      return {
        cpuPercent: (100 * cpu) / wall,
        cpuSeconds: cpu,
        rssMaxMB: Math.max(...samples.map((s) => s.rssMB)),
        rssEndMB: end,
        samples,
      };
    },
  };
}
