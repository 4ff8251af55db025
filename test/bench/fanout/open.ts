// What the bench's Opsroom servers share: the per-address limits opened up (every load generator is one
// loopback address, every teacher of it too), and the line that tells the bench where a server listens.
import type { Server } from 'node:http';
import type { buildApp } from '../../../server/app.ts';

type AppOptions = Parameters<typeof buildApp>[0];

export const OPEN_LIMITS = {
  httpLimits: { lookups: { max: 100_000, timeWindow: '1 minute' } },
  roomLimits: {
    creations: { capacity: 100_000, refillPerSecond: 100_000 },
    // Every teacher of the load is on one address, and the soak's rooms turn over a round every 21 s.
    rounds: {
      starts: {
        teacher: { capacity: 100_000, refillPerSecond: 100_000 },
        address: { capacity: 100_000, refillPerSecond: 100_000 },
      },
      teacherMinutes: Number.MAX_SAFE_INTEGER,
    },
  },
  realtimeLimits: {
    join: { capacity: 100_000, refillPerSecond: 100_000 },
    seats: { capacity: 100_000, refillPerSecond: 100_000 },
  },
  connectionLimits: {
    connectionsPerAddress: 100_000,
    addressPackets: { capacity: 1e9, refillPerSecond: 1e9 },
    heavyRequests: { capacity: 1e6, refillPerSecond: 1e6 },
  },
} satisfies Partial<AppOptions>;

/** Prints {"port":N}: the bench waits for this line (spawn.ts). */
export function printPort(server: Server): void {
  const addr = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof addr === 'object' && addr ? addr.port : 0 })}\n`);
}
