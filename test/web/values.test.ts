// Control values between the server's base units and the inputs' display units; the pictures'
// derivations; the leaderboard's order; the trends; the chart range; the teacher link's key.
import { describe, expect, test } from 'vitest';
import type { NumberControlDef } from '../../shared/sim/types.ts';
import { getModel } from '../../shared/sim/registry.ts';
import { validateChange } from '../../shared/sim/controls.ts';
import type { RoomMinute } from '../../shared/protocol/types.ts';
import {
  checkDisplay,
  decimalsOf,
  displayBounds,
  formatControlNumber,
  fromDisplay,
  toDisplay,
} from '../../web/lib/sims/control-values.ts';
import { barPercent, dotSeconds, fleetSlots, issuerPicture, rackSlots } from '../../web/lib/sims/picture.ts';
import { rank } from '../../web/lib/state/leaderboard.ts';
import { extendTrends } from '../../web/lib/state/trends.ts';
import { minuteTicks, trendAxis } from '../../web/lib/charts/scale.ts';
import { keyFromFragment } from '../../web/lib/net/storage.ts';

const numberDef = (sim: 'payment-switch' | 'web-service', key: string) =>
  getModel(sim).controls.find((c) => c.key === key) as NumberControlDef;

describe('control values', () => {
  test('shares are shown in %, others as they travel', () => {
    const target = numberDef('web-service', 'targetUtilization');
    expect(displayBounds(target)).toEqual({ min: 30, max: 90, step: 1, decimals: 0, symbol: '%' });
    expect(toDisplay(target, 0.6)).toBe(60);
    expect(toDisplay(numberDef('payment-switch', 'fraudThreshold'), 2.7)).toBe(2.7);
    expect(decimalsOf(0.1)).toBe(1);
    expect(decimalsOf(1)).toBe(0);
  });
  test('every value the inputs can produce is one the server accepts', () => {
    for (const sim of ['payment-switch', 'web-service'] as const) {
      for (const def of getModel(sim).controls) {
        if (def.kind !== 'number') continue;
        const b = displayBounds(def);
        for (let shown = b.min; shown <= b.max + 1e-9; shown += b.step) {
          const v = fromDisplay(def, shown);
          expect(v, `${def.key} ${shown}`).not.toBeNull();
          expect(() => validateChange(getModel(sim), { key: def.key, value: v! })).not.toThrow();
          expect(toDisplay(def, v!)).toBeCloseTo(shown, 6);
        }
      }
    }
  });
  test('typed values are clamped and snapped to the step', () => {
    const servers = numberDef('payment-switch', 'servers');
    expect(fromDisplay(servers, 40)).toBe(24);
    expect(fromDisplay(servers, 0)).toBe(2);
    expect(fromDisplay(servers, 7.4)).toBe(7);
    expect(fromDisplay(numberDef('payment-switch', 'issuerTimeoutS'), 2.349)).toBe(2.3);
    expect(fromDisplay(numberDef('web-service', 'shedLowPriority'), 33.3)).toBe(0.33);
    expect(fromDisplay(servers, Number.NaN)).toBeNull();
  });
  test("formatted in the reader's language", () => {
    expect(formatControlNumber(numberDef('payment-switch', 'fraudThreshold'), 2.5, 'it')).toBe('2,5 σ');
    expect(formatControlNumber(numberDef('web-service', 'targetUtilization'), 0.6, 'en')).toBe('60 %');
    expect(formatControlNumber(numberDef('payment-switch', 'servers'), 12, 'en')).toBe('12');
  });
});

