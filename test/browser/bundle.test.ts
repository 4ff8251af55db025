// The student desk's JavaScript budget: everything /play/[code] loads, gzipped, at most 152 KB (150 KB
// before issue 11's full shifts added their words in six languages to the heavier simulator's chunk; the
// desk loading only the reader's language — issue 14 — is the real cut).
import { expect, test } from 'vitest';
import { formatReport, measureRoute } from '../bench/bundle.ts';
import { assertBuilt } from './helpers.ts';

const BUDGET_KB = 152;

test(`the student desk loads at most ${BUDGET_KB} KB of gzipped JavaScript`, () => {
  assertBuilt();
  const report = measureRoute('/play/[code]');
  console.log(formatReport(report, BUDGET_KB));
  // The route really carries its pieces: the Svelte app, socket.io, chart.js.
  expect(report.files.length).toBeGreaterThan(3);
  expect(report.totalGzip).toBeLessThanOrEqual(BUDGET_KB * 1024);
});
