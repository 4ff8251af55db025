import { describe, expect, it } from 'vitest';
import { pooledUsPerMessage } from './fanout.ts';

const run = (cpuSeconds: number, messages: number) => ({ server: { cpuSeconds }, messages });

describe("the limit's pooled CPU per snapshot", () => {
  it('is the runs’ CPU over their messages, each run weighed by what it delivered', () => {
    // 50, 60 and 40 µs a message; the last run delivered twice as many.
    expect(pooledUsPerMessage([run(1.0, 20_000), run(1.2, 20_000), run(1.6, 40_000)])).toBeCloseTo(47.5, 10);
  });

  it('counts a slow window in part where a median of three keeps one reading whole', () => {
    // 50, 52 and 80 µs: the median reads 52, the three windows together 60.67.
    const runs = [run(1.0, 20_000), run(1.04, 20_000), run(1.6, 20_000)];
    expect(pooledUsPerMessage(runs)).toBeCloseTo(182 / 3, 10);
  });
});
