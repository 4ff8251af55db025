// Which web pages may open a WebSocket (socket.io or the feed) to this server: the server's own origin,
// plus the origins ALLOWED_ORIGINS lists. A request without an Origin header comes from a tool, not a
// browser page, and is let through (a browser always sends Origin on a WebSocket or a cross-site request).
import type { IncomingMessage } from 'node:http';
import type { TrustFn } from './client-address.ts';

/** ALLOWED_ORIGINS (checked in config.ts): comma-separated origins (`https://school.example`); throws a one-line error for anything else. */
export function parseAllowedOrigins(text: string | undefined): string[] {
  const out: string[] = [];
  for (const item of (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    let url: URL | undefined;
    try {
      url = new URL(item);
    } catch {
      // reported below
    }
    if (!url || url.origin === 'null' || url.origin !== item.replace(/\/$/, '')) {
      throw new Error(
        `${JSON.stringify(item)} is not an origin; expected scheme://host[:port], e.g. https://school.example`,
      );
    }
    out.push(url.origin);
  }
  return out;
}

function firstHeader(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s?.split(',')[0].trim() || undefined;
}

/**
 * A check of a request's Origin: null when allowed, else why not. The server's own origin is the host
 * the request was sent to (the Host header, or X-Forwarded-Host from a trusted proxy).
 */
export function originCheck(allowed: readonly string[], trust: TrustFn): (req: IncomingMessage) => string | null {
  const extra = new Set(allowed);
  return (req) => {
    const origin = firstHeader(req.headers.origin);
    if (origin === undefined) return null;
    if (extra.has(origin)) return null;
    let host: string | undefined;
    try {
      host = new URL(origin).host;
    } catch {
      return `origin ${JSON.stringify(origin.slice(0, 80))} is not allowed`;
    }
    const own = new Set([req.headers.host]);
    if (trust(req.socket.remoteAddress ?? '', 0)) own.add(firstHeader(req.headers['x-forwarded-host']));
    return own.has(host) ? null : `origin ${origin} is not allowed`;
  };
}
