// What a bench server reports about itself over the measured window, driven by its parent (fanout.ts):
// - {"do":"measure"} on stdin starts the window, {"do":"report"} ends it and prints {"probe": {...}}: the event
//   loop's delay (p50, p99, max, beyond the sampling interval), its longest stand-stills split into the main thread's
//   time on a core, waiting for one and in collections, and the garbage collections (count and total and
//   longest pause, by kind) — what a late minute waited for — and, where the server has its own metrics, their
//   minutes' delay from due to broadcast over the same window (what the server did, apart from the generators),
//   with the p99 of its parts (the timer's lag behind its plan, the tick from its timer to its sends, and one
//   transaction);
// - with CPU_PROFILE_DIR set, the first SIGUSR2 starts V8's CPU profiler and the second writes
//   DIR/<name>-<pid>.cpuprofile and prints {"profiled": path} (the bench's `--cpu-prof DIR`: the measured
//   window only, unlike `node --cpu-prof`).
import { Session } from 'node:inspector';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver, constants } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { schedstatOf } from '../procstat.ts';
import { between, bucketsOf, histogramQuantile, shareWithin } from '../prom.ts';

const RESOLUTION_MS = 10;
const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak',
};

export interface ProbeReport {
  loopDelayMs: { p50: number; p99: number; max: number };
  gc: Record<string, { count: number; totalMs: number; maxMs: number }>;
  /**
   * Opsroom's played minutes in the window, from due to broadcast at the server (opsroom_minute_delay_seconds), and
   * the p99 of its parts over the same window: how late a minute's timer fired against its plan, the tick from the
   * timer to its sends, and one transaction.
   */
  minuteDelay?: { count: number; p99Ms: number; within100Ms: number; parts: Record<Part, number> };
  /**
   * The loop's longest stand-stills in the window (a 10-ms timer that came 40 ms or more late), each split by the
   * main thread's own counters (/proc/thread-self/schedstat): ran (on a core: JavaScript, collection, syscalls),
   * waited (runnable, for a core) and the rest (asleep: blocked in the kernel, or the loop idle) — and the
   * collections' pause that fell inside it. The longest five, longest first.
   */
  stalls: Stall[];
  /** process.memoryUsage() at the end of the window, in MB. */
  memoryMB: { rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number };
}

export interface Stall {
  ms: number;
  ranMs: number;
  waitedMs: number;
  gcMs: number;
}

/** The calling thread's time on a core and waiting for one, in ns; null where the kernel does not say. */
function schedstat(): { ranNs: number; waitedNs: number } | null {
  try {
    return schedstatOf(readFileSync('/proc/thread-self/schedstat', 'utf8'));
  } catch {
    return null;
  }
}

const STALL_MS = 40;
const STALLS_KEPT = 5;

/** Samples the main thread's schedstat every RESOLUTION_MS and keeps the longest gaps between samples. */
function stallWatch(gcPauses: Array<[number, number]>) {
  const stalls: Array<Stall & { at: number }> = [];
  let last = schedstat();
  let lastAt = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const cur = schedstat();
    const gap = now - lastAt - RESOLUTION_MS;
    if (last && cur && gap >= STALL_MS) {
      stalls.push({
        ms: now - lastAt,
        ranMs: (cur.ranNs - last.ranNs) / 1e6,
        waitedMs: (cur.waitedNs - last.waitedNs) / 1e6,
        gcMs: 0,
        at: lastAt,
      });
      stalls.sort((a, b) => b.ms - a.ms);
      stalls.length = Math.min(stalls.length, STALLS_KEPT);
    }
    last = cur;
    lastAt = now;
  }, RESOLUTION_MS);
  return () => {
    clearInterval(timer);
    return stalls.map(({ at, ...s }) => {
      // A pause's share of the stall: its overlap with [at, at + ms].
      const gcMs = gcPauses.reduce(
        (t, [start, d]) => t + Math.max(0, Math.min(start + d, at + s.ms) - Math.max(start, at)),
        0,
      );
      const r = (x: number) => Math.round(x * 10) / 10;
      return { ms: r(s.ms), ranMs: r(s.ranMs), waitedMs: r(s.waitedMs), gcMs: r(gcMs) };
    });
  };
}

