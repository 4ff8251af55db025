// Bench 8: loading a room from the database, as the first look-up of its code after a restart or after
// it left memory does — a 30-team, 240-minute round finished (read from its stored minutes) and one
// paused at its last minute (re-simulated from seed and changes, as a round that goes on must be) — and a
// team's history read back from the database, as a desk's reload asks for it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Committer } from '../../server/db/commit.ts';
import { openSqlite } from '../../server/db/open.ts';
import { ManualClock } from '../../server/lib/clock.ts';
import { RoomManager } from '../../server/rooms/manager.ts';
import type { RoomOutput } from '../../server/rooms/output.ts';
import { verifyRounds } from '../../server/replay/verify.ts';
import { fmt, summary } from './stats.ts';
import { joinStudent } from '../server/seats.ts';

const quiet: RoomOutput = { emit() {}, placePlayer() {}, dropPlayer() {}, viewPlayer() {} };

/** How long `fn` takes, and the longest the event loop was held by it without a turn for others. */
async function timed(fn: () => Promise<unknown>): Promise<{ total: number; block: number }> {
  let last = performance.now();
  let block = 0;
  let done = false;
  const spin = () => {
    const now = performance.now();
    block = Math.max(block, now - last);
    last = now;
    if (!done) setImmediate(spin);
  };
  setImmediate(spin);
  const t0 = performance.now();
  await fn();
  const total = performance.now() - t0;
  done = true;
  return { total, block: Math.max(block, performance.now() - last) };
}
const log = { info() {}, warn() {}, error() {} };

export async function benchLoad(teams = 30, minutes = 240, runs = 15) {
  const dir = mkdtempSync(join(tmpdir(), 'opsroom-load-'));
  const store = openSqlite(join(dir, 'load.db'));
  const clock = new ManualClock();
  const managerOn = () =>
    new RoomManager({ store, committer: new Committer(store), out: quiet, clock, log, drawSeed: () => 7 });
  try {
    const play = managerOn();
    const codes: Record<'finished' | 'paused', string> = { finished: '', paused: '' };
    for (const end of ['finished', 'paused'] as const) {
      const { room } = await play.create({ teamCount: teams, minutes, tempo: 1, seed: 11 });
      for (let i = 0; i < teams; i++) await joinStudent(play, room.code, `P${i}`);
      await room.dispatch({ type: 'clock', action: 'start' });
      for (let m = 1; m <= (end === 'finished' ? minutes : minutes - 1); m++) {
        clock.advance(1000);
        await room.settled();
      }
      if (end === 'paused') await room.dispatch({ type: 'clock', action: 'pause' });
      codes[end] = room.code;
    }
    await play.close();
    const out = {} as Record<
      'finished' | 'paused',
      { total: ReturnType<typeof summary>; block: ReturnType<typeof summary> }
    >;
    for (const end of ['finished', 'paused'] as const) {
      const totals: number[] = [];
      const blocks: number[] = [];
      for (let i = 0; i < runs + 2; i++) {
        // A fresh manager holds no room: the look-up reads it from the database.
        const m = managerOn();
        const t = await timed(() => m.get(codes[end]));
        if (i >= 2) {
          totals.push(t.total);
          blocks.push(t.block);
        }
        await m.close();
      }
      out[end] = { total: summary(totals), block: summary(blocks) };
    }
    // A desk's history after a reload: the room keeps each team's latest minute only, the rest is read back.
    const reader = managerOn();
    const paused = await reader.get(codes.paused);
    const teamId = [...paused.round.teams.keys()][0];
    const reads: number[] = [];
    for (let i = 0; i < runs + 2; i++) {
      const t = await timed(() => paused.historyOf(teamId));
      if (i >= 2) reads.push(t.total);
    }
    await reader.close();
    const verify = await timed(() => verifyRounds(store));
    return { teams, minutes, ...out, history: summary(reads), verify };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function reportLoad(r: Awaited<ReturnType<typeof benchLoad>>): string {
  const line = (what: string, s: { total: ReturnType<typeof summary>; block: ReturnType<typeof summary> }) =>
    `${what.padEnd(36)} median ${fmt(s.total.median, 1)} ms (p95 ${fmt(s.total.p95, 1)}); the event loop held at most ${fmt(s.block.median, 1)} ms at a time (median of runs; worst ${fmt(s.block.max, 1)})`;
  return [
    line('finished, read from stored minutes:', r.finished),
    line('paused, re-simulated and checked:', r.paused),
    `a team's history (${r.minutes} minutes) read back: median ${fmt(r.history.median, 1)} ms (p95 ${fmt(r.history.p95, 1)})`,
    `verify-replays of both rounds (re-simulated): ${fmt(r.verify.total, 0)} ms`,
  ].join('\n');
}
