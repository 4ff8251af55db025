// The server under load: the real app on the real clock and a SQLite file, with the per-address limits
// opened up (the load generator is one loopback address). Prints {"port":N} when listening.
import { buildApp } from '../../../server/app.ts';
import { OPEN_LIMITS, printPort } from './open.ts';
import { probeServer } from './probe.ts';

const app = await buildApp({
  databasePath: process.env.DATABASE_PATH!,
  webRoot: null,
  ...OPEN_LIMITS,
});
// Its own /metrics, asked in process (app.inject: no socket), at the measured window's start and end.
probeServer('opsroom', async () => (await app.inject({ method: 'GET', url: '/metrics' })).body);
await app.listen({ port: 0, host: '127.0.0.1' });
printPort(app.server);
// For the soak: the live heap (after a full collection when --expose-gc is on) and RSS, every so often.
const every = Number(process.env.MEM_EVERY_MS ?? 0);
if (every > 0) {
  setInterval(() => {
    (globalThis as { gc?: () => void }).gc?.();
    const m = process.memoryUsage();
    process.stdout.write(
      `${JSON.stringify({ mem: { t: Date.now(), heapUsedMB: m.heapUsed / 2 ** 20, rssMB: m.rss / 2 ** 20, rooms: app.rooms.all().length } })}\n`,
    );
  }, every).unref();
}
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
