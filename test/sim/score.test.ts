// The team score (docs/scoring.md): the saving against doing nothing on a log scale, mission points only
// on top of a real saving, and the failures — a crashed switch, a collapse on a smaller bill,
// shedding everything, a control at an extreme — never above doing nothing.
import { describe, expect, it } from 'vitest';
import { goalLostAt } from '../../shared/replay/chapters.ts';
import { baselineRun, runRound, scenarioDef } from '../../shared/sim/engine.ts';
import { randomControlValue } from '../../shared/sim/controls.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';
import { rngFromSeed, uniform } from '../../shared/sim/rng.ts';
import {
  DEAD_ZONE,
  deadZoneMoney,
  evaluateRound,
  evaluateTallies,
  goalValue,
  goalsOnlyScore,
  ledgerTotals,
  MISSION_LOG,
  MISSION_POINTS,
  MONEY_DECIDES,
  noTallies,
  SAVING_BOUND,
  saving,
  savingSpan,
  scoreRuleOf,
  tallyGoals,
  teamScore,
} from '../../shared/sim/score.ts';
import type { GoalResult, ScheduledChange, SimModel, Snapshot } from '../../shared/sim/types.ts';
import { webService } from '../../shared/sim/web-service/index.ts';

const goal = (met: boolean): GoalResult => ({ id: 'g', indicator: 'x', op: '<=', value: 1, target: 1, met });

describe('saving s', () => {
  it('is 0 for doing nothing, 1 for a calm hour, and every halving of the money lost is worth the same', () => {
    expect(saving(1000, 1000, 100)).toBe(0);
    expect(saving(100, 1000, 100)).toBeCloseTo(1, 12);
    const span = Math.log(10);
    expect(saving(500, 1000, 100)).toBeCloseTo(Math.LN2 / span, 12);
    expect(saving(250, 1000, 100) - saving(500, 1000, 100)).toBeCloseTo(saving(500, 1000, 100), 12);
  });
  it('is below 0 when more money is lost than doing nothing, clamped to [−1, 1]', () => {
    expect(saving(2000, 1000, 100)).toBeCloseTo(-Math.LN2 / Math.log(10), 12);
    expect(saving(1e9, 1000, 100)).toBe(-1);
    expect(saving(1, 1000, 100)).toBe(1);
  });
  it('a play within the dead zone of doing nothing is doing nothing', () => {
    const justBetter = 1000 * Math.exp(-0.9 * DEAD_ZONE * Math.log(10));
    expect(saving(justBetter, 1000, 100)).toBe(0);
    expect(saving(1000 * Math.exp(-1.1 * DEAD_ZONE * Math.log(10)), 1000, 100)).toBeGreaterThan(DEAD_ZONE);
  });
  it('uses at least a halving as its span when doing nothing costs about what a calm hour does (early minutes)', () => {
    expect(saving(50, 110, 100)).toBeCloseTo(Math.min(1, Math.log(110 / 50) / Math.LN2), 12);
    expect(saving(0, 0, 0)).toBe(0);
    expect(saving(5, 0, 0)).toBe(-1);
  });
});

describe('the dead zone in money', () => {
  it('is the saving, or the extra loss, that first counts at this minute', () => {
    for (const [nothing, calm] of [
      [1000, 100],
      [110, 100],
      [4844, 300],
    ]) {
      const { save, lose } = deadZoneMoney(nothing, calm);
      expect(save).toBeGreaterThan(0);
      expect(saving(nothing - save * 0.99, nothing, calm)).toBe(0);
      expect(saving(nothing - save * 1.01, nothing, calm)).toBeGreaterThan(0);
      expect(saving(nothing + lose * 0.99, nothing, calm)).toBe(0);
      expect(saving(nothing + lose * 1.01, nothing, calm)).toBeLessThan(0);
    }
    // Early in a round (the halving scale) a saving counts from about 3.4 % of doing nothing's loss.
    expect(deadZoneMoney(1000, 990).save).toBeCloseTo(1000 * (1 - 2 ** -DEAD_ZONE), 9);
    expect(deadZoneMoney(0, 0)).toEqual({ save: 0, lose: 0 });
  });
});

