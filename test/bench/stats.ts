// Small statistics and machine facts for the benchmark reports.
import { cpus, totalmem } from 'node:os';

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

export function summary(values: readonly number[]): { n: number; median: number; p95: number; p99: number; max: number; mean: number } {
  const s = [...values].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return { n: s.length, median: quantile(s, 0.5), p95: quantile(s, 0.95), p99: quantile(s, 0.99), max: s[s.length - 1] ?? NaN, mean };
}

export function machine(): string {
  const c = cpus();
  return `${c[0]?.model ?? 'unknown CPU'} × ${c.length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}`;
}

export const fmt = (x: number, digits = 1) => x.toFixed(digits);
