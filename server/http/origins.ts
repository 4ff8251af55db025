// Which web pages may open a WebSocket (socket.io or the feed) to this server, or send it a request: the server's
// own origin, plus the origins ALLOWED_ORIGINS lists. A request without an Origin header comes from a tool, not a
// browser page, and is let through (a browser always sends Origin on a WebSocket or a cross-site request).
//
// The server's own origin is the host the request was sent to — only when that host is one of the server's names:
// an address (127.0.0.1, 192.168.1.20, [::1]), localhost, this machine's name (and its .local), PUBLIC_URL's host or
// an ALLOWED_ORIGINS host. Any other name is a page of another site whose name was made to point here (DNS
// rebinding): its Host and Origin agree, and it is refused all the same.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
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

/** The host of a Host header (`name:port`, `[v6]:port`), without its port, in lower case. */
function hostOf(host: string): string {
  const h = host.toLowerCase();
  const v6 = /^\[([^\]]+)\]/.exec(h);
  return v6 ? v6[1] : h.replace(/:\d+$/, '');
}

/** Whether `host` (a Host header) is one of the server's names (see above). */
export function serverNames(publicUrl: string | null, allowed: readonly string[], machine = hostname()) {
  const names = new Set(
    [machine, `${machine}.local`, ...(publicUrl ? [publicUrl] : []), ...allowed].map((n) =>
      n.includes('://') ? hostOf(new URL(n).host) : n.toLowerCase(),
    ),
  );
  return (host: string): boolean => {
    const h = hostOf(host);
    return isIP(h) !== 0 || h === 'localhost' || h.endsWith('.localhost') || names.has(h);
  };
}

/**
 * A check of a request's Origin: null when allowed, else why not. The server's own origin is the host
 * the request was sent to (the Host header, or X-Forwarded-Host from a trusted proxy), if it is one of its names.
 */
export function originCheck(
  allowed: readonly string[],
  trust: TrustFn,
  publicUrl: string | null = null,
): (req: IncomingMessage) => string | null {
  const extra = new Set(allowed);
  const named = serverNames(publicUrl, allowed);
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
    const sentTo =
      (trust(req.socket.remoteAddress ?? '', 0) ? firstHeader(req.headers['x-forwarded-host']) : undefined) ??
      req.headers.host;
    if (sentTo !== host) return `origin ${origin} is not allowed`;
    if (!named(host))
      return `this server does not answer to the name ${hostOf(host)}: set PUBLIC_URL to the address students use`;
    return null;
  };
}