describe('team score', () => {
  it('1000·s plus the mission points, shared equally by the goals, only on a saving', () => {
    const goals = [goal(true), goal(true), goal(false), goal(true)];
    expect(teamScore(goals, 0.5)).toBe(500 + (3 * MISSION_POINTS) / 4);
    expect(teamScore(goals, 0.06)).toBe(60 + (3 * MISSION_POINTS) / 4);
    expect(teamScore(goals, -0.3)).toBe(-300);
    expect(teamScore([goal(true)], 0)).toBe(0);
  });
  it('rule 2: 1000·(s + ln 1.4 × goals met / goals / D), s unclamped to ±10', () => {
    const goals = [goal(true), goal(true), goal(false), goal(true)];
    const span = savingSpan(1000, 100);
    expect(teamScore(goals, 0.5, 2, span)).toBeCloseTo(1000 * (0.5 + (0.75 * MISSION_LOG) / span), 1);
    expect(teamScore(goals, -0.3, 2, span)).toBe(-300);
    expect(saving(1e9, 1000, 100, 2)).toBeCloseTo(-Math.log(1e6) / span, 12);
    expect(saving(1e40, 1000, 100, 2)).toBe(-SAVING_BOUND);
    expect(saving(1e-40, 1000, 100, 2)).toBe(SAVING_BOUND);
  });
  it('rule 2: meeting every goal never outranks a play that lost 1.5× less money (the worked example of docs/scoring.md)', () => {
    const span = savingSpan(1000, 100);
    const all = [goal(true), goal(true), goal(true)];
    const none = [goal(false), goal(false), goal(false)];
    // The mission is worth less than the money ratio that must always decide.
    expect(MISSION_LOG).toBeLessThan(Math.log(MONEY_DECIDES));
    for (const cheap of [120, 300, 500, 700]) {
      const dear = cheap * MONEY_DECIDES;
      expect(teamScore(all, saving(dear, 1000, 100, 2), 2, span)).toBeLessThan(
        teamScore(none, saving(cheap, 1000, 100, 2), 2, span),
      );
    }
  });
  it('a scenario is scored by rule 2 unless it keeps rule 1 (the retired shifts)', () => {
    expect(scoreRuleOf(scenarioDef(paymentSwitch, 'black-friday'))).toBe(2);
    expect(scoreRuleOf(scenarioDef(paymentSwitch, 'sale-surge'))).toBe(2);
    expect(scoreRuleOf(scenarioDef(paymentSwitch, 'sale-day'))).toBe(1);
    expect(scoreRuleOf(scenarioDef(webService, 'product-launch'))).toBe(2);
    expect(scoreRuleOf(scenarioDef(webService, 'launch-day'))).toBe(1);
  });
  it('without a baseline the goals-only fallback; free play has no score', () => {
    const snaps = runRound(paymentSwitch, { scenario: 'fraud-wave', seed: 1, noise: true, minutes: 10 }).snapshots;
    const def = scenarioDef(paymentSwitch, 'fraud-wave');
    const r = evaluateRound(def, snaps);
    expect(r.score).toBe(goalsOnlyScore(r.goals));
    expect(evaluateRound(scenarioDef(paymentSwitch, 'free'), snaps).score).toBeNull();
  });
  it('live progress compares with the baseline at the same minute; a baseline too short is an error', () => {
    const base = baselineRun(paymentSwitch, 'sale-surge', 2, 60);
    const snaps = runRound(paymentSwitch, { scenario: 'sale-surge', seed: 2, noise: true, minutes: 20 }).snapshots;
    expect(evaluateRound(scenarioDef(paymentSwitch, 'sale-surge'), snaps, base).score).toBe(0);
    const short = baselineRun(paymentSwitch, 'sale-surge', 2, 10);
    expect(() => evaluateRound(scenarioDef(paymentSwitch, 'sale-surge'), snaps, short)).toThrow(/no minute 20/);
  });
  it("the references keep the two runs' ledger totals by minute, not their minutes", () => {
    const total = paymentSwitch.ledger.total;
    const base = baselineRun(paymentSwitch, 'sale-surge', 2, 30);
    const nothing = runRound(paymentSwitch, { scenario: 'sale-surge', seed: 2, noise: true, minutes: 30 }).snapshots;
    const calm = runRound(paymentSwitch, { scenario: 'free', seed: 2, noise: true, minutes: 30 }).snapshots;
    expect(Object.keys(base).sort()).toEqual(['calm', 'nothing', 'total']);
    expect(base.nothing).toEqual(nothing.map((s) => s.indicators[total]));
    expect(base.calm).toEqual(calm.map((s) => s.indicators[total]));
    // Doing nothing scores against itself at every minute: a saving of 0.
    for (const m of [1, 12, 30])
      expect(ledgerTotals(nothing.slice(0, m + 1), base).nothing).toBe(nothing[m].indicators[total]);
    expect(evaluateRound(scenarioDef(paymentSwitch, 'sale-surge'), nothing, base).score).toBe(0);
  });
});

