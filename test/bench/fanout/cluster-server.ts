// One Opsroom process of a benchmark cluster: the real app on the real clock in cluster mode (DATABASE_URL,
// REDIS_URL), the per-address limits opened up as in opsroom-server.ts. Prints {"port":N} when listening.
import { buildApp } from '../../../server/app.ts';

const app = await buildApp({
  databasePath: ':memory:',
  webRoot: null,
  httpLimits: { lookups: { max: 100_000, timeWindow: '1 minute' } },
  roomLimits: { creations: { capacity: 100_000, refillPerSecond: 100_000 } },
  realtimeLimits: {
    join: { capacity: 100_000, refillPerSecond: 100_000 },
    seats: { capacity: 100_000, refillPerSecond: 100_000 },
  },
  connectionLimits: {
    connectionsPerAddress: 100_000,
    addressPackets: { capacity: 1e9, refillPerSecond: 1e9 },
    heavyRequests: { capacity: 1e6, refillPerSecond: 1e6 },
  },
  cluster: { databaseUrl: process.env.DATABASE_URL!, redisUrl: process.env.REDIS_URL! },
});
await app.listen({ port: 0, host: '127.0.0.1' });
const addr = app.server.address();
process.stdout.write(`${JSON.stringify({ port: typeof addr === 'object' && addr ? addr.port : 0 })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
