// Bench 4: opening the replay of a finished 60-minute round of 10 teams over HTTP (target ≤ 50 ms
// median, ≤ 300 KB gzip). Cold: built from the database each time; warm: the cached finished round.
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../server/app.ts';
import { ManualClock } from '../../server/lib/clock.ts';
import { fmt, summary } from './stats.ts';
import { joinStudent } from '../server/seats.ts';

function get(
  port: number,
  path: string,
  key: string,
): Promise<{ ms: number; bytes: number; encoding: string | undefined }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = request(
      { port, host: '127.0.0.1', path, headers: { authorization: `Bearer ${key}`, 'accept-encoding': 'gzip' } },
      (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () =>
          resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, bytes, encoding: res.headers['content-encoding'] }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export async function benchReplay(runs = 40) {
  const dir = mkdtempSync(join(tmpdir(), 'opsroom-replay-'));
  const clock = new ManualClock();
  const app = await buildApp({ databasePath: join(dir, 'replay.db'), clock, webRoot: null });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  try {
    const out: Record<string, { cold: ReturnType<typeof summary>; warm: ReturnType<typeof summary>; gzipKB: number }> =
      {};
    for (const simulator of ['payment-switch', 'web-service'] as const) {
      const scenario = simulator === 'payment-switch' ? 'sale-surge' : 'bad-deploy';
      const { code, teacherKey } = (
        await app.inject({
          method: 'POST',
          url: '/api/rooms',
          payload: { simulator, scenario, teamCount: 10, minutes: 60, tempo: 1, seed: 21 },
        })
      ).json();
      const room = await app.rooms.get(code);
      const players = [];
      for (let i = 0; i < room.view('teacher').teams.length; i++)
        players.push((await joinStudent(app.rooms, code, `P${i}`)).player);
      await room.dispatch({ type: 'clock', action: 'start' });
      const model = room.round.model;
      for (let m = 1; m <= 60; m++) {
        // Every team changes something now and then, so the replay carries changes and markers.
        if (m % 7 === 0) {
          const def = model.controls.find((c) => c.kind === 'number');
          if (def?.kind === 'number') {
            for (const [i, p] of players.entries())
              await room.dispatch({
                type: 'control',
                playerId: p.id,
                key: def.key,
                value: Math.min(def.max, def.min + ((m + i) % 5) * def.step),
              });
          }
        }
        clock.advance(1000);
        await room.settled();
      }
      const path = `/api/rounds/${room.round.id}/replay`;
      const cold: number[] = [];
      let bytes = 0;
      for (let i = 0; i < runs; i++) {
        app.replayCache.clear();
        const r = await get(port, path, teacherKey);
        if (r.encoding !== 'gzip') throw new Error('replay not gzipped');
        cold.push(r.ms);
        bytes = r.bytes;
      }
      const warm: number[] = [];
      for (let i = 0; i < runs; i++) warm.push((await get(port, path, teacherKey)).ms);
      out[simulator] = { cold: summary(cold), warm: summary(warm), gzipKB: bytes / 1024 };
    }
    return out;
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function reportReplay(r: Awaited<ReturnType<typeof benchReplay>>): string {
  return Object.entries(r)
    .map(
      ([k, v]) =>
        `${k.padEnd(15)} 10 teams × 61 minutes: ${fmt(v.gzipKB, 0)} KB gzip; cold (built from SQLite) median ${fmt(v.cold.median, 1)} ms, p95 ${fmt(v.cold.p95, 1)} ms; ` +
        `warm (cached) median ${fmt(v.warm.median, 2)} ms  (targets ≤ 50 ms median, ≤ 300 KB)`,
    )
    .join('\n');
}
