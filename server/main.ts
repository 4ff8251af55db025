// Starts Opsroom: one process, one port, one SQLite file. Configured by PORT, HOST and DATABASE_PATH.
import { fileURLToPath } from 'node:url';
import { buildApp } from './app.ts';
import { DatabaseOpenError, EXIT_BAD_DATABASE } from './db/index.ts';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '0.0.0.0';
const databasePath = process.env.DATABASE_PATH ?? './data/opsroom.db';
const webRoot = fileURLToPath(new URL('../build', import.meta.url));

const app = await buildApp({ databasePath, webRoot, logger: { level: process.env.LOG_LEVEL ?? 'info' } }).catch((err: unknown) => {
  // A path that cannot hold the database: one clear line, no stack, a distinct exit code.
  if (!(err instanceof DatabaseOpenError)) throw err;
  process.stderr.write(`opsroom: ${err.message}\n`);
  process.exit(EXIT_BAD_DATABASE);
});
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
