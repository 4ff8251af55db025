// The hindsight coach (shared/design/coach.ts): on constructed rounds it finds the known improvement, its
// suggestion re-simulates to the figures it claims, and it is deterministic.
import { describe, expect, it } from 'vitest';
import { coachTeam, decisionsOf, type CoachRound } from '../../shared/design/coach.ts';
import { baselineRun, runRound } from '../../shared/sim/engine.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';
import type { ScheduledChange, SimModel } from '../../shared/sim/types.ts';
import { webService } from '../../shared/sim/web-service/index.ts';

function round(
  model: SimModel,
  scenario: string,
  seed: number,
  minutes: number,
  changes: ScheduledChange[],
  minute = minutes,
): CoachRound {
  return { model, scenario, seed, noise: true, minute, baseline: baselineRun(model, scenario, seed, minutes), changes };
}

/** The play re-simulated from scratch, as the CLI and the server would: its verdict over minutes 0…minute. */
function replay(r: CoachRound, changes: readonly ScheduledChange[]) {
  const run = runRound(r.model, {
    scenario: r.scenario,
    seed: r.seed,
    noise: r.noise,
    minutes: r.minute,
    changes,
    baseline: r.baseline,
  });
  const met = run.result.goals.filter((g) => g.met).length;
  return {
    goalsMet: met,
    goals: run.result.goals.length,
    score: run.result.score,
    ledgerTotal: run.snapshots.at(-1)!.indicators[r.model.ledger.total],
  };
}

describe('the hindsight coach', () => {
  // Bad deploy, seed 1: a rollback at minute 15 keeps p99 within its goal; at 16 it does not.
  const late = round(webService, 'bad-deploy', 1, 60, [{ minute: 16, key: 'rollback', value: 'press' }]);

  it('a rollback one minute too late: "earlier", by one minute, meeting the goal it missed', () => {
    const { before, suggestion, tried } = coachTeam(late);
    expect(tried).toBeGreaterThan(100);
    expect(suggestion).toMatchObject({
      kind: 'earlier',
      key: 'rollback',
      value: 'press',
      fromMinute: 16,
      toMinute: 15,
      goalsNowMet: ['p99'],
      forkMinute: 14,
    });
    expect(suggestion!.changes).toEqual([{ minute: 15, key: 'rollback', value: 'press' }]);
    expect(suggestion!.after.goalsMet).toBe(before.goalsMet + 1);
    expect(suggestion!.after.score!).toBeGreaterThan(before.score!);
  });

  it('its figures are what the suggested play and the team’s own play re-simulate to', () => {
    const { before, suggestion } = coachTeam(late);
    expect(before).toEqual(replay(late, late.changes));
    expect(suggestion!.after).toEqual(replay(late, suggestion!.changes));
    // The fork shares the team's minutes up to forkMinute: the play differs only after it.
    const upTo = (cs: readonly ScheduledChange[]) => cs.filter((c) => c.minute <= suggestion!.forkMinute);
    expect(upTo(suggestion!.changes)).toEqual(upTo(decisionsOf(late.changes, late.minute)));
  });

  it('a harmful decision among good ones: the change that undoes it, with the goals it wins back', () => {
    // The fraud wave's documented decisions, then a crash: 3 servers at minute 10.
    const r = round(paymentSwitch, 'fraud-wave', 2, 30, [
      { minute: 6, key: 'fraudThreshold', value: 2.7 },
      { minute: 6, key: 'stepUpBand', value: 1.4 },
      { minute: 10, key: 'servers', value: 3 },
    ]);
    const { before, suggestion } = coachTeam(r);
    // Score rule 2: losing more money than doing nothing scores below 0, unclamped.
    expect(before.score).toBeLessThan(-1000);
    expect(suggestion?.key).toBe('servers');
    expect(suggestion?.fromMinute).toBe(10);
    expect(['value', 'drop']).toContain(suggestion?.kind);
    expect(suggestion?.after.goalsMet).toBe(3);
    expect(suggestion?.after).toEqual(replay(r, suggestion!.changes));
  });

  it('a team that did nothing gets one decision more; a round ended early is judged over its minutes', () => {
    const r = round(webService, 'bad-deploy', 1, 60, [], 40);
    const { before, suggestion } = coachTeam(r);
    expect(before.score).toBe(0);
    expect(suggestion?.kind).toBe('add');
    expect(suggestion?.fromMinute).toBeNull();
    expect(suggestion!.changes).toEqual([
      { minute: suggestion!.toMinute, key: suggestion!.key, value: suggestion!.value },
    ]);
    expect(suggestion!.after).toEqual(replay(r, suggestion!.changes));
    expect(suggestion!.forkMinute).toBe(suggestion!.toMinute! - 1);
  });

  it('is deterministic, keeps to its budget, and says nothing when it tries nothing', () => {
    expect(coachTeam(late)).toEqual(coachTeam(late));
    expect(coachTeam(late, { maxPlays: 40 }).tried).toBe(40);
    expect(coachTeam(late, { maxPlays: 0 })).toMatchObject({ tried: 0, suggestion: null });
  });

  it("the team's decisions: one per control and minute, the last one received, pending ones left out", () => {
    const cs = [
      { minute: 3, key: 'servers', value: 8 },
      { minute: 2, key: 'shedding', value: true },
      { minute: 3, key: 'servers', value: 10 },
      { minute: 9, key: 'servers', value: 12 },
    ];
    expect(decisionsOf(cs, 8)).toEqual([
      { minute: 2, key: 'shedding', value: true },
      { minute: 3, key: 'servers', value: 10 },
    ]);
  });
});
