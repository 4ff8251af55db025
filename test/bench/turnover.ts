// Bench 2b: what a round's end and the next round's start cost next to an ordinary minute, per team. Rooms of
// 10 teams and 40 students (joined as commands: no sockets), stepped by the teacher's clock on a SQLite file,
// as the server runs them; CPU read per thread from /proc (Linux), so the collector's helpers count with the
// event loop's.
import { splitBetween, threadTimes } from './procstat.ts';
import { pausedRooms, withBenchApp } from './rooms.ts';
import { fmt } from './stats.ts';

type Phase = 'minute' | 'lastMinute' | 'next' | 'start';
const PHASES: Phase[] = ['minute', 'lastMinute', 'next', 'start'];

export interface TurnoverResult {
  rooms: number;
  teams: number;
  minutes: number;
  rounds: number;
  /** µs of CPU per team: on the event loop, and on every other thread (the collector's helpers). */
  main: Record<Phase, number>;
  other: Record<Phase, number>;
}

export async function benchTurnover(rooms = 60, minutes = 60, rounds = 2): Promise<TurnoverResult> {
  const teams = 10;
  const ms = { main: zero(), other: zero() };
  await withBenchApp('turnover', async (app) => {
    const list = await pausedRooms(app, rooms, { teams, minutes, students: 4 });
    const measured = async (phase: Phase, run: () => Promise<unknown>) => {
      const before = threadTimes(process.pid);
      await run();
      const s = splitBetween(process.pid, before, threadTimes(process.pid));
      ms.main[phase] += 1000 * (s.mainUser + s.mainSystem);
      ms.other[phase] += 1000 * s.others;
    };
    const all = (action: 'step' | 'next' | 'start' | 'pause') =>
      Promise.all(list.map((room) => room.dispatch({ type: 'clock', action })));
    for (let k = 0; k < rounds; k++) {
      // The first round was started by pausedRooms; the next ones as a teacher does after the scores: next, start.
      if (k > 0) {
        await measured('next', () => all('next'));
        await measured('start', async () => {
          await all('start');
          await all('pause');
        });
      }
      for (let m = 1; m <= minutes; m++) await measured(m === minutes ? 'lastMinute' : 'minute', () => all('step'));
    }
  });
  const perTeam = (o: Record<Phase, number>): Record<Phase, number> => {
    const n = rooms * teams;
    return {
      minute: (o.minute * 1000) / (n * rounds * (minutes - 1)),
      lastMinute: (o.lastMinute * 1000) / (n * rounds),
      next: (o.next * 1000) / (n * (rounds - 1)),
      start: (o.start * 1000) / (n * (rounds - 1)),
    };
  };
  return { rooms, teams, minutes, rounds, main: perTeam(ms.main), other: perTeam(ms.other) };
}

const byPhase = (f: (p: Phase) => number) => Object.fromEntries(PHASES.map((p) => [p, f(p)])) as Record<Phase, number>;
const zero = () => byPhase(() => 0);

export function reportTurnover(r: TurnoverResult): string {
  const line = (label: string, o: Record<Phase, number>) =>
    `  ${label.padEnd(14)} ${PHASES.map((p) => `${p} ${fmt(o[p], 0)}`).join(', ')}`;
  const total = byPhase((p) => r.main[p] + r.other[p]);
  const extra = total.lastMinute - total.minute + total.next + total.start;
  return [
    `${r.rooms} rooms of ${r.teams} teams and ${r.teams * 4} students, ${r.rounds} rounds of ${r.minutes} minutes; µs of CPU per team:`,
    line('event loop', r.main),
    line('other threads', r.other),
    line('total', total),
    `  a round's end and the next start cost ${fmt(extra, 0)} µs per team, ${fmt(extra / total.minute, 1)} ordinary minutes`,
  ].join('\n');
}
