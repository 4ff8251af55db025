// Bench 7: what metrics cost. Recording: the calls one tick of a 30-team room makes (lag, commit wait, commit, 33
// messages, phases, duration), timed in a loop. Scraping: GET /metrics of a server with 200 rooms in memory
// (100 running), timed over HTTP, and the size of the answer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../server/app.ts';
import { PromMetrics } from '../../server/ops/prometheus.ts';
import { ManualClock } from '../../server/lib/clock.ts';
import { fmt, summary } from './stats.ts';

export async function benchMetrics(ticks = 200_000, rooms = 200, scrapes = 60) {
  const m = new PromMetrics();
  const oneTick = () => {
    m.tickLag(0.4);
    m.committed(2.1, 1);
    for (let t = 0; t < 30; t++) m.sent('minute', 4);
    m.sent('room:minute', 1);
    m.sent('summary', 1);
    m.sent('feed:summary', 2);
    m.tick(2.6);
  };
  for (let i = 0; i < 10_000; i++) oneTick();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < ticks; i++) oneTick();
  const perTickUs = Number(process.hrtime.bigint() - t0) / 1e3 / ticks;

  const dir = mkdtempSync(join(tmpdir(), 'opsroom-metrics-'));
  const clock = new ManualClock();
  const app = await buildApp({
    databasePath: join(dir, 'metrics.db'),
    clock,
    webRoot: null,
    roomLimits: { creations: { capacity: 1e6, refillPerSecond: 1e6 } },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/metrics`;
  try {
    for (let i = 0; i < rooms; i++) {
      const { code } = (
        await app.inject({ method: 'POST', url: '/api/rooms', payload: { teamCount: 4, tempo: 1 } })
      ).json();
      if (i % 2 === 0) await (await app.rooms.get(code)).dispatch({ type: 'clock', action: 'start' });
    }
    // Some history in the histograms, as after a while in production.
    for (let s = 0; s < 30; s++) {
      clock.advance(1000);
      await app.rooms.settled();
    }
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < scrapes + 5; i++) {
      const t = process.hrtime.bigint();
      const body = await (await fetch(url)).text();
      if (i >= 5) times.push(Number(process.hrtime.bigint() - t) / 1e6);
      bytes = Buffer.byteLength(body);
    }
    return { perTickUs, rooms, scrape: summary(times), bytes };
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function reportMetrics(r: Awaited<ReturnType<typeof benchMetrics>>): string {
  return [
    `recording: ${fmt(r.perTickUs, 1)} µs of metric calls per tick of a 30-team room (36 calls)`,
    `scrape of ${r.rooms} rooms (${r.rooms / 2} running): median ${fmt(r.scrape.median, 2)} ms, p95 ${fmt(r.scrape.p95, 2)} ms, max ${fmt(r.scrape.max, 2)} ms over HTTP; ${(r.bytes / 1024).toFixed(1)} KB of text`,
  ].join('\n');
}
