// The design primitives (shared/design): plays with reactive rules, their text forms, evaluation over
// seeds against each seed's baseline, the seed's share of score variance, the search, and one scenario's
// report on a small budget.
import { describe, expect, it } from 'vitest';
import { evaluatePlay, makeBench, seedShare } from '../../shared/design/evaluate.ts';
import {
  parseChange,
  formatTrigger,
  parseTrigger,
  playArgs,
  PlayError,
  runPlay,
  shellLine,
  triggered,
  type Play,
} from '../../shared/design/play.ts';
import { scenarioReport } from '../../shared/design/report.ts';
import { searchPlays } from '../../shared/design/search.ts';
import {
  buildSpace,
  delayed,
  FIXED,
  mutatePlay,
  normalize,
  randomPlay,
  withoutRole,
  ADAPTIVE,
} from '../../shared/design/space.ts';
import { parseArgs } from '../../server/cli/sim-cli.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';
import { rngFromSeed } from '../../shared/sim/rng.ts';
import type { Snapshot } from '../../shared/sim/types.ts';

const snap = (minute: number, x: number, events: string[] = [], na?: string[]): Snapshot => ({
  minute,
  indicators: { x },
  status: {},
  controls: {},
  detail: {},
  events: events.map((kind) => ({ kind })),
  ...(na ? { na } : {}),
});

describe('triggers', () => {
  it('an event shows in the minute it is in; an indicator crosses when it holds now and did not before', () => {
    expect(triggered({ event: 'a' }, snap(3, 0, ['a']), snap(2, 0))).toBe(true);
    expect(triggered({ event: 'a' }, snap(3, 0, ['b']), snap(2, 0))).toBe(false);
    const below = { indicator: 'x', op: '<' as const, value: 5 };
    expect(triggered(below, snap(3, 4), snap(2, 6))).toBe(true);
    expect(triggered(below, snap(3, 4), snap(2, 4))).toBe(false); // already below: no crossing
    expect(triggered(below, snap(0, 4), undefined)).toBe(false);
    expect(triggered(below, snap(3, 0, [], ['x']), snap(2, 6))).toBe(false); // nothing under it
    expect(triggered({ indicator: 'x', op: '>', value: 5 }, snap(3, 6), snap(2, 0, [], ['x']))).toBe(true);
  });
  it('an event with a figure shows only when the figure it carries is on the side the trigger asks for', () => {
    const announced = (size: number | string): Snapshot => ({ ...snap(3, 0), events: [{ kind: 'sale', size }] });
    const big = { event: 'sale', field: 'size', op: '>' as const, value: 3 };
    expect(triggered(big, announced(4.5), undefined)).toBe(true);
    expect(triggered(big, announced(2), undefined)).toBe(false);
    expect(triggered(big, announced('big'), undefined)).toBe(false); // not a figure
    expect(triggered({ ...big, field: 'in' }, announced(4.5), undefined)).toBe(false); // the event has no such figure
    expect(triggered({ ...big, op: '<' }, announced(2), undefined)).toBe(true);
  });
  it('a rule fires once, applies the minute after it showed (plus its delay), and never after the round', () => {
    const spec = { scenario: 'sale-surge', seed: 1, noise: false, minutes: 20 };
    const play: Play = {
      timed: [],
      rules: [
        { on: { event: 'sale-start' }, delay: 2, changes: [{ key: 'servers', value: 10 }] },
        { on: { event: 'sale-start' }, delay: 30, changes: [{ key: 'servers', value: 7 }] },
      ],
    };
    const { snapshots, applied } = runPlay(paymentSwitch, spec, play);
    expect(applied).toEqual([{ minute: 8, key: 'servers', value: 10 }]);
    expect(snapshots[7].controls.servers).toBe(6);
    expect(snapshots[8].controls.servers).toBe(10);
  });
  it('text forms: parse, print, and back through the sim CLI', () => {
    expect(parseTrigger(paymentSwitch, 'issuer-slow+2')).toEqual({ on: { event: 'issuer-slow' }, delay: 2 });
    expect(parseTrigger(paymentSwitch, 'groupBLatencyMs<1000')).toEqual({
      on: { indicator: 'groupBLatencyMs', op: '<', value: 1000 },
      delay: 0,
    });
    expect(parseTrigger(paymentSwitch, 'sale-announced.size>3+1')).toEqual({
      on: { event: 'sale-announced', field: 'size', op: '>', value: 3 },
      delay: 1,
    });
    expect(formatTrigger({ event: 'sale-announced', field: 'size', op: '<', value: 3 }, 2)).toBe(
      'sale-announced.size<3+2',
    );
    expect(() => parseTrigger(paymentSwitch, 'speed>3')).toThrow(/unknown indicator "speed"/);
    expect(() => parseTrigger(paymentSwitch, 'newTps=3')).toThrow(PlayError);
    expect(() => parseChange(paymentSwitch, 'servers=99')).toThrow(/servers: 99 is out of range/);
    const play: Play = {
      timed: [
        { minute: 0, key: 'shedding', value: true },
        { minute: 12, key: 'servers', value: 9 },
      ],
      rules: [
        {
          on: { indicator: 'slotsBusy', op: '>', value: 0.9 },
          delay: 1,
          changes: [
            { key: 'retryPolicy', value: 'backoff' },
            { key: 'servers', value: 12 },
          ],
        },
      ],
    };
    const args = playArgs(play);
    expect(shellLine(args)).toBe(
      "--set shedding=on --set servers=9@12 --on 'slotsBusy>0.9+1' retryPolicy=backoff servers=12",
    );
    const o = parseArgs(['--model', 'payment-switch', '--scenario', 'sale-surge', ...args]);
    expect({ timed: o.changes, rules: o.rules }).toEqual(play);
  });
});

