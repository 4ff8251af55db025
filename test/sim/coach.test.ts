// The hindsight coach (shared/design/coach.ts): on constructed rounds it finds the known improvement, its
// suggestion re-simulates to the figures it claims, and it is deterministic.
import { describe, expect, it } from 'vitest';
import { type CoachChange, coachTeam, decisionsOf, unusualOf, type CoachRound } from '../../shared/design/coach.ts';
import { baselineRun, runRound } from '../../shared/sim/engine.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';
import type { ScheduledChange, SimModel } from '../../shared/sim/types.ts';
import { webService } from '../../shared/sim/web-service/index.ts';

function round(
  model: SimModel,
  scenario: string,
  seed: number,
  minutes: number,
  changes: CoachChange[],
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
  // Bad deploy, seed 1: the deploy shows at minute 16; a rollback pressed then applies at 17, and p99
  // still misses its goal — shedding some low-priority traffic from 17 would have met it.
  const late = round(webService, 'bad-deploy', 1, 60, [{ minute: 17, key: 'rollback', value: 'press' }]);

  it('a rollback as early as the desk allowed: one decision more meets the goal it missed, and lasts to the end', () => {
    const { before, suggestion, tried } = coachTeam(late);
    expect(tried).toBeGreaterThan(100);
    expect(suggestion).toMatchObject({
      kind: 'add',
      key: 'shedLowPriority',
      fromMinute: null,
      toMinute: 17,
      goalsNowMet: ['p99'],
      until: null,
      unusual: null,
      forkMinute: 16,
    });
    // The rollback is not moved before the deploy showed (the desk said there was nothing to roll back).
    expect(suggestion!.changes.filter((c) => c.key === 'rollback')).toEqual([
      { minute: 17, key: 'rollback', value: 'press' },
    ]);
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

  it('never credits the autopilot’s move to the team: the same harmful decision, made by the autopilot, is kept as it was', () => {
    const r = round(paymentSwitch, 'fraud-wave', 2, 30, [
      { minute: 6, key: 'fraudThreshold', value: 2.7 },
      { minute: 6, key: 'stepUpBand', value: 1.4 },
      { minute: 10, key: 'servers', value: 3, auto: true },
    ]);
    const { suggestion } = coachTeam(r);
    // Whatever it suggests, the autopilot's 3 servers at minute 10 stay in the play, unmoved.
    expect(suggestion?.changes).toContainEqual({ minute: 10, key: 'servers', value: 3 });
    expect(suggestion?.fromMinute === 10 && suggestion.key === 'servers').toBe(false);
    if (suggestion) expect(suggestion.after).toEqual(replay(r, suggestion.changes));
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

  it('suggests changes a person would make: never one that lowers the score, none that buys a goal with money while another helps', () => {
    // Sale day, full shift. Seed 4: the team's play could meet the fraud goal by cutting to 2 servers at
    // minute 17 — score 770 → 0, money lost 3,153 u → 7,372 u. Seed 7: by 0.5 σ at minute 31 until the
    // team's own 3.0 σ at 41 — more money lost. Both have ordinary changes that save money and score more.
    const cases = [
      round(paymentSwitch, 'sale-day', 4, 60, [
        { minute: 5, key: 'servers', value: 9 },
        { minute: 41, key: 'fraudThreshold', value: 3.2 },
        { minute: 45, key: 'standInLimit', value: 100 },
        { minute: 25, key: 'issuerTimeoutS', value: 1 },
      ]),
      round(paymentSwitch, 'sale-day', 7, 60, [
        { minute: 8, key: 'servers', value: 10 },
        { minute: 30, key: 'fraudThreshold', value: 2.5 },
        { minute: 41, key: 'fraudThreshold', value: 3 },
        { minute: 20, key: 'issuerTimeoutS', value: 2 },
        { minute: 20, key: 'standInLimit', value: 100 },
      ]),
    ];
    for (const r of cases) {
      const { before, suggestion: s } = coachTeam(r);
      if (!s) throw new Error('no suggestion');
      expect(s.after.score!).toBeGreaterThan(before.score!);
      expect(s.unusual).toBeNull();
      expect(s.after.ledgerTotal).toBeLessThanOrEqual(before.ledgerTotal);
      expect(s.after).toEqual(replay(r, s.changes));
      // It says how long the setting lasts: to the team's own next change of that control, or the end.
      const next = s.changes.filter((c) => c.key === s.key && c.minute > s.toMinute!).map((c) => c.minute);
      expect(s.until).toBe(next.length ? Math.min(...next) : null);
    }
  });

  it('a short swing to a control’s end, or a goal bought with money, is marked as one few teams would make', () => {
    const ps = paymentSwitch;
    const play = [
      { minute: 39, key: 'fraudThreshold', value: 0.5 },
      { minute: 41, key: 'fraudThreshold', value: 3 },
    ];
    const add = (value: number, minute = 39) => ({
      kind: 'add' as const,
      key: 'fraudThreshold',
      value,
      toMinute: minute,
      play,
    });
    // 0.5 σ is the minimum, for two minutes: a swing; 0.6 σ is not the end; five minutes is not short.
    expect(unusualOf(ps, add(0.5), 60, false)).toBe('swing');
    expect(unusualOf(ps, add(0.6), 60, false)).toBeNull();
    expect(
      unusualOf(ps, { ...add(0.5, 36), play: [{ minute: 36, key: 'fraudThreshold', value: 0.5 }, play[1]] }, 60, false),
    ).toBeNull();
    // At its end in the last minutes of the round: as brief.
    expect(unusualOf(ps, { ...add(5, 58), play: [{ minute: 58, key: 'fraudThreshold', value: 5 }] }, 60, false)).toBe(
      'swing',
    );
    // Any change that loses more money than the team did is a goal bought.
    expect(unusualOf(ps, add(0.6), 60, true)).toBe('costly');
    // Moving the team's own decision is theirs.
    expect(unusualOf(ps, { ...add(0.5), kind: 'later' }, 60, false)).toBeNull();
  });

  it('never suggests a press the desk showed as doing nothing then (a rollback before the deploy)', () => {
    const nothing = runRound(webService, { scenario: 'bad-deploy', seed: 1, noise: true, minutes: 60 }).snapshots;
    const deploy = nothing.findIndex((s) => s.events.some((e) => e.kind === 'deploy'));
    // Pressed as early as the desk allows, and a little late.
    for (const at of [deploy + 1, deploy + 3]) {
      const r = round(webService, 'bad-deploy', 1, 60, [{ minute: at, key: 'rollback', value: 'press' }]);
      const { suggestion } = coachTeam(r);
      for (const c of suggestion?.changes ?? []) if (c.key === 'rollback') expect(c.minute).toBeGreaterThan(deploy);
    }
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
