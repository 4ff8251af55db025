import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The web app's aliases (svelte.config.js), for the modules of web/ that node tests load directly.
  resolve: {
    alias: {
      $shared: fileURLToPath(new URL('./shared', import.meta.url)),
      $lib: fileURLToPath(new URL('./web/lib', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The benchmark harness's own tests run with the benchmarks' tools: `npm run bench:test`.
    exclude: ['test/bench/**', '**/node_modules/**'],
    environment: 'node',
    // The browser stories play whole rounds in Chromium: ~25 s on a quiet machine, up to ~80 s on two busy cores.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One file at a time: the browser tests and the child-process tests each want the machine's two cores.
    fileParallelism: false,
  },
});