/** A minute whose only indicator is x (with `na`: a share with nothing under it). */
const snap = (minute: number, v: number, na?: string[]): Snapshot => ({
  minute,
  indicators: { x: v },
  status: {},
  controls: {},
  detail: {},
  events: [],
  ...(na ? { na } : {}),
});

describe('a mean goal skips the minutes where its share has nothing under it', () => {
  it('averages only the minutes that have a value', () => {
    const g = { id: 'x', indicator: 'x', aggregate: 'mean' as const, op: '<=' as const, target: 1 };
    expect(goalValue(g, [snap(0, 9), snap(1, 4), snap(2, 0, ['x']), snap(3, 2)])).toBe(3);
    expect(goalValue(g, [snap(0, 9), snap(1, 0, ['x'])])).toBe(0);
  });
});

describe('a worst goal judges its worst stretch of minutes running', () => {
  const run = (values: number[]) => values.map((v, m) => snap(m, v));
  const worst = (op: '<=' | '>=', stretch = 3) => ({
    id: 'x',
    indicator: 'x',
    aggregate: 'worst' as const,
    stretch,
    op,
    target: 1,
  });
  it('takes the highest mean over the stretch for a ≤ goal and the lowest for a ≥ goal', () => {
    // Minutes 1–6: 1, 1, 7, 7, 1, 1 — stretches of 3: 3, 5, 5, 3.
    const minutes = run([100, 1, 1, 7, 7, 1, 1]);
    expect(goalValue(worst('<='), minutes)).toBe(5);
    expect(goalValue(worst('>='), minutes)).toBe(3);
  });
  it('tells a short spike from the same harm spread through a stretch', () => {
    const spike = run([0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0]);
    const through = run([0, 0, 0, 0, 3, 3, 3, 0, 0, 0, 0, 3, 3, 3, 0]);
    // The same hour mean, not the same worst stretch of five minutes.
    expect(goalValue({ ...worst('<='), aggregate: 'mean' }, spike)).toBe(
      goalValue({ ...worst('<='), aggregate: 'mean' }, through),
    );
    expect(goalValue(worst('<=', 5), spike)).toBeCloseTo(1.8, 12);
    expect(goalValue(worst('<=', 5), through)).toBeCloseTo(1.8, 12);
    expect(goalValue(worst('<=', 3), spike)).toBe(3);
    expect(goalValue(worst('<=', 3), through)).toBe(3);
    expect(goalValue(worst('<=', 2), spike)).toBe(4.5);
    expect(goalValue(worst('<=', 2), through)).toBe(3);
  });
  it('skips the minutes with nothing under the share and before its window, and averages a round shorter than a stretch', () => {
    expect(goalValue(worst('<='), [snap(0, 50), snap(1, 4), snap(2, 99, ['x']), snap(3, 2)])).toBe(3);
    expect(goalValue({ ...worst('<='), from: 3 }, run([0, 9, 9, 2, 4, 6]))).toBe(4);
    expect(goalValue(worst('<='), [snap(0, 7)])).toBe(7);
  });
  it('keeps its tally in the room’s list: every minute gives the verdict of the whole round so far', () => {
    const goals = [
      { id: 'm', indicator: 'x', aggregate: 'mean' as const, op: '<=' as const, target: 4 },
      worst('<=', 4),
      { id: 'f', indicator: 'x', aggregate: 'final' as const, op: '>=' as const, target: 0 },
    ];
    const def = { id: 't', kind: 'full-shift' as const, goals };
    const minutes = run([3, 1, 8, 2, 6, 6, 1, 0, 9, 2]);
    let tallies = noTallies(goals);
    minutes.forEach((s, m) => {
      tallies = tallyGoals(goals, tallies, s);
      expect(evaluateTallies(def, tallies, s)).toEqual(evaluateRound(def, minutes.slice(0, m + 1)));
    });
    expect(tallies).toHaveLength(3 + 3 + 4 + 3);
  });
  it('is lost for good, in the replay’s chapters, at the end of the first stretch that misses', () => {
    const def = { key: 'x', display: { scale: 1, digits: 0, unit: '' } };
    const minutes = run([0, 1, 1, 1, 4, 4, 4, 9, 0]);
    // Stretches of 3 from minute 1: 1, 2, 3, 4, 5.67 (ending at minute 7).
    expect(goalLostAt({ ...worst('<='), target: 4 }, def, minutes, 8)).toBe(7);
    expect(goalLostAt({ ...worst('<='), target: 6 }, def, minutes, 8)).toBeNull();
  });
});

