// Security headers on every HTTP answer (@fastify/helmet), with a Content-Security-Policy the web app
// passes: its only inline script (SvelteKit's bootstrap in index.html) is allowed by its hash, computed
// from the build at start, so nothing else inline can run.
import type { FastifyHelmetOptions } from '@fastify/helmet';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** 'sha256-…' sources of every inline <script> (one without src) in the build's HTML files. */
export function inlineScriptHashes(webRoot: string | null): string[] {
  if (!webRoot) return [];
  const hashes = new Set<string>();
  for (const entry of readdirSync(webRoot, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.html')) continue;
    const html = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    for (const m of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)) {
      hashes.add(`'sha256-${createHash('sha256').update(m[1], 'utf8').digest('base64')}'`);
    }
  }
  return [...hashes];
}

/** @fastify/helmet's options, registered at the app's top level so that every route gets them. */
export function helmetOptions(webRoot: string | null): FastifyHelmetOptions {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", ...inlineScriptHashes(webRoot)],
        // Svelte writes style attributes (and the app shell has one); inline styles cannot run code.
        styleSrc: ["'self'", "'unsafe-inline'"],
        // The QR code is a data: image; CSV downloads are blob: URLs.
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'"],
        // 'self' covers the same-origin WebSockets (socket.io, the feed).
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        // No upgrade-insecure-requests: a classroom server is often reached over plain HTTP on the LAN.
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    // HSTS belongs to whoever terminates TLS (the reverse proxy), not to a server that may run on plain HTTP.
    strictTransportSecurity: false,
  };
}

/**
 * The headers of answers made outside Fastify's routes, which helmet's hook never sees: requests refused before
 * routing (a malformed URL, a request line or headers Node's parser refuses) and socket.io's own answers (its
 * long-polling and handshakes). None of them is a page: nothing may load, run or frame them.
 */
export const BARE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};
