// The image's health check (Dockerfile HEALTHCHECK, compose.yaml): asks this container's server for a path —
// /api/health (liveness: the process answers) by default, /api/ready (readiness: its database, and in cluster mode
// Redis, answer) — and exits 0 on a 2xx answer within 4 s, 1 otherwise. Plain Node: the slim image has no curl.
const path = process.argv[2] ?? '/api/health';
const port = process.env.PORT || '3000';
try {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(4000) });
  if (!res.ok) console.error(`${path}: ${res.status}`);
  process.exit(res.ok ? 0 : 1);
} catch (e) {
  console.error(`${path}: ${e.cause?.code ?? e.name}`);
  process.exit(1);
}
