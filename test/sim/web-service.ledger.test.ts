// Web service: the team's ledger in $ (docs/models/web-service.md, "The ledger"), collapse statuses and
// shares with nothing under them.
import { describe, expect, it } from 'vitest';
import { createRound, runRound } from '../../shared/sim/engine.ts';
import { goalValue } from '../../shared/sim/score.ts';
import type { ScheduledChange } from '../../shared/sim/types.ts';
import {
  BUDGET_PRICE_USD,
  LOW_PRIORITY_VALUE,
  MINUTES_PER_MONTH,
  RECOMMENDATION_SHARE,
  REVENUE_PER_REQUEST_USD,
  SLO_BUDGET,
  STALE_USD_PER_ANSWER_MINUTE,
} from '../../shared/sim/web-service/constants.ts';
import { COLLAPSE_SHARE, headlineStatus } from '../../shared/sim/web-service/defs.ts';
import { webService } from '../../shared/sim/web-service/index.ts';
import { addMinute, EMPTY_LEDGER, LEDGER_ITEMS, ledgerTotal } from '../../shared/sim/web-service/ledger.ts';
import { simulate } from '../../shared/sim/web-service/minute.ts';

const calmHour = (changes: ScheduledChange[] = []) =>
  runRound(webService, { scenario: 'free', seed: 1, noise: false, minutes: 60, changes }).snapshots[60].indicators;
const at0 = (key: string, value: number | boolean): ScheduledChange => ({ key, value, minute: 0 });

describe('web service: the ledger', () => {
  it('is declared as the model’s ledger: $, its lines indicators that only rise, the total their sum', () => {
    expect(webService.ledger).toEqual({ currency: '$', items: LEDGER_ITEMS, total: 'ledgerTotal' });
    for (const k of [...LEDGER_ITEMS, 'ledgerTotal']) {
      const def = webService.indicators.find((i) => i.key === k);
      expect(def?.trend, k).toBe('rising');
      expect(def?.display.unit, k).toBe('$');
    }
  });

  it('one minute by hand: errors, shedding, the feature, staleness, the fleet bill and the budget', () => {
    const x = {
      arrivals: 60_000,
      lowShare: 0.3,
      crawlShare: 0,
      throttledShare: 0.15,
      errorRate: 0.1,
      hit: 0.8,
      ageS: 30,
      heavyFeature: false,
      instanceMinutes: 600,
    };
    const l = addMinute(EMPTY_LEDGER, x);
    const v = REVENUE_PER_REQUEST_USD;
    // Shedding half the low-priority traffic: 9,000 rejected, 51,000 admitted of which 42,000 high priority.
    const admittedValue = (42_000 + 9_000 * LOW_PRIORITY_VALUE) * v;
    expect(l.lostToErrors).toBeCloseTo(admittedValue * 0.1, 12);
    expect(l.lostToShedding).toBeCloseTo(9_000 * LOW_PRIORITY_VALUE * v, 12);
    expect(l.lostToFeatureOff).toBeCloseTo(admittedValue * 0.9 * RECOMMENDATION_SHARE, 12);
    expect(l.stalePenalty).toBeCloseTo(51_000 * 0.9 * 0.8 * 0.5 * STALE_USD_PER_ANSWER_MINUTE, 12);
    expect(l.costSoFar).toBeCloseTo(4, 12);
    expect(l.budgetBurnCost).toBeCloseTo((0.1 / SLO_BUDGET / MINUTES_PER_MONTH) * BUDGET_PRICE_USD, 12);
    expect(ledgerTotal(l)).toBeCloseTo(
      LEDGER_ITEMS.reduce((s, k) => s + l[k], 0),
      12,
    );
  });

  it('a crawler’s requests are worth nothing: shed or failed, they cost only the budget', () => {
    const base = {
      arrivals: 60_000,
      lowShare: 0.6,
      crawlShare: 0.5,
      throttledShare: 0,
      errorRate: 0.2,
      hit: 0,
      ageS: 30,
      heavyFeature: true,
      instanceMinutes: 0,
    };
    const l = addMinute(EMPTY_LEDGER, base);
    expect(l.lostToErrors).toBeCloseTo(
      (30_000 * 0.8 + 30_000 * 0.2 * LOW_PRIORITY_VALUE) * REVENUE_PER_REQUEST_USD * 0.2,
      12,
    );
    const shed = addMinute(EMPTY_LEDGER, { ...base, throttledShare: 0.6 });
    expect(shed.lostToShedding).toBeCloseTo(30_000 * 0.2 * LOW_PRIORITY_VALUE * REVENUE_PER_REQUEST_USD, 12);
  });

  it('every control at an extreme costs money in a calm hour, on its own line', () => {
    const calm = calmHour();
    expect(calm.ledgerTotal).toBeGreaterThan(4);
    const extremes: [string, ScheduledChange[], string][] = [
      ['shed 100 %', [at0('shedLowPriority', 1)], 'lostToShedding'],
      ['feature off', [at0('heavyFeature', false)], 'lostToFeatureOff'],
      ['TTL 600 s', [at0('cacheTtlS', 600)], 'stalePenalty'],
      ['max fleet', [at0('minInstances', 40)], 'costSoFar'],
      ['one instance, no autoscaler', [at0('autoscaling', false), at0('minInstances', 1)], 'budgetBurnCost'],
    ];
    for (const [name, changes, line] of extremes) {
      const x = calmHour(changes);
      expect(x.ledgerTotal, name).toBeGreaterThan(calm.ledgerTotal + 1);
      expect(x[line], name).toBeGreaterThan(calm[line] + 1);
    }
  });

  it('the fleet bill matters: it is most of a calm hour’s ledger, and an hour of a bad build costs about as much', () => {
    const calm = calmHour();
    expect(calm.costSoFar / calm.ledgerTotal).toBeGreaterThan(0.7);
    const bad = runRound(webService, { scenario: 'bad-deploy', seed: 1, noise: false, minutes: 60 }).snapshots;
    const d = bad.findIndex((s) => s.events.some((e) => e.kind === 'deploy'));
    const perHour = ((bad[60].indicators.budgetBurnCost + bad[60].indicators.lostToErrors) * 60) / (60 - d);
    expect(perHour / calm.costSoFar).toBeGreaterThan(1);
    expect(perHour / calm.costSoFar).toBeLessThan(2.5);
  });
});

