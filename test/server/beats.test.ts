// A room's beats on a manual clock: minutes planned from the plan (no drift), in step with the round's state and
// tempo, and nothing after stop().
import { expect, test } from 'vitest';
import { Beats } from '../../server/rooms/beats.ts';
import { ManualClock } from '../../server/lib/clock.ts';
import type { RoundRun } from '../../server/rooms/state.ts';

const round = (state: RoundRun['state'], tempo: RoundRun['tempo'], id = 1) => ({ id, state, tempo }) as RoundRun;

function beats() {
  const clock = new ManualClock(0);
  const fired: [due: number, at: number][] = [];
  const b: Beats = new Beats(clock, (due) => {
    fired.push([due, clock.now()]);
    b.plan(due, 2);
  });
  return { clock, fired, b };
}

test('each minute is planned from the last one’s due time, and fires at it', () => {
  const { clock, fired, b } = beats();
  b.follow(round('lobby', 2), round('running', 2), 1005);
  expect(b.planned).toBe(true);
  clock.advance(7004);
  expect(fired).toEqual([
    [3005, 3005],
    [5005, 5005],
  ]);
  clock.advance(1);
  expect(fired.at(-1)).toEqual([7005, 7005]);
});

test('pause clears the plan, resume plans a tempo from the resume, a new tempo counts from the last plan', () => {
  const { clock, fired, b } = beats();
  b.follow(round('lobby', 2), round('running', 2), 0);
  b.follow(round('running', 2), round('paused', 2), 500);
  expect(b.planned).toBe(false);
  clock.advance(5000);
  expect(fired).toEqual([]);
  b.follow(round('paused', 2), round('running', 2), 5000);
  b.follow(round('running', 2), round('running', 5), 6000);
  clock.advance(4000); // now 9000: the plan was 5000 + 5 s
  expect(fired).toEqual([]);
  clock.advance(1000);
  expect(fired).toEqual([[10_000, 10_000]]);
  // Same state, same tempo, same round: the plan stands.
  b.follow(round('running', 2), round('running', 2), 10_500);
  clock.advance(2000);
  expect(fired).toEqual([
    [10_000, 10_000],
    [12_000, 12_000],
  ]);
});

test('after stop() nothing fires and nothing can be planned', () => {
  const { clock, fired, b } = beats();
  b.follow(round('lobby', 1), round('running', 1), 0);
  b.stop();
  b.plan(0, 1);
  expect(b.planned).toBe(false);
  clock.advance(10_000);
  expect(fired).toEqual([]);
});