describe('pictures', () => {
  test('the rack: serving, booting, then free positions, never more than 24', () => {
    const r = rackSlots(6, 4);
    expect(r).toHaveLength(24);
    expect(r.filter((s) => s === 'serving')).toHaveLength(6);
    expect(r.slice(6, 10).every((s) => s === 'booting')).toBe(true);
    expect(r.slice(10).every((s) => s === 'free')).toBe(true);
    expect(rackSlots(30, 5).every((s) => s === 'serving')).toBe(true);
  });
  test('issuers: slow when the issuer is slow; cut off when our own timeout is shorter than its answers', () => {
    const at = (timeoutS: number) => ({ issuerTimeoutS: timeoutS });
    // All well: the default 8 s against 250 ms answers.
    const calm = issuerPicture({ groupBLatencyMs: 280, issuerTimeoutShare: 0, standInTps: 0 }, at(8));
    expect([calm.groupA.state, calm.groupB.state, calm.standIn]).toEqual(['ok', 'ok', false]);
    expect(calm.groupA.meanMs).toBe(250);
    // The outage: group B answers in 12 s on average, half of it after our 8 s; group A is fine; stand-in works.
    const outage = issuerPicture({ groupBLatencyMs: 12000, issuerTimeoutShare: 0.2, standInTps: 30 }, at(8));
    expect([outage.groupA.state, outage.groupB.state, outage.standIn]).toEqual(['ok', 'slow', true]);
    expect(outage.groupB.cutShare).toBeCloseTo(Math.exp(-8 / 12), 10);
    // Our timeout too short for everyone: both issuers answer normally (248 ms), our 0.5 s cuts off 13 %.
    const short = issuerPicture({ groupBLatencyMs: 248, issuerTimeoutShare: 0.13, standInTps: 0 }, at(0.5));
    expect([short.groupA.state, short.groupB.state]).toEqual(['cut', 'cut']);
    expect(short.groupA.cutShare).toBeCloseTo(Math.exp(-2), 10);
    expect(short.timeoutS).toBe(0.5);
    // A 1 s timeout during the outage: group B slow, group A loses 1.8 % of its answers to it — said, not blamed on A.
    const play = issuerPicture({ groupBLatencyMs: 11500, issuerTimeoutShare: 0.25, standInTps: 60 }, at(1));
    expect([play.groupA.state, play.groupB.state]).toEqual(['cut', 'slow']);
    // A timeout that cuts off under 1 % is no story: 1.2 s → 0.8 % of group A.
    expect(issuerPicture({ groupBLatencyMs: 250 }, at(1.2)).groupA.state).toBe('ok');
  });
  test('dots move faster with more traffic, within bounds, and stop without it', () => {
    expect(dotSeconds(400, 400)).toBe(3);
    expect(dotSeconds(800, 400)).toBe(1.5);
    expect(dotSeconds(1e6, 400)).toBe(0.6);
    expect(dotSeconds(1, 400)).toBe(8);
    expect(dotSeconds(0, 400)).toBe(0);
  });
  test('fleet and bars', () => {
    expect(fleetSlots(10, 3)).toEqual([...Array(10).fill('serving'), ...Array(3).fill('booting')]);
    expect(fleetSlots(39, 5)).toHaveLength(40);
    expect(barPercent(1.4)).toBe(100);
    expect(barPercent(-0.1)).toBe(0);
    expect(barPercent(0.19)).toBeCloseTo(19);
  });
});

test('leaderboard: by score, free play last, ties share a rank', () => {
  const teams = [0, 1, 2, 3].map((idx) => ({ id: idx + 10, idx, name: '', whatIf: null }));
  const rows = rank(
    [
      { teamId: 10, name: '', score: 1020.5, met: 1, total: 3 },
      { teamId: 11, name: '', score: 3050, met: 3, total: 3 },
      { teamId: 12, name: '', score: null, met: 0, total: 0 },
      { teamId: 13, name: '', score: 1020.5, met: 1, total: 3 },
    ],
    teams,
  );
  expect(rows.map((r) => [r.teamId, r.rank])).toEqual([
    [11, 1],
    [10, 2],
    [13, 2],
    [12, 4],
  ]);
});

test('trends grow by minute and restart cleanly', () => {
  const minute = (m: number, v: number): RoomMinute => ({
    roundId: 1,
    minute: m,
    sentAt: 0,
    teams: [
      {
        teamId: 5,
        snapshot: { minute: m, indicators: { p99Ms: v }, status: {}, controls: {}, detail: {}, events: [] },
        progress: [],
        score: null,
        ledger: { total: 0, baseline: 0, calm: 0, saving: 0 },
      },
    ],
  });
  let t = extendTrends({}, minute(0, 100), ['p99Ms']);
  t = extendTrends(t, minute(1, 120), ['p99Ms']);
  expect(t[5].p99Ms).toEqual([100, 120]);
  expect(extendTrends(t, minute(1, 90), ['p99Ms'])[5].p99Ms).toEqual([100, 90]);
});

