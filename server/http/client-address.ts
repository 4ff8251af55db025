// The client's address behind a reverse proxy, the same for HTTP, the feed and socket.io, so that
// every per-address limit counts people rather than the proxy. TRUST_PROXY names whom to believe.
import proxyAddr from '@fastify/proxy-addr';
import type { IncomingMessage } from 'node:http';

/** Whether the hop at distance `i` (0 = the peer of the TCP connection), at `addr`, is a trusted proxy. */
export type TrustFn = (addr: string, i: number) => boolean;

export const trustNobody: TrustFn = () => false;

/**
 * TRUST_PROXY as Fastify's `trustProxy` takes it: unset or `false` trusts no proxy (X-Forwarded-For is
 * ignored); a hop count (`1`: the one proxy in front); a comma-separated list of addresses, CIDR ranges
 * or `loopback` / `linklocal` / `uniquelocal`; `true` trusts every hop (only when nothing reaches the
 * server except through the proxy). Throws a one-line error for anything else.
 */
export function parseTrustProxy(text: string | null | undefined): TrustFn {
  const t = (text ?? '').trim();
  if (t === '' || t === 'false') return trustNobody;
  if (t === 'true') return () => true;
  if (/^\d+$/.test(t)) {
    // A hop count: the nearest n hops are proxies, whoever they are (Fastify's own number fails closed).
    const hops = Number(t);
    return (_addr, i) => i < hops;
  }
  try {
    return proxyAddr.compile(t.split(',').map((s) => s.trim()));
  } catch (e) {
    throw new Error(
      `${(e as Error).message}; expected false, true, a hop count, or addresses/CIDR ranges separated by commas`,
    );
  }
}

/** The client's address of a raw request: the last address not vouched for by a trusted proxy. */
export function clientAddress(req: IncomingMessage, trust: TrustFn): string {
  const all = proxyAddr.all(req, trust);
  return all[all.length - 1] ?? 'unknown';
}

/**
 * The key under which an address is counted: IPv4 as is (IPv4-mapped IPv6 too), IPv6 by its /64
 * prefix — one household or host usually holds a whole /64, and would otherwise have 2^64 addresses.
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1];
  if (!ip.includes(':')) return ip;
  const [head, tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::')
    ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
