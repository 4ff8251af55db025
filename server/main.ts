// Starts Opsroom: one process, one port, one SQLite file. Configured by PORT, HOST and DATABASE_PATH.
import { fileURLToPath } from 'node:url';
import { buildApp } from './app.ts';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '0.0.0.0';
const databasePath = process.env.DATABASE_PATH ?? './data/opsroom.db';
const webRoot = fileURLToPath(new URL('../build', import.meta.url));

const app = await buildApp({ databasePath, webRoot, logger: { level: process.env.LOG_LEVEL ?? 'info' } });
await app.listen({ port, host });

let closing = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    app.close().then(
      () => process.exit(0),
      (err) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
