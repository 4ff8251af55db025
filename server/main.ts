// Starts Opsroom: one process, one port, one SQLite file. Configured by PORT, HOST, DATABASE_PATH,
// TRUST_PROXY and ALLOWED_ORIGINS (docs/security.md).
import { fileURLToPath } from 'node:url';
import { buildApp } from './app.ts';
import { DatabaseOpenError, EXIT_BAD_SETTING } from './db/index.ts';
import { parseTrustProxy } from './http/client-address.ts';
import { parseAllowedOrigins } from './http/origins.ts';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '0.0.0.0';
const databasePath = process.env.DATABASE_PATH ?? './data/opsroom.db';
const webRoot = fileURLToPath(new URL('../build', import.meta.url));

/** A setting that cannot work: one clear line, no stack, a distinct exit code. */
function refuse(message: string): never {
  process.stderr.write(`opsroom: ${message}\n`);
  process.exit(EXIT_BAD_SETTING);
}
let trustProxy, allowedOrigins;
try {
  trustProxy = parseTrustProxy(process.env.TRUST_PROXY);
  allowedOrigins = parseAllowedOrigins(process.env.ALLOWED_ORIGINS);
} catch (e) {
  refuse((e as Error).message);
}

const app = await buildApp({ databasePath, webRoot, trustProxy, allowedOrigins, logger: { level: process.env.LOG_LEVEL ?? 'info' } }).catch((err: unknown) => {
  if (err instanceof DatabaseOpenError) refuse(err.message);
  throw err;
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