describe('the running tallies a room keeps (one list of numbers per team)', () => {
  it.each<[SimModel, string]>([
    [paymentSwitch, 'issuer-outage'],
    [webService, 'bad-deploy'],
  ])('give every minute exactly the verdict and score of the whole round so far (%#)', (model, scenario) => {
    const def = scenarioDef(model, scenario);
    const rng = rngFromSeed(11);
    const changes = [3, 9, 20, 31].map((minute) => {
      const c = model.controls[Math.floor(uniform(rng) * model.controls.length)];
      return { minute, key: c.key, value: randomControlValue(c, () => uniform(rng)) };
    });
    const baseline = baselineRun(model, scenario, 4, 40);
    const { snapshots } = runRound(model, { scenario, seed: 4, noise: true, minutes: 40, changes });
    expect(def.goals.length).toBeGreaterThan(1);
    let tallies = noTallies(def.goals);
    snapshots.forEach((s, m) => {
      tallies = tallyGoals(def.goals, tallies, s);
      // toEqual compares numbers with Object.is: the same sums in the same order, not merely close ones.
      expect(evaluateTallies(def, tallies, s, baseline)).toEqual(
        evaluateRound(def, snapshots.slice(0, m + 1), baseline),
      );
    });
    expect(tallies).toHaveLength(3 * def.goals.length);
  });
});

/** Score of a play over seeds 1–3 against each seed's doing nothing. */
function scores(scenario: string, changes: ScheduledChange[]): number[] {
  return [1, 2, 3].map((seed) => {
    const r = runRound(paymentSwitch, {
      scenario,
      seed,
      noise: true,
      minutes: 60,
      changes,
      baseline: baselineRun(paymentSwitch, scenario, seed, 60),
    });
    return r.result.score!;
  });
}
const at = (minute: number, key: string, value: number | boolean | string): ScheduledChange => ({ minute, key, value });

describe("the issue's failures score at or below doing nothing (0), seeds 1–3", () => {
  it.each([
    {
      name: 'crashing the switch in fraud-wave (3 servers)',
      scenario: 'fraud-wave',
      changes: [at(1, 'servers', 3)],
      below: true,
    },
    {
      name: 'shedding everything in fraud-wave (2 servers, shedding on)',
      scenario: 'fraud-wave',
      changes: [at(1, 'servers', 2), at(1, 'shedding', true)],
      below: true,
    },
    {
      name: 'stand-in at the maximum in fraud-wave (0.5 s, 1000 u)',
      scenario: 'fraud-wave',
      changes: [at(1, 'issuerTimeoutS', 0.5), at(1, 'standInLimit', 1000)],
      below: true,
    },
    {
      name: 'threshold 0.5σ in fraud-wave',
      scenario: 'fraud-wave',
      changes: [at(1, 'fraudThreshold', 0.5)],
      below: true,
    },
    { name: 'threshold 5σ in fraud-wave', scenario: 'fraud-wave', changes: [at(1, 'fraudThreshold', 5)], below: true },
    { name: '24 servers in fraud-wave', scenario: 'fraud-wave', changes: [at(1, 'servers', 24)], below: true },
    {
      name: '2 servers in the issuer outage (a collapse on a smaller bill)',
      scenario: 'issuer-outage',
      changes: [at(6, 'servers', 2)],
      below: false,
    },
    {
      name: 'shedding everything in the sale surge (2 servers, shedding on)',
      scenario: 'sale-surge',
      changes: [at(6, 'servers', 2), at(6, 'shedding', true)],
      below: false,
    },
  ])('$name', ({ scenario, changes, below }) => {
    for (const s of scores(scenario, changes)) {
      if (below) expect(s).toBeLessThan(0);
      else expect(s).toBeLessThanOrEqual(0);
    }
  });
  it('while the documented plays of the sale surge and the issuer outage score well above it', () => {
    for (const s of scores('sale-surge', [
      at(6, 'servers', 10),
      at(6, 'shedding', true),
      at(6, 'retryPolicy', 'backoff'),
      at(52, 'servers', 6),
    ]))
      expect(s).toBeGreaterThan(400);
    for (const s of scores('issuer-outage', [
      at(6, 'issuerTimeoutS', 1),
      at(6, 'standInLimit', 60),
      at(6, 'servers', 9),
      at(6, 'shedding', true),
      at(6, 'retryPolicy', 'backoff'),
    ]))
      expect(s).toBeGreaterThan(400);
  });
});
