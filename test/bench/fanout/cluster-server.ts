// One Opsroom process of a benchmark cluster: the real app on the real clock in cluster mode (DATABASE_URL,
// REDIS_URL), the per-address limits opened up (open.ts). Prints {"port":N} when listening.
import { buildApp } from '../../../server/app.ts';
import { OPEN_LIMITS, printPort } from './open.ts';

const app = await buildApp({
  databasePath: ':memory:',
  webRoot: null,
  // What goes wrong in a server shows in the bench's output (a failed commit, a room that could not be taken).
  logger: { level: process.env.BENCH_LOG_LEVEL ?? 'error', stream: process.stderr },
  ...OPEN_LIMITS,
  cluster: { databaseUrl: process.env.DATABASE_URL!, redisUrl: process.env.REDIS_URL! },
});
await app.listen({ port: 0, host: '127.0.0.1' });
printPort(app.server);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
