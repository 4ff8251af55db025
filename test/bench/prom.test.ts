// The bench's reading of the server's own delay histogram, against prom-client's text of known observations.
import { Histogram, Registry } from 'prom-client';
import { expect, test } from 'vitest';
import { between, bucketsOf, histogramQuantile, shareWithin } from './prom.ts';

const histogram = () => {
  const registry = new Registry();
  const h = new Histogram({ name: 'd_seconds', help: 'd', buckets: [0.05, 0.1, 0.2, 0.5], registers: [registry] });
  return { h, scrape: () => registry.metrics() };
};

test('a window is the difference of two scrapes; share and quantile read as histogram_quantile would', async () => {
  const { h, scrape } = histogram();
  for (let i = 0; i < 50; i++) h.observe(0.3); // before the window
  const before = bucketsOf(await scrape(), 'd_seconds');
  // In the window: 900 at 10–90 ms, 100 spread evenly over (100, 200] ms.
  for (let i = 0; i < 900; i++) h.observe(0.01 + (0.08 * i) / 899);
  for (let i = 1; i <= 100; i++) h.observe(0.1 + i / 1000);
  const w = between(before, bucketsOf(await scrape(), 'd_seconds'));

  expect(w.at(-1)).toEqual([Infinity, 1000]);
  expect(shareWithin(w, 0.1)).toBe(0.9);
  // p99: rank 990, 90 of the 100 in (0.1, 0.2] → 0.19.
  expect(histogramQuantile(w, 0.99)).toBeCloseTo(0.19, 10);
  expect(histogramQuantile(w, 0.5)).toBeLessThanOrEqual(0.1);
  expect(() => shareWithin(w, 0.15)).toThrow(/not a bucket bound/);
});

test('beyond the last bound a quantile says only "more than it"; an empty window has none', async () => {
  const { h, scrape } = histogram();
  const before = bucketsOf(await scrape(), 'd_seconds');
  expect(histogramQuantile(between(before, before), 0.99)).toBeNaN();
  for (let i = 0; i < 10; i++) h.observe(2);
  const text = await scrape();
  expect(histogramQuantile(between(before, bucketsOf(text, 'd_seconds')), 0.99)).toBe(0.5);
  expect(() => bucketsOf(text, 'other_seconds')).toThrow(/no histogram other_seconds/);
});

test('a histogram with a label: each series read alone', async () => {
  const registry = new Registry();
  const h = new Histogram({
    name: 'p_seconds',
    help: 'p',
    labelNames: ['phase'],
    buckets: [0.01, 0.1],
    registers: [registry],
  });
  for (let i = 0; i < 3; i++) h.observe({ phase: 'store' }, 0.05);
  h.observe({ phase: 'send' }, 0.005);
  const text = await registry.metrics();
  expect(bucketsOf(text, 'p_seconds', 'phase="store"')).toEqual([
    [0.01, 0],
    [0.1, 3],
    [Infinity, 3],
  ]);
  expect(bucketsOf(text, 'p_seconds', 'phase="send"')).toEqual([
    [0.01, 1],
    [0.1, 1],
    [Infinity, 1],
  ]);
  expect(() => bucketsOf(text, 'p_seconds', 'phase="compute"')).toThrow(/no histogram p_seconds\{phase="compute"\}/);
});
