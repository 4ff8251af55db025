// Bench 2: one tick of a room of 30 teams — every team stepped, the minute committed to a SQLite file
// (WAL, synchronous=FULL) in one transaction, and broadcast over socket.io to 4 students per team, the
// teacher and an observer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io as ioClient, type Socket } from 'socket.io-client';
import { buildApp } from '../../server/app.ts';
import { ManualClock } from '../../server/lib/clock.ts';
import { fmt, summary } from './stats.ts';

const ask = (s: Socket, event: string, payload: unknown): Promise<any> => new Promise((r) => s.emit(event, payload, r));

export async function benchTick(teams = 30, perTeam = 4, minutes = 60) {
  const dir = mkdtempSync(join(tmpdir(), 'opsroom-tick-'));
  const clock = new ManualClock();
  const app = await buildApp({
    databasePath: join(dir, 'tick.db'),
    clock,
    webRoot: null,
    realtimeLimits: { join: { capacity: 1e6, refillPerSecond: 1e6 }, seats: { capacity: 1e6, refillPerSecond: 1e6 } },
    // The load generator is one loopback address.
    connectionLimits: {
      connectionsPerAddress: 1e6,
      addressPackets: { capacity: 1e9, refillPerSecond: 1e9 },
      heavyRequests: { capacity: 1e6, refillPerSecond: 1e6 },
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const sockets: Socket[] = [];
  const connect = () =>
    new Promise<Socket>((resolve) => {
      const s = ioClient(`http://127.0.0.1:${port}`, {
        transports: ['websocket'],
        forceNew: true,
        reconnection: false,
      });
      sockets.push(s);
      s.once('connect', () => resolve(s));
    });
  try {
    const out: Record<string, ReturnType<typeof summary>> = {};
    for (const simulator of ['payment-switch', 'web-service'] as const) {
      const scenario = simulator === 'payment-switch' ? 'sale-surge' : 'traffic-surge';
      const res = await app.inject({
        method: 'POST',
        url: '/api/rooms',
        payload: { simulator, scenario, teamCount: teams, minutes, tempo: 1, seed: 9 },
      });
      const { code, teacherKey } = res.json();
      await ask(await connect(), 'teacher:join', { code, key: teacherKey });
      await ask(await connect(), 'observer:join', { code });
      let received = 0;
      for (let i = 0; i < teams * perTeam; i++) {
        const s = await connect();
        await ask(s, 'student:join', { code, name: `T${i}` });
        s.on('minute', () => received++);
      }
      const room = await app.rooms.get(code);
      await room.dispatch({ type: 'clock', action: 'start' });
      await room.dispatch({ type: 'clock', action: 'pause' });
      const times: number[] = [];
      for (let m = 1; m <= minutes; m++) {
        const t0 = process.hrtime.bigint();
        // One minute played by the teacher's step: computed, committed (the group commit waits one turn), sent.
        await room.dispatch({ type: 'clock', action: 'step' });
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
        // Let the sockets drain before the next tick, as the real clock would.
        const want = (m + 1) * teams * perTeam;
        while (received < want) await new Promise((r) => setImmediate(r));
      }
      out[simulator] = summary(times);
    }
    return { teams, perTeam, minutes, bySimulator: out };
  } finally {
    for (const s of sockets) s.disconnect();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function reportTick(r: Awaited<ReturnType<typeof benchTick>>): string {
  return (['payment-switch', 'web-service'] as const)
    .map((k) => {
      const s = r.bySimulator[k];
      return `${k.padEnd(15)} room of ${r.teams} teams (${r.teams * r.perTeam} students + teacher + observer), ${s.n} ticks: median ${fmt(s.median, 2)} ms, p95 ${fmt(s.p95, 2)} ms, max ${fmt(s.max, 2)} ms per tick (step + store + broadcast)`;
    })
    .join('\n');
}
