// The server for the security probe (test/bench/security.ts): the real app with its default limits on
// the real clock and a SQLite file, plus one bench-only route that reports memory — after a full
// collection (--expose-gc) — and the peak RSS seen since the last report. Prints {"port":N}.
import { buildApp } from '../../server/app.ts';
import { parseTrustProxy } from '../../server/http/client-address.ts';

const app = await buildApp({
  databasePath: process.env.DATABASE_PATH!,
  webRoot: null,
  // The reliability probe sends X-Forwarded-For to speak from many addresses of one IPv6 /64.
  ...(process.env.TRUST_PROXY ? { trustProxy: parseTrustProxy(process.env.TRUST_PROXY) } : {}),
});
let peakRss = 0;
setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50).unref();
app.get('/__bench/memory', async () => {
  const peak = Math.max(peakRss, process.memoryUsage.rss());
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  peakRss = 0;
  return { heapUsedMB: m.heapUsed / 2 ** 20, rssMB: m.rss / 2 ** 20, peakRssMB: peak / 2 ** 20 };
});
await app.listen({ port: 0, host: '127.0.0.1' });
const addr = app.server.address();
process.stdout.write(`${JSON.stringify({ port: typeof addr === 'object' && addr ? addr.port : 0 })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
