// Rooms played in process for the benches that drive the teacher's clock themselves (turnover, retained): the
// app on a SQLite file in a temporary folder, a manual clock, no sockets.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../server/app.ts';
import { ManualClock } from '../../server/lib/clock.ts';
import type { Room } from '../../server/rooms/room.ts';

type App = Awaited<ReturnType<typeof buildApp>>;

/** Runs `use` with an app of its own; the app is closed and its folder removed afterwards, whatever happens. */
export async function withBenchApp<T>(name: string, use: (app: App) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), `opsroom-${name}-`));
  const app = await buildApp({
    databasePath: join(dir, `${name}.db`),
    clock: new ManualClock(),
    webRoot: null,
    roomLimits: { creations: { capacity: 1e6, refillPerSecond: 1e6 } },
  });
  try {
    return await use(app);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `count` rooms of `teams` teams, the two models in turn on their surge scenarios (seeds 1, 2, …), each with
 * `students` students per team joined as commands, started and paused at minute 0: the bench steps them.
 */
export async function pausedRooms(
  app: App,
  count: number,
  opts: { teams: number; minutes: number; students: number },
): Promise<Room[]> {
  const rooms: Room[] = [];
  for (let r = 0; r < count; r++) {
    const simulator = r % 2 ? 'web-service' : 'payment-switch';
    const scenario = simulator === 'payment-switch' ? 'sale-surge' : 'traffic-surge';
    const res = await app.inject({
      method: 'POST',
      url: '/api/rooms',
      payload: { simulator, scenario, teamCount: opts.teams, minutes: opts.minutes, tempo: 1, seed: r + 1 },
    });
    const room = await app.rooms.get(res.json().code);
    for (let i = 0; i < opts.teams * opts.students; i++)
      await room.dispatch({ type: 'join', name: `S${i}`, tokenHash: `t${r}-${i}` });
    await room.dispatch({ type: 'clock', action: 'start' });
    await room.dispatch({ type: 'clock', action: 'pause' });
    rooms.push(room);
  }
  return rooms;
}
