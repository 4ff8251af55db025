// The benchmarks' page-fault figures: a process's count read from /proc, and what a first touch costs here.
import { describe, expect, it } from 'vitest';
import { minorFaults } from './procstat.ts';
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
