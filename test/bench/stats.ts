// Small statistics and machine facts for the benchmark reports.
import { cpus, totalmem } from 'node:os';

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

export function summary(values: readonly number[]): {
  n: number;
  median: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
} {
  const s = [...values].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return {
    n: s.length,
    median: quantile(s, 0.5),
    p95: quantile(s, 0.95),
    p99: quantile(s, 0.99),
    max: s[s.length - 1] ?? NaN,
    mean,
  };
}

export function machine(): string {
  const c = cpus();
  return `${c[0]?.model ?? 'unknown CPU'} × ${c.length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}`;
}

/**
 * What this machine charges for the first touch of a fresh page of memory (a minor page fault): the median, in µs, of
 * three buffers of `mb` MB allocated and written one byte per page. A large zero-filled buffer is mapped fresh and left
 * untouched, so each write takes one fault. With the servers' faults a second (each limit line), it says what fresh
 * pages cost a server on this machine.
 */
export function firstTouchCost(mb = 64): { usPerFault: number; faultsPerPage: number } {
  const page = 4096;
  const runs: { us: number; faults: number; pages: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const bytes = new Uint8Array(mb * 2 ** 20);
    const f0 = process.resourceUsage().minorPageFault;
    const t0 = process.hrtime.bigint();
    for (let at = 0; at < bytes.length; at += page) bytes[at] = 1;
    const ns = Number(process.hrtime.bigint() - t0);
    runs.push({ us: ns / 1000, faults: process.resourceUsage().minorPageFault - f0, pages: bytes.length / page });
  }
  const perFault = runs.map((r) => r.us / Math.max(1, r.faults)).sort((a, b) => a - b);
  return {
    usPerFault: perFault[1],
    faultsPerPage: runs.reduce((a, r) => a + r.faults, 0) / runs.reduce((a, r) => a + r.pages, 0),
  };
}

export const fmt = (x: number, digits = 1) => x.toFixed(digits);

/** Latencies in whole milliseconds, counted per millisecond: cheap to add, to send between processes and to merge. */
export class Histogram {
  private counts = new Map<number, number>();
  n = 0;

  add(ms: number): void {
    const k = Math.max(0, Math.round(ms));
    this.counts.set(k, (this.counts.get(k) ?? 0) + 1);
    this.n++;
  }

  merge(other: Histogram): this {
    for (const [k, c] of other.counts) this.counts.set(k, (this.counts.get(k) ?? 0) + c);
    this.n += other.n;
    return this;
  }

  /** The smallest value with at least q of the values at or below it (NaN when empty). */
  quantile(q: number): number {
    if (this.n === 0) return NaN;
    const rank = Math.min(this.n, Math.max(1, Math.ceil(q * this.n)));
    let seen = 0;
    for (const k of [...this.counts.keys()].sort((a, b) => a - b)) {
      seen += this.counts.get(k)!;
      if (seen >= rank) return k;
    }
    return NaN;
  }

  max(): number {
    return this.n ? Math.max(...this.counts.keys()) : NaN;
  }

  summary(): { n: number; p50: number; p99: number; max: number } {
    return { n: this.n, p50: this.quantile(0.5), p99: this.quantile(0.99), max: this.max() };
  }

  toJSON(): [number, number][] {
    return [...this.counts];
  }

  static fromJSON(pairs: [number, number][]): Histogram {
    const h = new Histogram();
    for (const [k, c] of pairs) {
      h.counts.set(k, (h.counts.get(k) ?? 0) + c);
      h.n += c;
    }
    return h;
  }
}
