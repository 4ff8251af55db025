// The benchmarks' page-fault figures: a process's count read from /proc, and what a first touch costs here; and
// what a process's threads ran and waited for a core, from the scheduler's own counts.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import {
  minorFaults,
  sampleProcess,
  schedstatOf,
  splitBetween,
  sumNamed,
  threadWaits,
  waitsBetween,
} from './procstat.ts';
import { firstTouchCost } from './stats.ts';

describe('page faults', () => {
  it("reads a process's minor faults from /proc, as the kernel counts them for it", () => {
    const f0 = minorFaults(process.pid);
    const r0 = process.resourceUsage().minorPageFault;
    const bytes = new Uint8Array(16 * 2 ** 20);
    for (let at = 0; at < bytes.length; at += 4096) bytes[at] = 1;
    const fromProc = minorFaults(process.pid) - f0;
    const fromRusage = process.resourceUsage().minorPageFault - r0;
    expect(fromProc).toBeGreaterThan(0);
    // The same counter read two ways; the process's other threads may fault in between.
    expect(Math.abs(fromProc - fromRusage)).toBeLessThanOrEqual(0.05 * fromRusage + 50);
  });

  it('times the first touch of fresh pages: at most one fault a page, each a positive time', () => {
    const cost = firstTouchCost(16);
    expect(cost.faultsPerPage).toBeGreaterThan(0);
    // Huge pages (where the kernel gives them unasked) take one fault for 512 pages; never more than one a page.
    expect(cost.faultsPerPage).toBeLessThanOrEqual(1.05);
    expect(cost.usPerFault).toBeGreaterThan(0);
    expect(Number.isFinite(cost.usPerFault)).toBe(true);
  });
});

describe('CPU by thread', () => {
  it("splits a window's CPU: the main thread, the others, and of those the threads that name themselves (and their kernel's part)", () => {
    const t = (user: number, system: number, name = 'node') => ({ user, system, name });
    const a = new Map([
      [100, t(10, 5)],
      [101, t(1, 1, 'opsroom-writer')],
      [102, t(0, 0)],
      [104, t(3, 3, 'opsroom-writer')],
    ]);
    // 103 started in the window (counted from zero); 104 ended in it (not in `b`, not counted).
    const b = new Map([
      [100, t(60, 25)],
      [101, t(31, 11, 'opsroom-writer')],
      [102, t(7, 3)],
      [103, t(5, 0, 'opsroom-checkpt')],
    ]);
    expect(splitBetween(100, a, b)).toEqual({
      mainUser: 0.5,
      mainSystem: 0.2,
      others: 0.55,
      named: { 'opsroom-writer': 0.4, 'opsroom-checkpt': 0.05 },
      namedSystem: { 'opsroom-writer': 0.1, 'opsroom-checkpt': 0 },
    });
    expect(sumNamed([{ 'opsroom-writer': 0.4 }, { 'opsroom-writer': 0.1, 'opsroom-checkpt': 0.05 }, {}])).toEqual({
      'opsroom-writer': 0.5,
      'opsroom-checkpt': 0.05,
    });
  });
});

describe('time waiting for a core', () => {
  it('reads a schedstat line: time on a CPU, then time runnable but waiting; anything else is refused', () => {
    expect(schedstatOf('1830000123 45000007 812\n')).toEqual({ ranNs: 1830000123, waitedNs: 45000007 });
    expect(() => schedstatOf('')).toThrow(/not a schedstat line/);
    expect(() => schedstatOf('12')).toThrow(/not a schedstat line/);
  });

  it('splits the waits of a window between the main thread and the others, counting a new thread from zero', () => {
    const pid = 100;
    const a = new Map([
      [100, 1e9],
      [101, 2e9],
    ]);
    const b = new Map([
      [100, 1.5e9],
      [101, 2.25e9],
      [102, 0.1e9],
    ]);
    expect(waitsBetween(pid, a, b)).toEqual({ main: 0.5, others: 0.35 });
  });

  it("counts this process's threads: more busy threads than cores make some wait", async () => {
    const cores = Math.max(1, availableParallelism());
    const before = threadWaits(process.pid);
    const sampler = sampleProcess(process.pid);
    sampler.mark();
    // Each worker spins for 250 ms of the clock, says so, and spins on until told to stop: all are still there,
    // runnable, when their waits are read.
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const spin = `
      const { parentPort, workerData } = require('node:worker_threads');
      const end = Date.now() + 250;
      while (Date.now() < end) {}
      parentPort.postMessage('spun');
      while (Atomics.load(workerData, 0) === 0) {}`;
    const workers = Array.from({ length: cores + 2 }, () => new Worker(spin, { eval: true, workerData: stop }));
    await Promise.all(workers.map((w) => new Promise((r) => w.once('message', r))));
    const during = threadWaits(process.pid);
    Atomics.store(stop, 0, 1);
    await Promise.all(workers.map((w) => new Promise((r) => w.once('exit', r))));
    const window = sampler.stop();

    let workersWaited = 0;
    for (const [tid, ns] of during) if (!before.has(tid)) workersWaited += ns / 1e9;
    // cores + 2 threads busy for at least 250 ms on `cores` cores: together they waited about 2 × 250 ms.
    expect(workersWaited).toBeGreaterThan(0.05);
    expect(window.waited.main).toBeGreaterThanOrEqual(0);
    expect(window.wallSeconds).toBeGreaterThan(0.2);
  });
});
