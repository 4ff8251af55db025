// Role policies (shared/policies): each seat reads only its own split view and the banners, sets only its
// own controls, acts its delay later, is deterministic for a seed, and respects what the story takes away.
import { describe, expect, it } from 'vitest';
import { runPlay, EMPTY_PLAY } from '../../shared/design/play.ts';
import { splitSnapshot, visibleKeys } from '../../shared/classroom/split.ts';
import {
  MAX_DELAY,
  openSeat,
  PolicyError,
  playTeam,
  seatMinute,
  SKILLS,
  teamOf,
  type Seat,
} from '../../shared/policies/index.ts';
import { baselineRun, runRound, scenarioDef } from '../../shared/sim/engine.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';
import { rngFromSeed, uniform } from '../../shared/sim/rng.ts';
import { evaluateRound } from '../../shared/sim/score.ts';
import type { SimModel, Snapshot } from '../../shared/sim/types.ts';
import { webService } from '../../shared/sim/web-service/index.ts';
import { launchStates } from './launch.ts';

const SHIFTS: readonly [SimModel, string][] = [
  [paymentSwitch, 'black-friday'],
  [webService, 'product-launch'],
];
const spec = (seed: number) => ({ seed, noise: true, minutes: 60 });

/** The minutes of a round played by a careful team, as the full desk showed them. */
function minutesOf(model: SimModel, scenario: string, seed: number): Snapshot[] {
  return playTeam(model, { scenario, ...spec(seed) }, teamOf(model, 'careful', 0, seed)).snapshots;
}

/** Every change a seat hands back over a fixed sequence of desks, by the minute it applies from. */
function decisions(model: SimModel, seat: Seat, minutes: readonly Snapshot[], show: (s: Snapshot) => Snapshot) {
  const keys = visibleKeys(model, [seat.role]);
  let st = openSeat(seat);
  const out: { minute: number; key: string; value: unknown }[] = [];
  let prev: Snapshot | undefined;
  for (const s of minutes.slice(0, -1)) {
    const view = show(splitSnapshot(s, keys));
    const r = seatMinute(model, seat, st, view, prev);
    st = r.state;
    prev = view;
    for (const c of r.changes) out.push({ minute: s.minute + 1, key: c.key, value: c.value });
  }
  return out;
}

describe.each(SHIFTS)('%s', (model, scenario) => {
  it.each(SKILLS)('a %s seat sets only its own role’s controls, and every one it sets is accepted', (skill) => {
    for (const role of model.roles) {
      const seats = [{ model: model.id, role: role.id, skill, delay: 1, seed: 5 }];
      const { applied } = playTeam(model, { scenario, ...spec(2) }, seats);
      for (const c of applied) expect(role.controls, `${role.id} set ${c.key}`).toContain(c.key);
    }
  });

  it('a seat’s decisions do not move when what its desk does not show moves', () => {
    const minutes = minutesOf(model, scenario, 4);
    const r = rngFromSeed(9);
    for (const role of model.roles) {
      const seat: Seat = { model: model.id, role: role.id, skill: 'careful', delay: 0, seed: 1 };
      const shown = visibleKeys(model, [role.id]);
      const base = decisions(model, seat, minutes, (v) => v);
      // The same minutes with every figure the role does not see scrambled: the split view drops them.
      const scrambled = minutes.map((s) => ({
        ...s,
        indicators: Object.fromEntries(
          Object.entries(s.indicators).map(([k, v]) => [k, shown.has(k) ? v : v * (0.1 + 5 * uniform(r))]),
        ),
      }));
      expect(
        decisions(model, seat, scrambled, (v) => v),
        role.id,
      ).toEqual(base);
      expect(base.length, `${role.id} decides something`).toBeGreaterThan(0);
    }
  });

  it('a seat’s first decision lands its delay later; every delay plays a whole round', () => {
    const minutes = minutesOf(model, scenario, 6);
    for (const role of model.roles) {
      const at = (delay: number) =>
        decisions(model, { model: model.id, role: role.id, skill: 'careful', delay, seed: 1 }, minutes, (v) => v);
      const d0 = at(0);
      for (let delay = 1; delay <= MAX_DELAY; delay++) {
        const d = at(delay);
        expect(d[0], `${role.id} at ${delay}`).toEqual({ ...d0[0], minute: d0[0].minute + delay });
      }
    }
    for (let delay = 0; delay <= MAX_DELAY; delay++)
      expect(playTeam(model, { scenario, ...spec(1) }, teamOf(model, 'careful', delay, 1)).snapshots).toHaveLength(61);
  });

  it('is deterministic for a seed; a careless team’s slips follow its seed', () => {
    const run = (skill: (typeof SKILLS)[number], seed: number) =>
      playTeam(model, { scenario, ...spec(3) }, teamOf(model, skill, 1, seed)).applied;
    expect(run('careful', 3)).toEqual(run('careful', 3));
    expect(run('careless', 3)).toEqual(run('careless', 3));
    const slips = new Set([1, 2, 3, 4, 5, 6].map((seed) => JSON.stringify(run('careless', seed))));
    expect(slips.size).toBeGreaterThan(1);
  });

  it('a careful team on time beats a careless one, and beats doing nothing, on seeds 1–3', () => {
    for (const seed of [1, 2, 3]) {
      const base = baselineRun(model, scenario, seed, 60);
      const score = (skill: (typeof SKILLS)[number]) =>
        evaluateRound(
          model.scenarios.find((s) => s.id === scenario)!,
          playTeam(model, { scenario, ...spec(seed) }, teamOf(model, skill, 1, seed)).snapshots,
          base,
        ).score!;
      expect(score('careful'), `seed ${seed}`).toBeGreaterThan(score('careless'));
      expect(score('careful')).toBeGreaterThan(0);
    }
  });
});

