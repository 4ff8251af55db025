// Starts Opsroom: reads the environment (config.ts), builds the app, listens, prints where students
// join, and stops gracefully on SIGTERM/SIGINT (a second signal stops at once).
import { networkInterfaces } from 'node:os';
import { buildApp } from './app.ts';
import { ConfigError, EXIT_CODES, loadConfig, type Config } from './config.ts';
import { DatabaseOpenError } from './db/sqlite.ts';
import { projectPath } from './lib/paths.ts';
import { parseTrustProxy } from './http/client-address.ts';
import { DEFAULT_ROUND_LIMITS } from './rooms/quotas.ts';
import { loggerOptions, prettyLogs } from './ops/log.ts';
import { describeStop, stopGracefully } from './ops/shutdown.ts';
import { startBlock, startSummary, type StartFacts } from './ops/start-block.ts';

/** A start that cannot go on: one plain line, no stack, the exit code that says which kind (config.ts). */
function refuse(message: string, code: number): never {
  process.stderr.write(`opsroom: ${message}\n`);
  process.exit(code);
}

let config: Config;
try {
  config = loadConfig();
} catch (e) {
  if (!(e instanceof ConfigError)) throw e;
  refuse(e.message, EXIT_CODES.badValue);
}

const webRoot = projectPath('build');
const pretty = prettyLogs(config.logFormat);
const app = await buildApp({
  databasePath: config.databasePath,
  webRoot,
  logger: loggerOptions(config.logLevel, config.logFormat),
  publicUrl: config.publicUrl,
  metricsToken: config.metricsToken,
  trustProxy: parseTrustProxy(config.trustProxy),
  allowedOrigins: config.allowedOrigins,
  ...(config.teacherMinutes !== null
    ? { roomLimits: { rounds: { ...DEFAULT_ROUND_LIMITS, teacherMinutes: config.teacherMinutes } } }
    : {}),
  ...(config.cluster ? { cluster: config.cluster } : {}),
}).catch((err: unknown) => {
  if (err instanceof DatabaseOpenError) refuse(err.message, EXIT_CODES.databaseUnusable);
  // Cluster mode: PostgreSQL or Redis out of reach is one line (which one, where), not a stack.
  if (config.cluster) refuse((err as Error).message, EXIT_CODES.serviceUnreachable);
  throw err;
});

// Fastify's own "listening at" lines (one per address) are replaced by the start block.
const level = app.log.level;
app.log.level = 'warn';
try {
  await app.listen({ port: config.port, host: config.host });
} catch (e) {
  // The two usual causes in one plain line; anything else with its stack.
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    app.log.fatal({ code }, `cannot listen: port ${config.port} is already in use (set PORT to another)`);
  else if (code === 'EADDRNOTAVAIL')
    app.log.fatal({ code }, `cannot listen: HOST=${config.host} is not an address of this machine`);
  else app.log.fatal({ err: e }, 'cannot listen');
  await app.close();
  process.exit(EXIT_CODES.cannotListen);
} finally {
  app.log.level = level;
}

const addr = app.server.address();
const facts: StartFacts = {
  bound: typeof addr === 'object' && addr ? addr.address : config.host,
  port: typeof addr === 'object' && addr ? addr.port : config.port,
  interfaces: networkInterfaces(),
  publicUrl: config.publicUrl,
  databasePath: config.databasePath,
  metricsToken: config.metricsToken !== null,
  cluster: app.cluster && config.cluster ? { ...config.cluster, node: app.cluster.node } : null,
};
const summary = startSummary(facts);
if (pretty) process.stdout.write(startBlock(facts));
else app.log.info(summary, 'Opsroom is ready');

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) {
      app.log.warn({ signal }, 'second signal: stopping now, without waiting');
      process.exit(1);
    }
    stopping = true;
    const rounds = app.cluster ? 'handing running rounds over to the other processes' : 'pausing running rounds';
    app.log.info({ signal }, `stopping: ${rounds} (send the signal again to stop at once)`);
    stopGracefully(app).then(
      (report) => {
        app.log.info(report, describeStop(report, summary.database));
        process.exit(0);
      },
      (err) => {
        app.log.error({ err }, 'stop failed');
        process.exit(1);
      },
    );
  });
}
