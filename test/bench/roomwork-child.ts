// The room-work bench's measuring process (roomwork.ts), started with the server's Node flags: rooms played in
// process, CPU read per thread around the measured minutes; prints one JSON line. With `survivors` (and --expose-gc),
// one more minute after them is sampled for what it leaves alive (survivors.ts).
import { splitBetween, threadRuntimes, threadTimes } from './procstat.ts';
import { between, bucketsOf, histogramQuantile, shareWithin } from './prom.ts';
import { pausedRooms, withBenchApp } from './rooms.ts';
import { survivorsOf, type Census } from './survivors.ts';

const [rooms, teams, warmup, minutes, group, periodMs] = process.argv.slice(2, 8).map(Number);
const sampled = process.argv[8] === 'survivors' ? 1 : 0;

// Threads there before the app are the main thread and V8's (the collector's helpers, the compiler, tsx's loader);
// those started with it are Opsroom's: the database writer (and libuv's pool, idle here).
const v8Threads = new Set(threadTimes(process.pid).keys());

await withBenchApp('roomwork', async (app) => {
  // One minute longer than played: no round ends in the measured minutes (a round's end is bench 2b's).
  const list = await pausedRooms(app, rooms, { teams, minutes: warmup + minutes + sampled + 1, students: 0 });
  // As the server's rooms come due a few at a time and share a commit: `group` rooms stepped together, the groups
  // spread over the period as the rooms' clocks are. At the real tempo what a minute makes lives as long as it does
  // in the server, which is what the collector's cost depends on; as fast as possible (period 0) it lives a
  // fifteenth of that, and the collector's share is not the server's.
  let due = performance.now();
  const minute = async () => {
    for (let i = 0; i < list.length; i += group) {
      due += (periodMs * group) / list.length;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await Promise.all(list.slice(i, i + group).map((room) => room.dispatch({ type: 'clock', action: 'step' })));
    }
  };
  // The first minutes are the compiler's warm-up.
  for (let m = 0; m < warmup; m++) await minute();
  due = performance.now();
  // The transactions' durations over the measured minutes, from the server's own histogram.
  const commits = async () =>
    bucketsOf((await app.inject({ url: '/metrics' })).body, 'opsroom_commit_duration_seconds');
  const commits0 = await commits();
  const before = threadTimes(process.pid);
  const ran0 = threadRuntimes(process.pid);
  const wall0 = performance.now();
  for (let m = 0; m < minutes; m++) await minute();
  const wall = performance.now() - wall0;
  const ran = threadRuntimes(process.pid);
  const after = threadTimes(process.pid);
  const tx = between(commits0, await commits());
  // Each thread's time from the scheduler's clock (exact); the main thread's split into user and system from the
  // ticks (a sample), scaled to it.
  const ns = { main: 0, v8: 0, app: 0 };
  for (const [tid, t] of ran) {
    const d = t - (ran0.get(tid) ?? 0);
    if (tid === process.pid) ns.main = d;
    else if (v8Threads.has(tid)) ns.v8 += d;
    else ns.app += d;
  }
  // Outside the measured minutes: the sampling profiler costs CPU.
  const survivors: Census | null = sampled ? await survivorsOf(minute) : null;
  const split = splitBetween(process.pid, before, after);
  const userShare = split.mainUser / Math.max(1 / 100, split.mainUser + split.mainSystem);
  const teamMinutes = rooms * teams * minutes;
  const us = (n: number) => n / 1000 / teamMinutes;
  process.stdout.write(
    `${JSON.stringify({
      roomwork: {
        teamMinutes,
        mainUser: us(ns.main) * userShare,
        mainSystem: us(ns.main) * (1 - userShare),
        v8: us(ns.v8),
        writer: us(ns.app),
        wallUs: (wall * 1000) / teamMinutes,
        transactions: {
          count: tx.at(-1)?.[1] ?? 0,
          p50Ms: histogramQuantile(tx, 0.5) * 1000,
          p99Ms: histogramQuantile(tx, 0.99) * 1000,
          over10Ms: 1 - shareWithin(tx, 0.01),
        },
        survivors,
      },
    })}\n`,
  );
});