describe("the trend charts' y axis", () => {
  const within = (a: { min: number; max: number }, ...xs: number[]) => xs.every((x) => x >= a.min && x <= a.max);

  test('a flat 330 ms line is not drawn on a 320–340 ms axis; the goal line is on the axis', () => {
    const flat = trendAxis([330, 332, 335], [], { digits: 0 });
    expect(flat.max - flat.min).toBeGreaterThanOrEqual(0.25 * 335);
    const withGoal = trendAxis([330, 332, 335], [500], { digits: 0 });
    expect(within(withGoal, 330, 335, 500)).toBe(true);
    // Air above the goal: it is not drawn on the plot's edge.
    expect(withGoal.max).toBeGreaterThan(500);
    expect(withGoal).toEqual({ min: 300, max: 550, ticks: [300, 350, 400, 450, 500, 550] });
  });

  test('shares stay within 0–100 %, and data never below zero gets no negative axis', () => {
    const approval = trendAxis([99.9, 99.9], [95], { digits: 1, share: true });
    expect(approval.max).toBe(100);
    expect(within(approval, 95, 99.9)).toBe(true);
    const errors = trendAxis([0, 0, 0.02], [], { digits: 2, share: true });
    expect(errors.min).toBe(0);
    expect(trendAxis([2, 3], [], { digits: 1 }).min).toBeGreaterThanOrEqual(0);
  });

  test('ticks are round steps, never finer than the shown decimals, and the axis only widens as data comes', () => {
    for (const [values, digits] of [
      [[10.4, 10.41], 1],
      [[0.001, 0.0012], 2],
      [[640, 2999], 0],
    ] as const) {
      const a = trendAxis(values, [], { digits });
      const step = a.ticks[1] - a.ticks[0];
      expect(step).toBeGreaterThanOrEqual(10 ** -digits - 1e-12);
      expect(a.ticks[0]).toBe(a.min);
      expect(a.ticks.at(-1)).toBe(a.max);
      expect([1, 2, 2.5, 5].some((f) => Math.abs(step / 10 ** Math.floor(Math.log10(step)) - f) < 1e-9)).toBe(true);
    }
    const early = trendAxis([330, 331], [500], { digits: 0 });
    const later = trendAxis([330, 331, 900], [500], { digits: 0 });
    expect(later.min).toBeLessThanOrEqual(early.min);
    expect(later.max).toBeGreaterThanOrEqual(early.max);
  });

  test('minute ticks on round numbers over the whole round', () => {
    expect(minuteTicks(60)).toEqual([0, 10, 20, 30, 40, 50, 60]);
    expect(minuteTicks(30)).toEqual([0, 5, 10, 15, 20, 25, 30]);
    expect(minuteTicks(12, 4)).toEqual([0, 5, 10]);
  });
});

test('typed values are checked, not corrected: out of range or off the step is not sent', () => {
  const timeout = numberDef('payment-switch', 'issuerTimeoutS');
  expect(checkDisplay(timeout, 9)).toBe(9);
  expect(checkDisplay(timeout, 2.3)).toBe(2.3);
  expect(checkDisplay(numberDef('payment-switch', 'fraudThreshold'), 9)).toBeNull();
  expect(checkDisplay(timeout, 16)).toBeNull();
  expect(checkDisplay(timeout, 0.4)).toBeNull();
  expect(checkDisplay(timeout, 2.35)).toBeNull();
  expect(checkDisplay(numberDef('payment-switch', 'servers'), 7.5)).toBeNull();
  expect(checkDisplay(numberDef('web-service', 'targetUtilization'), 61)).toBe(0.61);
  expect(checkDisplay(numberDef('web-service', 'targetUtilization'), 95)).toBeNull();
  expect(checkDisplay(timeout, Number.NaN)).toBeNull();
});

test('the teacher link carries the key in its fragment', () => {
  expect(keyFromFragment('#key=abcdefghijklmnopqrstuvwxyz012345')).toBe('abcdefghijklmnopqrstuvwxyz012345');
  expect(keyFromFragment('#key=short')).toBeNull();
  expect(keyFromFragment('')).toBeNull();
});