const print = (msg: object) => process.stdout.write(`${JSON.stringify(msg)}\n`);

const DELAY = 'opsroom_minute_delay_seconds';
/** The histograms of a minute's parts, each as [name, label]. */
const PARTS = {
  /** How late the room's timer fired against the plan. */
  lag: ['opsroom_tick_lag_seconds'],
  /** From the timer to the minute sent: the wait for the room's turn, the step, the commit, the sends. */
  tick: ['opsroom_tick_duration_seconds'],
  /** One transaction (the group commit of a turn). */
  commit: ['opsroom_commit_duration_seconds'],
} as const;
type Part = keyof typeof PARTS;
const p99Ms = (before: string, after: string, [name, label]: readonly string[]) =>
  1000 * histogramQuantile(between(bucketsOf(before, name, label), bucketsOf(after, name, label)), 0.99);

/** `scrape`: the server's /metrics text, read at the window's start and end. */
export function probeServer(name: string, scrape?: () => Promise<string>): void {
  let scrapedBefore: Promise<string> | null = null;
  const loop = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  let gc: ProbeReport['gc'] = {};
  let gcPauses: Array<[number, number]> = [];
  let stopStalls: (() => Stall[]) | null = null;
  const gcs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = GC_KINDS[(e as unknown as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
      gc[kind] ??= { count: 0, totalMs: 0, maxMs: 0 };
      const k = gc[kind];
      k.count++;
      k.totalMs += e.duration;
      k.maxMs = Math.max(k.maxMs, e.duration);
      gcPauses.push([e.startTime, e.duration]);
    }
  });
  // The delay histogram holds the intervals between samples: what exceeds the resolution is the delay.
  const delay = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  createInterface({ input: process.stdin }).on('line', (line) => {
    const cmd = JSON.parse(line) as { do: 'measure' | 'report' };
    if (cmd.do === 'measure') {
      gc = {};
      gcPauses = [];
      stopStalls = stallWatch(gcPauses);
      loop.reset();
      loop.enable();
      gcs.observe({ entryTypes: ['gc'] });
      scrapedBefore = scrape ? scrape() : null;
    } else if (cmd.do === 'report') {
      loop.disable();
      gcs.disconnect();
      const stalls = stopStalls?.() ?? [];
      const m = process.memoryUsage();
      const mb = (b: number) => Math.round(b / 2 ** 20);
      const memoryMB = {
        rss: mb(m.rss),
        heapUsed: mb(m.heapUsed),
        heapTotal: mb(m.heapTotal),
        external: mb(m.external),
        arrayBuffers: mb(m.arrayBuffers),
      };
      const report: ProbeReport = {
        loopDelayMs: { p50: delay(loop.percentile(50)), p99: delay(loop.percentile(99)), max: delay(loop.max) },
        gc,
        stalls,
        memoryMB,
      };
      if (!scrape || !scrapedBefore) return print({ probe: report });
      // A scrape that fails leaves the figure out, not the report: the parent waits for it.
      void Promise.all([scrapedBefore, scrape()])
        .then(([before, text]) => {
          const window = between(bucketsOf(before, DELAY), bucketsOf(text, DELAY));
          report.minuteDelay = {
            count: window.at(-1)?.[1] ?? 0,
            p99Ms: 1000 * histogramQuantile(window, 0.99),
            within100Ms: shareWithin(window, 0.1),
            parts: {
              lag: p99Ms(before, text, PARTS.lag),
              tick: p99Ms(before, text, PARTS.tick),
              commit: p99Ms(before, text, PARTS.commit),
            },
          };
        })
        .catch((err: unknown) => process.stderr.write(`probe: no minute delays (${String(err)})\n`))
        .finally(() => print({ probe: report }));
    }
  });

  const dir = process.env.CPU_PROFILE_DIR;
  if (!dir) return;
  const session = new Session();
  session.connect();
  let running = false;
  process.on('SIGUSR2', () => {
    if (!running) {
      running = true;
      session.post('Profiler.enable', () => session.post('Profiler.start'));
      return;
    }
    running = false;
    session.post('Profiler.stop', (err, res) => {
      const path = join(dir, `${name}-${process.pid}.cpuprofile`);
      if (!err) writeFileSync(path, JSON.stringify(res.profile));
      print({ profiled: err ? null : path });
    });
  });
}
