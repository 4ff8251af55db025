// The room-work bench's measuring process (roomwork.ts), started with the server's Node flags: rooms played in
// process, CPU read per thread around the measured minutes; prints one JSON line.
import { threadTimes } from './procstat.ts';
import { pausedRooms, withBenchApp } from './rooms.ts';

const [rooms, teams, warmup, minutes, group] = process.argv.slice(2).map(Number);
const TICKS_PER_SECOND = 100;

// Threads there before the app are the main thread and V8's (the collector's helpers, the compiler, tsx's loader);
// those started with it are Opsroom's: the database writer (and libuv's pool, idle here).
const v8Threads = new Set(threadTimes(process.pid).keys());

await withBenchApp('roomwork', async (app) => {
  // One minute longer than played: no round ends in the measured minutes (a round's end is bench 2b's).
  const list = await pausedRooms(app, rooms, { teams, minutes: warmup + minutes + 1, students: 0 });
  // As the server's rooms come due a few at a time and share a commit: `group` rooms stepped together.
  const minute = async () => {
    for (let i = 0; i < list.length; i += group)
      await Promise.all(list.slice(i, i + group).map((room) => room.dispatch({ type: 'clock', action: 'step' })));
  };
  // The first minutes are the compiler's warm-up (docs/performance.md, "The fifth stretch").
  for (let m = 0; m < warmup; m++) await minute();
  const before = threadTimes(process.pid);
  const wall0 = performance.now();
  for (let m = 0; m < minutes; m++) await minute();
  const wall = performance.now() - wall0;
  const after = threadTimes(process.pid);
  const ticks = { mainUser: 0, mainSystem: 0, v8: 0, app: 0 };
  for (const [tid, t] of after) {
    const t0 = before.get(tid) ?? { user: 0, system: 0 };
    const user = t.user - t0.user;
    const system = t.system - t0.system;
    if (tid === process.pid) {
      ticks.mainUser = user;
      ticks.mainSystem = system;
    } else if (v8Threads.has(tid)) ticks.v8 += user + system;
    else ticks.app += user + system;
  }
  const teamMinutes = rooms * teams * minutes;
  const us = (t: number) => (t / TICKS_PER_SECOND / teamMinutes) * 1e6;
  process.stdout.write(
    `${JSON.stringify({
      roomwork: {
        teamMinutes,
        mainUser: us(ticks.mainUser),
        mainSystem: us(ticks.mainSystem),
        v8: us(ticks.v8),
        writer: us(ticks.app),
        wallUs: (wall * 1000) / teamMinutes,
      },
    })}\n`,
  );
});
