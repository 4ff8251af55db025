// `npm run bench:test`: the benchmark harness's own tests (the native receiver in C, pinning with taskset, the
// /proc readings, the pooled figures, the Prometheus reader), kept out of `npm test`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/bench/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
