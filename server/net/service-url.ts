// A service's address as it may be shown (logs, errors, the start block): scheme, host, port and path — never the
// user or password a DATABASE_URL or REDIS_URL may carry.
export function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(unreadable address)';
  }
}