it('the web service’s fleet seat never reaches for the autoscaler the product launch takes away', () => {
  // The engine refuses an unavailable control: a whole round with every skill and delay goes through.
  for (const skill of SKILLS)
    for (let delay = 0; delay <= MAX_DELAY; delay++)
      expect(() =>
        playTeam(webService, { scenario: 'product-launch', ...spec(2) }, teamOf(webService, skill, delay, 2)),
      ).not.toThrow();
});

it('a seat with a delay outside 0–3 minutes, or a role without a policy, is refused', () => {
  for (const delay of [-1, 4, 1.5])
    expect(() => openSeat({ model: 'payment-switch', role: 'scaling', skill: 'careful', delay, seed: 1 })).toThrow(
      PolicyError,
    );
  expect(() => openSeat({ model: 'payment-switch', role: 'pilot', skill: 'careful', delay: 0, seed: 1 })).toThrow(
    PolicyError,
  );
});

it('a team is the same round as the play runner with its seats: one code path', () => {
  const seats = teamOf(paymentSwitch, 'late', 2, 8);
  const a = playTeam(paymentSwitch, { scenario: 'black-friday', ...spec(8) }, seats);
  const b = runPlay(paymentSwitch, { scenario: 'black-friday', ...spec(8) }, EMPTY_PLAY, { seats });
  expect(a).toEqual(b);
  // And with no change at all, the round is doing nothing.
  const nothing = runRound(paymentSwitch, { scenario: 'black-friday', seed: 8, noise: true, minutes: 60 }).snapshots;
  expect(playTeam(paymentSwitch, { scenario: 'black-friday', ...spec(8) }, []).snapshots).toEqual(nothing);
});

