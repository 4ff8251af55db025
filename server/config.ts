// The environment, read and checked once at start. A bad value stops the server with one line that
// names the variable (`PORT=abc: …`), before anything is opened or listened on.
import { z } from 'zod';
import { parseTrustProxy } from './http/client-address.ts';
import { parseAllowedOrigins } from './http/origins.ts';

/**
 * How a start that cannot go on ends (docs/operations.md): each with one line on stderr saying why.
 * 2 — a value is malformed (fix its spelling); 78 — DATABASE_PATH is well-formed but no database can be
 * kept there (sysexits' EX_CONFIG: fix the machine or choose another path); 1 — the address cannot be
 * listened on (the port in use, a HOST that is not this machine's) or, in cluster mode, a PostgreSQL or Redis
 * that cannot be reached or used.
 */
export const EXIT_CODES = { badValue: 2, databaseUnusable: 78, cannotListen: 1, serviceUnreachable: 1 } as const;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface Config {
  port: number;
  host: string;
  databasePath: string;
  logLevel: LogLevel;
  /** auto: readable lines on a terminal, JSON lines otherwise. */
  logFormat: LogFormat;
  /** The address students use when the server sits behind a proxy or a name (no trailing slash). */
  publicUrl: string | null;
  /** Bearer token for /metrics; without it /metrics answers only this machine. */
  metricsToken: string | null;
  /** Which reverse proxies to believe about the client's address (parseTrustProxy's text); null: none. */
  trustProxy: string | null;
  /** Origins besides the server's own whose pages may open WebSockets to it. */
  allowedOrigins: string[];
  /** Cluster mode (DATABASE_URL and REDIS_URL): several processes on one PostgreSQL and one Redis; null: one process on SQLite. */
  cluster: { databaseUrl: string; redisUrl: string } | null;
  /** TEACHER_QUOTA_MINUTES: team-minutes one teacher's rooms may keep (rooms/quotas.ts); null: the default. */
  teacherMinutes: number | null;
}

// `PORT=` (set but empty, as compose files and .env templates leave it) means "use the default";
// spaces around a value are a typing slip, not part of it.
const unsetIfBlank = (v: unknown) => (typeof v === 'string' ? v.trim() || undefined : v);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(unsetIfBlank, schema.optional());

const port = z
  .string()
  .regex(/^\d{1,5}$/, 'must be a whole number from 0 to 65535')
  .transform(Number)
  .refine((n) => n <= 65535, 'must be a whole number from 0 to 65535');
const host = z
  .string()
  .regex(
    /^[\w.:%-]+$/,
    'must be an IP address or a host name, e.g. 0.0.0.0 (every IPv4 interface) or :: (IPv4 and IPv6)',
  );
const publicUrl = z.string().transform((s, ctx) => {
  let u: URL | null = null;
  try {
    u = new URL(s);
  } catch {
    // reported below
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.search || u.hash || u.username) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be an http:// or https:// address without query or fragment, e.g. https://opsroom.example.org',
    });
    return z.NEVER;
  }
  return u.href.replace(/\/+$/, '');
});
const token = z.string().regex(/^[\x21-\x7e]{16,128}$/, 'must be 16 to 128 printable characters without spaces');
/** A value checked by one of the server's own parsers, whose error message becomes the issue. */
const parsedBy = <T>(parse: (s: string) => T) =>
  z.string().transform((s, ctx) => {
    try {
      return parse(s);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
      return z.NEVER;
    }
  });
const serviceUrl = (protocols: string[], example: string) =>
  z.string().refine(
    (s) => {
      try {
        return protocols.includes(new URL(s).protocol);
      } catch {
        return false;
      }
    },
    `must be a ${protocols.map((p) => `${p}//`).join(' or ')} address, e.g. ${example}`,
  );

const schema = z.object({
  PORT: optional(port),
  HOST: optional(host),
  DATABASE_PATH: optional(z.string()),
  LOG_LEVEL: optional(z.enum(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`)),
  LOG_FORMAT: optional(z.enum(LOG_FORMATS, `must be one of ${LOG_FORMATS.join(', ')}`)),
  PUBLIC_URL: optional(publicUrl),
  METRICS_TOKEN: optional(token),
  TRUST_PROXY: optional(
    parsedBy((s) => {
      parseTrustProxy(s);
      return s;
    }),
  ),
  ALLOWED_ORIGINS: optional(parsedBy(parseAllowedOrigins)),
  // Cluster mode: both or neither (checked below).
  DATABASE_URL: optional(
    serviceUrl(['postgres:', 'postgresql:'], 'postgres://opsroom:secret@db.example.org:5432/opsroom'),
  ),
  REDIS_URL: optional(serviceUrl(['redis:', 'rediss:'], 'redis://redis.example.org:6379')),
  TEACHER_QUOTA_MINUTES: optional(
    z
      .string()
      .regex(/^\d{1,10}$/, 'must be a whole number of team-minutes, e.g. 500000')
      .transform(Number)
      .refine((n) => n >= 1000, 'must be at least 1000 (a class of eight teams for two hours is about 1,000)'),
  ),
});

/** Variables whose value is a secret: named in an error, never echoed. */
const SECRET = new Set(['METRICS_TOKEN', 'DATABASE_URL', 'REDIS_URL']);

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
  }
}

/** The configuration from `env`, or a ConfigError naming the first bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const r = schema.safeParse(env);
  if (!r.success) {
    const issue = r.error.issues[0];
    const name = String(issue.path[0] ?? 'environment');
    const shown = SECRET.has(name)
      ? '(hidden)'
      : JSON.stringify(env[name] ?? '')
          .slice(1, -1)
          .slice(0, 80);
    throw new ConfigError(name, `${name}=${shown}: ${issue.message}`);
  }
  const e = r.data;
  if ((e.DATABASE_URL === undefined) !== (e.REDIS_URL === undefined)) {
    const [set, unset] = e.DATABASE_URL === undefined ? ['REDIS_URL', 'DATABASE_URL'] : ['DATABASE_URL', 'REDIS_URL'];
    throw new ConfigError(
      unset,
      `${set} is set but ${unset} is not: cluster mode needs both (PostgreSQL and Redis); one process on SQLite needs neither`,
    );
  }
  if (e.DATABASE_URL !== undefined && e.DATABASE_PATH !== undefined) {
    throw new ConfigError(
      'DATABASE_PATH',
      `DATABASE_PATH=${JSON.stringify(e.DATABASE_PATH).slice(1, -1).slice(0, 80)}: not used in cluster mode (DATABASE_URL): unset one of them`,
    );
  }
  return {
    port: e.PORT ?? 3000,
    host: e.HOST ?? '0.0.0.0',
    databasePath: e.DATABASE_PATH ?? './data/opsroom.db',
    logLevel: e.LOG_LEVEL ?? 'info',
    logFormat: e.LOG_FORMAT ?? 'auto',
    publicUrl: e.PUBLIC_URL ?? null,
    metricsToken: e.METRICS_TOKEN ?? null,
    trustProxy: e.TRUST_PROXY ?? null,
    allowedOrigins: e.ALLOWED_ORIGINS ?? [],
    cluster:
      e.DATABASE_URL !== undefined && e.REDIS_URL !== undefined
        ? { databaseUrl: e.DATABASE_URL, redisUrl: e.REDIS_URL }
        : null,
    teacherMinutes: e.TEACHER_QUOTA_MINUTES ?? null,
  };
}
