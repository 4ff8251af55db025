// Refusals by a limit, as the ops side reports them: every one counted (`opsroom_rate_limited_total`
// by `limit`), and logged at warn on the first refusal of one connection or address and every 100th
// after, so that a flood is one line per hundred, not one per packet.
import type { Logger } from '../lib/log.ts';
import type { Metrics } from '../lib/metrics.ts';

export type Refuse = (limit: string, fields?: object) => void;

/** A counter for one connection: `who` says whose refusals these are (ip, room…), read when logging. */
export function refusalsOf(metrics: Metrics, log: Logger, msg: string, who: () => object): Refuse {
  let refusals = 0;
  return (limit, fields) => {
    metrics.rateLimited(limit);
    if (refusals++ % 100 === 0) log.warn({ limit, ...who(), ...fields, refusals }, msg);
  };
}

/** The same per address, remembering at most `maxKeys` addresses (then it starts over: a line too many, not a leak). */
export function refusalsByKey(
  metrics: Metrics,
  log: Logger,
  msg: string,
  maxKeys = 10_000,
): (key: string, limit: string, fields?: object) => void {
  const counts = new Map<string, number>();
  return (key, limit, fields) => {
    metrics.rateLimited(limit);
    const n = counts.get(key) ?? 0;
    if (n === 0 && counts.size >= maxKeys) counts.clear();
    counts.set(key, n + 1);
    if (n % 100 === 0) log.warn({ limit, address: key, ...fields, refusals: n + 1 }, msg);
  };
}