describe('the web service’s careful seats read their desk before acting (product launch, seeds 1–5)', () => {
  const rounds = [1, 2, 3, 4, 5].map((seed) => {
    const { snapshots, applied } = playTeam(
      webService,
      { scenario: 'product-launch', ...spec(seed) },
      teamOf(webService, 'careful', 0, seed),
    );
    // The round's states, to know which build each rollback met.
    return { seed, snapshots, applied, states: launchStates(seed, applied) };
  });

  it('the release rolls back the bad builds it meets and never a good one', () => {
    let bad = 0;
    for (const { applied, states } of rounds)
      for (const c of applied.filter((x) => x.key === 'rollback')) {
        const { train, episodes } = states[c.minute - 1];
        expect(train.current, `a rollback at minute ${c.minute} met a build`).not.toBeNull();
        expect(episodes.builds[train.current!].bad, `minute ${c.minute}`).toBe(true);
        bad++;
      }
    expect(bad).toBeGreaterThanOrEqual(15);
  });

  it('traffic sheds only while a crawler runs or fades, and less than everything when the database has room', () => {
    let partial = 0;
    for (const { snapshots } of rounds) {
      let crawling = false;
      let end = -99;
      for (const s of snapshots) {
        if (s.events.some((e) => e.kind === 'crawler-start')) crawling = true;
        if (s.events.some((e) => e.kind === 'crawler-end')) {
          crawling = false;
          end = s.minute;
        }
        const shed = s.controls.shedLowPriority as number;
        if (shed > 0) expect(crawling || s.minute - end <= 3, `seed minute ${s.minute}`).toBe(true);
        if (shed > 0 && shed < 1) partial++;
      }
    }
    expect(partial).toBeGreaterThan(0);
  });

  it('the fleet hands the next shift a fleet of normal size (the handover goal)', () => {
    const handover = scenarioDef(webService, 'product-launch').goals.find((g) => g.id === 'handover')?.target;
    expect(handover).toBe(9);
    for (const { snapshots } of rounds) expect(snapshots[60].indicators.instancesServing).toBeLessThanOrEqual(9);
  });

  it('the fleet orders each surge what its banner says: more for the large one than for the small one', () => {
    for (const { seed, snapshots, applied } of rounds) {
      // The fleet ordered from each announcement until that surge ends, by the announced size.
      const ordered = snapshots
        .filter((s) => s.events.some((e) => e.kind === 'surge-announced'))
        .map((s) => {
          const size = s.events.find((e) => e.kind === 'surge-announced')?.size as number;
          const end = snapshots.find((x) => x.minute > s.minute && x.events.some((e) => e.kind === 'surge-end'));
          const fleet = applied
            .filter((c) => c.key === 'minInstances' && c.minute > s.minute && c.minute <= (end?.minute ?? 60))
            .map((c) => c.value as number);
          return { size, most: Math.max(0, ...fleet) };
        })
        .sort((a, b) => a.size - b.size);
      expect(ordered, `seed ${seed}`).toHaveLength(2);
      expect(ordered[0].most, `seed ${seed}`).toBeGreaterThan(0);
      expect(ordered[1].most, `seed ${seed}`).toBeGreaterThan(ordered[0].most);
    }
  });

  it('the fleet orders a surge’s fleet to be in service just before it starts, not at its banner', () => {
    let orders = 0;
    let waited = 0;
    for (const { seed, snapshots, applied } of rounds)
      for (const s of snapshots.filter((x) => x.events.some((e) => e.kind === 'surge-announced'))) {
        const start = s.minute + (s.events.find((e) => e.kind === 'surge-announced')?.in as number);
        // The first order above the fleet in service at the banner, up to the start (none when the fleet of the surge
        // before is still large enough): four to six minutes before the start — a four-minute boot and two to spare.
        const before = snapshots[s.minute].indicators.instancesServing;
        const order = applied.find(
          (c) => c.key === 'minInstances' && c.minute > s.minute && c.minute <= start && (c.value as number) > before,
        );
        if (!order) continue;
        orders++;
        expect(start - order.minute, `seed ${seed} minute ${s.minute}`).toBeLessThanOrEqual(6);
        expect(start - order.minute, `seed ${seed} minute ${s.minute}`).toBeGreaterThanOrEqual(4);
        if (order.minute > s.minute + 1) waited++;
      }
    expect(orders).toBeGreaterThanOrEqual(6);
    // Some banners come early enough that waiting saves idle instances.
    expect(waited).toBeGreaterThan(0);
  });

  it('traffic sheds most of the low-priority traffic the minute after a swarm’s banner', () => {
    for (const { seed, snapshots, applied } of rounds)
      for (const s of snapshots.filter((x) => x.events.some((e) => e.kind === 'crawler-start')))
        expect(
          applied.some((c) => c.key === 'shedLowPriority' && c.minute === s.minute + 1 && (c.value as number) >= 0.6),
          `seed ${seed} minute ${s.minute}`,
        ).toBe(true);
  });
});
