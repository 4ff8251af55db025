// The few lines printed once the server listens: where students join, the database file, the
// metrics address, and how to stop — the first thing a teacher or an operator needs.
import { resolve } from 'node:path';
import type { JoinInfo } from '../../shared/protocol/types.ts';
import { joinInfo, lanAddresses, type Interfaces } from '../net/addresses.ts';
import { withoutCredentials } from '../net/service-url.ts';

export interface StartFacts {
  /** The address and port the server is bound to (server.address()). */
  bound: string;
  port: number;
  interfaces: Interfaces;
  publicUrl: string | null;
  databasePath: string;
  metricsToken: boolean;
  /** Cluster mode: the services (their addresses without credentials) and this process's name. */
  cluster?: { databaseUrl: string; redisUrl: string; node: string } | null;
}

export interface StartSummary {
  /** Base URLs students can use, best first (empty: only this computer). */
  join: string[];
  local: string;
  loopbackOnly: boolean;
  port: number;
  database: string;
  metrics: string;
  /** Why nobody else can join, when nobody can. */
  warning?: string;
}

export function startSummary(f: StartFacts): StartSummary {
  const info: JoinInfo = joinInfo({ publicUrl: f.publicUrl, bound: f.bound, port: f.port, interfaces: f.interfaces });
  const join = info.source === 'public' ? [info.baseUrl] : info.lan;
  const warning = !info.loopbackOnly
    ? undefined
    : /^(127\.|::1$|localhost$)/.test(f.bound)
      ? `only this computer can open it: the server listens on ${f.bound} (set HOST=0.0.0.0 to let phones and other computers join)`
      : 'no network address found: connect this computer to the classroom network (or set PUBLIC_URL)';
  return {
    join,
    local: info.local,
    loopbackOnly: info.loopbackOnly,
    port: f.port,
    database: f.cluster
      ? `${withoutCredentials(f.cluster.databaseUrl)} with ${withoutCredentials(f.cluster.redisUrl)} (cluster node ${f.cluster.node})`
      : f.databasePath === ':memory:'
        ? ':memory: (nothing is kept after a stop)'
        : resolve(f.databasePath),
    metrics: `${info.local}/metrics ${f.metricsToken ? '(Authorization: Bearer <METRICS_TOKEN>)' : '(this computer only; set METRICS_TOKEN to open it to a collector)'}`,
    ...(warning ? { warning } : {}),
  };
}

/** The summary as a short block of text for a terminal. */
export function startBlock(f: StartFacts): string {
  const s = startSummary(f);
  const named = new Map(lanAddresses(f.bound, f.port, f.interfaces).map((a) => [a.url, a.iface]));
  const label = (l: string) => `  ${l.padEnd(18)}`;
  const lines = ['Opsroom is ready.'];
  if (s.join.length === 0) lines.push(`${label('Students join at')}nowhere yet — ${s.warning}`);
  s.join.forEach((url, i) => {
    const note = f.publicUrl ? 'PUBLIC_URL' : named.get(url);
    lines.push(`${label(i === 0 ? 'Students join at' : '')}${url}${note ? `  (${note})` : ''}`);
  });
  lines.push(`${label('On this computer')}${s.local}`);
  lines.push(`${label('Database')}${s.database}`);
  lines.push(`${label('Metrics')}${s.metrics}`);
  lines.push(
    `${label('To stop')}Ctrl+C (or SIGTERM): ${f.cluster ? 'running rounds go on in the other processes' : 'running rounds are paused and kept'}`,
  );
  return `${lines.join('\n')}\n`;
}
