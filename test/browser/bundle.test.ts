// The student desk's JavaScript budget: everything /play/[code] loads, gzipped, at most 100 KB —
// in the heaviest language, with the heavier simulator.
import { expect, test } from 'vitest';
import { formatReport, measureRoute } from '../bench/bundle.ts';
import { assertBuilt } from './helpers.ts';

const BUDGET_KB = 100;

test(`the student desk loads at most ${BUDGET_KB} KB of gzipped JavaScript`, () => {
  assertBuilt();
  const report = measureRoute('/play/[code]');
  console.log(formatReport(report, BUDGET_KB));
  // The route really carries its pieces: the Svelte app and socket.io up front; six languages and
  // two simulators on demand, one of each counted.
  expect(report.files.length).toBeGreaterThan(3);
  expect(report.onDemand.filter((d) => d.kind === 'language')).toHaveLength(6);
  expect(report.onDemand.filter((d) => d.kind === 'module').length).toBeGreaterThanOrEqual(2);
  expect(report.totalGzip).toBeLessThanOrEqual(BUDGET_KB * 1024);
  // The other pages' words (teacher, projector, replay, model pages) are a pack of their own that the
  // desk never loads; the teacher's dashboard does.
  expect(report.onDemand.filter((d) => d.kind === 'language-more')).toHaveLength(6);
  const teacher = measureRoute('/teacher/[code]');
  const more = Math.max(...teacher.onDemand.filter((d) => d.kind === 'language-more').map((d) => d.gzip));
  expect(teacher.totalGzip).toBeGreaterThanOrEqual(teacher.staticGzip + more);
});
