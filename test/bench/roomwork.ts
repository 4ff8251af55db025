// Bench 3f: the rooms' own work per team-minute, without sockets — a yardstick for the limit probe's CPU per
// snapshot, whose single runs move by ±3 µs on this machine. 250 rooms
// of 10 teams (the limit probe's 10,000 students) played in process by a manual clock, at the limit probe's tempo,
// in a process of their own with the server's Node flags: the simulation, goals and score, the texts, the hand-over
// and the commit through the writer thread, as the server does them; CPU per thread from the scheduler's clock.
import { serverFlags } from './fanout.ts';
import { startChild } from './spawn.ts';
import { fmt } from './stats.ts';
import { reportSurvivors, type Census } from './survivors.ts';

export interface RoomWorkOptions {
  rooms: number;
  teams: number;
  /** Minutes played before the measured ones (the compiler's warm-up). */
  warmup: number;
  minutes: number;
  /** Rooms stepped together, sharing a commit. */
  group: number;
  /** A simulated minute every this many ms (the limit probe's tempo: 1,000); 0: as fast as the rooms go. */
  periodMs: number;
  /** After the measured minutes, count what one more minute leaves alive (survivors.ts). */
  survivors?: boolean;
}

export const ROOMWORK_DEFAULTS: RoomWorkOptions = {
  rooms: 250,
  teams: 10,
  warmup: 10,
  minutes: 45,
  group: 50,
  periodMs: 1000,
};

export interface RoomWorkResult {
  opts: RoomWorkOptions;
  /** µs of CPU per team-minute, by thread. */
  mainUser: number;
  mainSystem: number;
  v8: number;
  writer: number;
  wallUs: number;
  /** The database transactions of the measured minutes (one per group of rooms), from the server's histogram. */
  transactions: { count: number; p50Ms: number; p99Ms: number; over10Ms: number };
  survivors: Census | null;
}

export async function benchRoomWork(opts: RoomWorkOptions = ROOMWORK_DEFAULTS): Promise<RoomWorkResult> {
  const args = [opts.rooms, opts.teams, opts.warmup, opts.minutes, opts.group, opts.periodMs].map(String);
  if (opts.survivors) args.push('survivors');
  const flags = opts.survivors ? [...serverFlags(), '--expose-gc'] : serverFlags();
  const child = startChild('./roomwork-child.ts', args, {}, flags);
  try {
    const { roomwork } = await child.next<{ roomwork: Omit<RoomWorkResult, 'opts'> }>((m) => 'roomwork' in m);
    return { opts, ...roomwork };
  } finally {
    await child.stop();
  }
}

/** A team-minute feeds its four students and a tenth of its teacher's room minute. */
const SNAPSHOTS_PER_TEAM_MINUTE = 4.1;

export function reportRoomWork(r: RoomWorkResult): string {
  const total = r.mainUser + r.mainSystem + r.v8 + r.writer;
  return [
    `${r.opts.rooms} rooms of ${r.opts.teams} teams, ${r.opts.minutes} minutes measured after ${r.opts.warmup}, ${r.opts.group} rooms stepped together, ${r.opts.periodMs ? `a minute every ${r.opts.periodMs} ms` : 'as fast as they go'}: CPU per team-minute ${fmt(total)} µs = ${fmt(total / SNAPSHOTS_PER_TEAM_MINUTE)} µs per delivered snapshot at 4 students a team`,
    `  by thread: main ${fmt(r.mainUser)} + ${fmt(r.mainSystem)} µs (user + system), V8's helpers ${fmt(r.v8)} µs, database writer and checkpoints ${fmt(r.writer)} µs${r.opts.periodMs ? '' : `; wall ${fmt(r.wallUs)} µs per team-minute`}`,
    `  ${r.transactions.count} transactions: p50 ${fmt(r.transactions.p50Ms)} ms, p99 ${fmt(r.transactions.p99Ms)} ms, ${fmt(100 * r.transactions.over10Ms)} % over 10 ms`,
    ...(r.survivors ? [reportSurvivors(r.survivors, r.opts.rooms * r.opts.teams)] : []),
  ].join('\n');
}