describe('evaluation and the seed', () => {
  it('doing nothing scores 0 on every seed and wins nowhere; a good play wins', () => {
    const bench = makeBench(paymentSwitch, 'sale-surge', [1, 2, 3]);
    const nothing = evaluatePlay(bench, { timed: [], rules: [] });
    expect(nothing.perSeed.map((r) => r.score)).toEqual([0, 0, 0]);
    expect(nothing.winRate).toBe(0);
    const play: Play = {
      timed: [],
      rules: [
        {
          on: { event: 'sale-start' },
          delay: 0,
          changes: [
            { key: 'servers', value: 10 },
            { key: 'shedding', value: true },
            { key: 'retryPolicy', value: 'backoff' },
          ],
        },
      ],
    };
    const e = evaluatePlay(bench, play);
    expect(e.winRate).toBe(1);
    expect(e.goalRates).toEqual([1, 1, 1]);
    expect(e.meanScore).toBeGreaterThan(0);
  });
  it('seedShare: 1 when only the seed matters, 0 when only the play does, between for a mix', () => {
    expect(
      seedShare([
        [1, 5, 9],
        [1, 5, 9],
      ]),
    ).toBeCloseTo(1, 12);
    expect(
      seedShare([
        [1, 1, 1],
        [7, 7, 7],
      ]),
    ).toBe(0);
    const s = seedShare([
      [1, 2],
      [5, 7],
    ]);
    expect(s).toBeGreaterThan(0);
    expect(s).toBeLessThan(0.2);
    expect(
      seedShare([
        [3, 3],
        [3, 3],
      ]),
    ).toBe(0);
  });
});

describe('the space of plays and its moves', () => {
  const bench = makeBench(paymentSwitch, 'sale-day', [1, 2]);
  const space = buildSpace(paymentSwitch, bench.nothingRuns, 60);
  it('knows the events of the desk and candidate crossings of the indicators (no running totals)', () => {
    expect(space.events).toEqual(
      expect.arrayContaining(['sale-announced', 'surge-start', 'card-testing-start', 'issuer-slow']),
    );
    expect(space.events).not.toContain('control');
    expect(space.crossings.some((c) => c.indicator === 'newTps')).toBe(true);
    expect(space.crossings.some((c) => c.indicator === 'ledgerTotal')).toBe(false);
  });
  it('random and mutated plays stay valid within their limits', () => {
    const rng = rngFromSeed(5);
    for (let i = 0; i < 200; i++) {
      const fixed = randomPlay(rng, space, FIXED);
      expect(fixed.rules).toEqual([]);
      expect(fixed.timed.every((c) => c.minute === 0)).toBe(true);
      const m = mutatePlay(rng, space, randomPlay(rng, space, ADAPTIVE), ADAPTIVE);
      expect(m.rules.length).toBeLessThanOrEqual(ADAPTIVE.maxRules);
      expect(m.timed.every((c) => c.minute >= 0 && c.minute <= 60)).toBe(true);
      expect(() =>
        runPlay(paymentSwitch, { scenario: 'sale-day', seed: 1, noise: true, minutes: 60 }, m),
      ).not.toThrow();
    }
  });
  it("withoutRole drops only that role's changes; delayed moves every reaction; normalize keeps the last change of a key", () => {
    const p: Play = {
      timed: [
        { minute: 0, key: 'servers', value: 8 },
        { minute: 0, key: 'shedding', value: true },
      ],
      rules: [{ on: { event: 'x' }, delay: 1, changes: [{ key: 'servers', value: 9 }] }],
    };
    expect(withoutRole(paymentSwitch, p, 'scaling')).toEqual({
      timed: [{ minute: 0, key: 'shedding', value: true }],
      rules: [],
    });
    expect(delayed(p, 3).rules[0].delay).toBe(4);
    expect(
      normalize({
        timed: [
          { minute: 0, key: 'servers', value: 8 },
          { minute: 0, key: 'servers', value: 9 },
        ],
        rules: [],
      }).timed,
    ).toEqual([{ minute: 0, key: 'servers', value: 9 }]);
  });
});