describe('web service: collapse reads as collapse', () => {
  it('from half the requests unanswered, every headline indicator is critical', () => {
    const quiet = { errorRate: 0, p99Ms: 300, dbLoad: 0.2, utilization: 0.5 };
    expect(Object.values(headlineStatus(quiet, COLLAPSE_SHARE - 0.01))).toEqual([
      'normal',
      'normal',
      'normal',
      'normal',
    ]);
    expect(Object.values(headlineStatus(quiet, COLLAPSE_SHARE))).toEqual([
      'critical',
      'critical',
      'critical',
      'critical',
    ]);
  });

  it('a fleet of one serving the morning collapses and reads critical throughout, the database included', () => {
    const snaps = runRound(webService, {
      scenario: 'free',
      seed: 1,
      noise: false,
      minutes: 5,
      changes: [at0('autoscaling', false), at0('minInstances', 1)],
    }).snapshots;
    for (const s of snaps.slice(1)) {
      expect(s.indicators.errorRate).toBeGreaterThan(0.5);
      expect(s.indicators.dbLoad).toBeLessThan(0.8);
      expect(s.status.dbLoad).toBe('critical');
    }
  });

  it('with nothing admitted the shares have nothing under them: listed in na, skipped by a mean goal', () => {
    const s0 = createRound(webService, { scenario: 'free', seed: 1, noise: false });
    const none = simulate(
      s0,
      { ...s0, minute: 1 },
      {
        m: 1,
        controls: s0.controls,
        fleet: { serving: 10, booting: [] },
        warm: 1,
        lambda: 0,
        lowShare: 0.3,
        crawlShare: 0,
        surge: 1,
        dbCapacityQps: 4000,
        beta: 0,
        warmUpEndsAt: null,
        rollbackDoneAt: null,
        rollbackFleet: 0,
        events: [],
      },
    );
    expect(none.snapshot.na).toEqual(['errorRate', 'p99Ms', 'cacheHitRatio']);
    expect(none.snapshot.indicators.errorRate).toBe(0);
    const goal = { id: 'hit', indicator: 'cacheHitRatio', aggregate: 'mean' as const, op: '>=' as const, target: 0.5 };
    expect(goalValue(goal, [s0.snapshot, none.snapshot])).toBe(none.snapshot.indicators.cacheHitRatio);
    expect(goalValue(goal, [s0.snapshot, { ...s0.snapshot, minute: 1 }, none.snapshot])).toBeCloseTo(
      s0.snapshot.indicators.cacheHitRatio,
      12,
    );
  });
});