describe('search and report', () => {
  it('the search finds a fixed play for the fraud wave that beats doing nothing, the same for the same seed', () => {
    const bench = makeBench(paymentSwitch, 'fraud-wave', [1, 2]);
    const space = buildSpace(paymentSwitch, bench.nothingRuns, bench.minutes);
    const a = searchPlays(bench, space, { limits: FIXED, budget: 60, seed: 3 });
    const b = searchPlays(bench, space, { limits: FIXED, budget: 60, seed: 3 });
    expect(a).toEqual(b);
    expect(a.eval.meanScore).toBeGreaterThan(0);
  });
  it('a scenario report on a small budget has every figure, consistent with its plays', () => {
    const r = scenarioReport(paymentSwitch, 'black-friday', { seeds: [1, 2], budget: 24, convergence: false });
    expect(r.targeted).toBe(true);
    expect(r.goals).toEqual(['approval', 'healthyApproval', 'fraudRate', 'stepUp', 'cost', 'exposure']);
    expect(r.nothing.meanScore).toBe(0);
    expect(r.half).toBeUndefined();
    const run = r.run;
    // The best adaptive play starts from the best fixed and two-time plays, so it never scores less.
    expect(run.adaptive.meanScore).toBeGreaterThanOrEqual(run.fixedBestScore.meanScore);
    expect(run.adaptive.meanScore).toBeGreaterThanOrEqual(run.twoTimes.meanScore);
    expect(run.fixed.play.rules).toEqual([]);
    expect(run.twoTimes.play.rules.length).toBeLessThanOrEqual(1);
    expect(run.roles.map((x) => x.role)).toEqual(['scaling', 'shedding', 'fraud', 'standin']);
    for (const x of run.roles) {
      const own = paymentSwitch.roles.find((role) => role.id === x.role)!.controls;
      expect(Object.keys(x.setOnce.setting).every((k) => own.includes(k))).toBe(true);
      expect(x.windows.perWindow).toHaveLength(12);
      expect(x.windows.min).toBeLessThanOrEqual(x.windows.median);
    }
    expect(r.teams.map((t) => `${t.skill}@${t.delay}`)).toEqual([
      'careful@0',
      'careful@1',
      'careful@2',
      'careful@3',
      'late@1',
      'careless@1',
    ]);
    expect(run.plays.total).toBe(run.plays.fixed + run.plays.twoTimes + run.plays.adaptive + run.plays.setOnce);
    expect(r.floor.corners).toBeGreaterThan(0);
    expect(r.checks.map((c) => c.id)).toEqual([
      'nothing-loses',
      'documented-wins',
      'late-documented',
      'teams',
      'floor',
      'fixed-wins',
      'fixed-score',
      'two-times',
      'set-once',
      'windows',
      'late-best',
      'buy-check',
      'ceiling',
      'converged',
    ]);
  });
  it('with the convergence check the report runs every search at the budget and at twice it', () => {
    const r = scenarioReport(paymentSwitch, 'fraud-wave', { seeds: [1], budget: 12 });
    expect(r.targeted).toBe(false);
    expect(r.half?.budget).toBe(12);
    expect(r.run.budget).toBe(24);
    expect(r.unsettled).toEqual(
      r.run.checks.filter((c) => r.half!.checks.find((h) => h.id === c.id)!.ok !== c.ok).map((c) => c.id),
    );
  });
});
