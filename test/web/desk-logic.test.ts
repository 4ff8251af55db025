// The desk's bookkeeping: minutes merged in order (gaps detected), changes pending until their
// minute, the feed and the banner's events, chart series and goal lines, owners, the lobby's
// starting values.
import { describe, expect, test } from 'vitest';
import type { ChangeRecord, PlayerView, RoleChange, SeatTurn } from '../../shared/protocol/types.ts';
import type { Snapshot } from '../../shared/sim/types.ts';
import { getMeta } from '../../shared/sim/meta.ts';
import { runRound } from '../../shared/sim/engine.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';
import { PRESS } from '../../shared/sim/types.ts';
import { webService } from '../../shared/sim/web-service/index.ts';
import {
  addChange,
  announcedRoleChanges,
  autopilotSummary,
  changeMinutes,
  chartedIndicators,
  deskEvents,
  deskNotes,
  feedItems,
  goalsOn,
  headlineStatuses,
  isPending,
  mergeMinute,
  ownersOf,
  pendingByKey,
  pendingPlan,
  roleChangeId,
  seriesOf,
  startingControls,
} from '../../web/lib/state/desk-logic.ts';

const snap = (minute: number, extra: Partial<Snapshot> = {}): Snapshot => ({
  minute,
  indicators: { goodApproval: 0.99 - minute / 1000 },
  status: {},
  controls: {},
  detail: {},
  events: [],
  ...extra,
});
const change = (
  id: number,
  minute: number,
  key = 'servers',
  value: number | string = 8,
  name = 'Ana',
): ChangeRecord => ({
  id,
  seq: id,
  roundId: 1,
  teamId: 1,
  minute,
  key,
  value,
  author: { playerId: 1, name },
  actor: { kind: 'student' },
  at: 0,
});

describe('mergeMinute', () => {
  test('appends the next minute', () => {
    const r = mergeMinute([snap(0), snap(1)], snap(2));
    expect(r.gap).toBe(false);
    expect(r.snapshots.map((s) => s.minute)).toEqual([0, 1, 2]);
  });
  test('starts a round at minute 0 only', () => {
    expect(mergeMinute([], snap(0)).snapshots).toHaveLength(1);
    expect(mergeMinute([], snap(3)).gap).toBe(true);
  });
  test('a repeated minute replaces it and drops what followed', () => {
    const again = snap(1, { indicators: { goodApproval: 0.5 } });
    const r = mergeMinute([snap(0), snap(1), snap(2)], again);
    expect(r.snapshots.map((s) => s.minute)).toEqual([0, 1]);
    expect(r.snapshots[1].indicators.goodApproval).toBe(0.5);
  });
  test('a skipped minute is a gap: the history is not guessed', () => {
    const before = [snap(0), snap(1)];
    const r = mergeMinute(before, snap(3));
    expect(r.gap).toBe(true);
    expect(r.snapshots).toEqual(before);
  });
});

describe('changes', () => {
  test('a change is pending until its minute is computed', () => {
    expect(isPending(change(1, 5), 4)).toBe(true);
    expect(isPending(change(1, 5), 5)).toBe(false);
  });
  test('the ack and the team broadcast of one change count once, in id order', () => {
    const list = addChange(addChange([change(2, 3)], change(1, 3)), change(2, 3));
    expect(list.map((c) => c.id)).toEqual([1, 2]);
  });
  test('the latest pending change of each control wins', () => {
    const p = pendingByKey(
      [change(1, 2, 'servers', 8), change(2, 3, 'servers', 10), change(3, 3, 'shedding', 'on')],
      2,
    );
    expect(p.get('servers')?.value).toBe(10);
    expect(p.get('shedding')?.id).toBe(3);
    expect(pendingByKey([change(1, 2)], 2).size).toBe(0);
  });
  test('a play pending over several minutes shows its first change, then the next (a what-if from the coach)', () => {
    // At minute 38: the coach's 0.5 σ at 39, the team's own 3.0 σ back at 41; two changes of servers at 40.
    const play = [
      change(1, 41, 'fraudThreshold', 3),
      change(2, 39, 'fraudThreshold', 0.5),
      change(3, 40, 'servers', 8),
      change(4, 40, 'servers', 9),
      change(5, 44, 'fraudThreshold', 2.5),
    ];
    const plan = pendingPlan(play, 38);
    expect(plan.get('fraudThreshold')?.next.value).toBe(0.5);
    expect(plan.get('fraudThreshold')?.after?.minute).toBe(41);
    expect(plan.get('servers')?.next.value).toBe(9);
    expect(plan.get('servers')?.after).toBeNull();
    expect(pendingByKey(play, 38).get('fraudThreshold')?.minute).toBe(39);
    // Once 39 is computed, 41 is next.
    expect(pendingByKey(play, 39).get('fraudThreshold')?.value).toBe(3);
  });
  test('chart markers are the minutes of applied changes', () => {
    expect(changeMinutes([change(1, 2), change(2, 2, 'shedding'), change(3, 6)], 5)).toEqual([2]);
  });
});

const roleChange = (
  minute: number,
  role: string,
  reason: RoleChange['reason'],
  from: string | null,
  to: string | null,
  at: number,
): RoleChange => ({
  roundId: 1,
  teamId: 1,
  minute,
  role,
  reason,
  at,
  from: from ? { playerId: from.length, name: from } : null,
  to: to ? { playerId: to.length + 10, name: to } : null,
});

describe('feedItems', () => {
  test('newest first; changes with author; control events left to the change records', () => {
    const snaps = [
      snap(0),
      snap(1, { events: [{ kind: 'control', key: 'servers', value: 8 }] }),
      snap(2, { events: [{ kind: 'sale-start' }] }),
    ];
    const items = feedItems([change(1, 1), change(2, 3, 'shedding', 'on', 'Budi')], snaps);
    expect(
      items.map((i) =>
        i.kind === 'change' ? `c${i.change.id}:${i.pending}` : i.kind === 'event' ? `e:${i.event.kind}` : 'role',
      ),
    ).toEqual(['c2:true', 'e:sale-start', 'c1:false']);
  });
  test('within a minute the events come before the changes that apply then (made earlier)', () => {
    const items = feedItems(
      [change(1, 2)],
      [snap(0), snap(1), snap(2, { events: [{ kind: 'servers-ready', count: 2 }] })],
    );
    expect(items.map((i) => i.kind)).toEqual(['event', 'change']);
  });
  test('role hand-overs are in the feed at their minute, between the events and the changes; the start and the dealing are not', () => {
    const roles = [
      roleChange(2, 'standin', 'start', null, 'Ana', 100),
      roleChange(2, 'standin', 'remove', 'Ana', 'Bo', 200),
      roleChange(0, 'fraud', 'deal', 'Ana', 'Cy', 50),
    ];
    const items = feedItems(
      [change(1, 2)],
      [snap(0), snap(1), snap(2, { events: [{ kind: 'sale-start' }] })],
      60,
      roles,
    );
    expect(items.map((i) => i.kind)).toEqual(['event', 'role', 'change']);
    const role = items.find((i) => i.kind === 'role');
    expect(role?.kind === 'role' && [role.change.reason, role.change.to?.name]).toEqual(['remove', 'Bo']);
  });
  test('is limited', () => {
    const many = Array.from({ length: 100 }, (_, i) => change(i + 1, 1));
    expect(feedItems(many, [snap(0)], 10)).toHaveLength(10);
  });
});

test('seriesOf scales to display units', () => {
  expect(seriesOf([snap(0), snap(1)], 'goodApproval', 100)).toEqual([
    { x: 0, y: 99 },
    { x: 1, y: 98.9 },
  ]);
});

test('ownersOf: the members of the team who own a role', () => {
  const players: PlayerView[] = [
    {
      id: 1,
      name: 'Ana',
      teamId: 1,
      roles: ['scaling', 'fraud'],
      connected: true,
      idle: false,
      free: false,
      pilot: null,
    },
    { id: 2, name: 'Budi', teamId: 1, roles: ['shedding'], connected: false, idle: false, free: false, pilot: null },
    { id: 3, name: 'Eka', teamId: 2, roles: ['scaling'], connected: true, idle: false, free: false, pilot: null },
  ];
  expect(ownersOf(players, 1, 'scaling')).toEqual(['Ana']);
  expect(ownersOf(players, 2, 'scaling')).toEqual(['Eka']);
  expect(ownersOf(players, 1, 'standin')).toEqual([]);
  expect(ownersOf(players, null, 'scaling')).toEqual([]);
});

describe('before the round: the values it starts with', () => {
  test("the model's defaults, then the scenario's own controls; never a control's minimum", () => {
    const ps = getMeta('payment-switch');
    const start = startingControls(ps, 'sale-surge');
    expect(start).toMatchObject({
      servers: 6,
      shedding: false,
      retryPolicy: 'immediate',
      fraudThreshold: 3,
      stepUpBand: 0,
      issuerTimeoutS: 8,
      standInLimit: 0,
    });
    for (const c of ps.controls) if (c.kind === 'number') expect(start[c.key], c.key).toBe(c.default);
    // The scenario's own settings win over the defaults (the cache flush starts with a 90 s TTL).
    expect(startingControls(getMeta('web-service'), 'cache-flush').cacheTtlS).toBe(90);
    expect(startingControls(getMeta('web-service'), 'free').cacheTtlS).toBe(60);
    // Buttons have no value to show.
    expect('rollback' in startingControls(getMeta('web-service'), 'bad-deploy')).toBe(false);
  });
});

describe('goal lines and charted indicators', () => {
  test('the goals on an indicator, and the charts: headline first, then what the goals are about', () => {
    const ws = getMeta('web-service');
    expect(goalsOn(ws, 'bad-deploy', 'p99Ms').map((g) => g.target)).toEqual([500]);
    expect(goalsOn(ws, 'bad-deploy', 'dbLoad')).toEqual([]);
    expect(goalsOn(ws, 'no-such-scenario', 'p99Ms')).toEqual([]);
    expect(chartedIndicators(ws, 'bad-deploy').map((i) => i.key)).toEqual([
      'errorRate',
      'p99Ms',
      'dbLoad',
      'utilization',
      'throttledShare',
      'costSoFar',
      'recommendationsAvailable',
      'errorBudgetRemaining',
    ]);
    expect(chartedIndicators(ws, 'free').map((i) => i.key)).toEqual(['errorRate', 'p99Ms', 'dbLoad', 'utilization']);
  });
});

test("the banner's events: the model's own, oldest first, each with a stable id; control events left out", () => {
  const events = deskEvents([
    snap(0),
    snap(5, { events: [{ kind: 'sale-start' }, { kind: 'control', key: 'servers' }] }),
    snap(9, { events: [{ kind: 'servers-ready', count: 4 }] }),
  ]);
  expect(events).toEqual([
    { id: 'e5.0', minute: 5, event: { kind: 'sale-start' } },
    { id: 'e9.0', minute: 9, event: { kind: 'servers-ready', count: 4 } },
  ]);
});

test('the banner announces the events and the role hand-overs, oldest first, each with a stable id', () => {
  const roles = [
    roleChange(0, 'fraud', 'start', null, 'Ana', 10),
    roleChange(3, 'fraud', 'assign', 'Ana', 'Bo', 20),
    roleChange(1, 'scaling', 'join', 'Ana', 'Cy', 15),
  ];
  const notes = deskNotes([snap(0), snap(1), snap(2), snap(3, { events: [{ kind: 'sale-start' }] })], roles);
  expect(notes.map((n) => (n.kind === 'event' ? `e${n.minute}` : `r${n.minute}:${n.change.reason}`))).toEqual([
    'r1:join',
    'e3',
    'r3:assign',
  ]);
  expect(deskNotes([snap(0)], roles).map((n) => n.id)).toEqual(deskNotes([snap(0)], [...roles]).map((n) => n.id));
  expect(new Set(notes.map((n) => n.id)).size).toBe(notes.length);
});

test('roles moving in the lobby go to the feed, not the banner: the banner at the start is the round’s', () => {
  // Jun joins in the lobby and the dealing hands him Stand-in from Ana 2; the teacher gives Bo Fraud before the start.
  const lobby = [roleChange(0, 'standin', 'join', 'Ana 2', 'Jun', 1), roleChange(0, 'fraud', 'assign', 'Ana', 'Bo', 2)];
  const during = roleChange(3, 'fraud', 'assign', 'Bo', 'Ana', 3);
  const snaps = [snap(0), snap(1), snap(2), snap(3)];
  expect(deskNotes([], lobby)).toEqual([]);
  expect(deskNotes(snaps, [...lobby, during]).map((n) => n.id)).toEqual([roleChangeId(during)]);
  // The feed keeps every one of them.
  const feed = feedItems([], snaps, 60, [...lobby, during]).filter((i) => i.kind === 'role');
  expect(feed.map((i) => i.minute).sort()).toEqual([0, 0, 3]);
});

test('free roles taken in the lobby are not news; a late joiner taking one is, except to the joiner', () => {
  const lobby = roleChange(0, 'scaling', 'join', null, 'Ana', 1);
  const late = roleChange(4, 'fraud', 'join', null, 'Cy', 2);
  const handover = roleChange(0, 'shedding', 'join', 'Ana', 'Bo', 3);
  expect(announcedRoleChanges([lobby, late, handover]).map((c) => c.role)).toEqual(['fraud', 'shedding']);
  // To Cy (player id 12) their own free role is not announced.
  expect(announcedRoleChanges([lobby, late, handover], 12).map((c) => c.role)).toEqual(['shedding']);
});

describe('the headline when most attempts fail', () => {
  test('the collapse is told apart from a figure that is critical by itself, and each keeps its own status', () => {
    // The issuer outage with nothing done: from minute 5 the switch collapses (most attempts fail).
    const { snapshots } = runRound(paymentSwitch, { scenario: 'issuer-outage', seed: 1, minutes: 20, noise: true });
    const calm = headlineStatuses(paymentSwitch, snapshots[2]);
    expect(calm.collapse).toBe(false);
    const collapsed = snapshots.find((s) => headlineStatuses(paymentSwitch, s).collapse);
    if (!collapsed) throw new Error('no collapse in the issuer outage');
    const { own } = headlineStatuses(paymentSwitch, collapsed);
    for (const key of ['goodApproval', 'authTimeMs', 'fraudRateBp', 'slotsBusy']) {
      expect(collapsed.status[key]).toBe('critical');
      const v = collapsed.indicators[key];
      expect(own[key]).toBe(collapsed.na?.includes(key) ? null : paymentSwitch.ownStatus(key, v));
    }
    // At least one figure is fine by itself: that is why the reason is needed.
    expect(Object.values(own).some((s) => s !== 'critical')).toBe(true);
    // Split view keeps the headline: a desk without the detail tells the same.
    expect(headlineStatuses(paymentSwitch, { ...collapsed, na: undefined }).collapse).toBe(true);
  });

  test('every figure critical by itself is not a collapse to explain', () => {
    const s = {
      indicators: { goodApproval: 0.5, authTimeMs: 3000, fraudRateBp: 40, slotsBusy: 1 },
      status: { goodApproval: 'critical', authTimeMs: 'critical', fraudRateBp: 'critical', slotsBusy: 'critical' },
    } as const;
    expect(headlineStatuses(paymentSwitch, s).collapse).toBe(false);
  });
});

describe('controls that would do nothing now', () => {
  test('a rollback waits for a bad build in service: none before the deploy, none once rolled back', () => {
    const { snapshots } = runRound(webService, {
      scenario: 'bad-deploy',
      seed: 1,
      minutes: 30,
      noise: true,
      changes: [],
    });
    const deploy = snapshots.findIndex((s) => s.events.some((e) => e.kind === 'deploy'));
    expect(deploy).toBeGreaterThan(0);
    expect(webService.idle?.('rollback', snapshots[deploy - 1])).toBe('nothing-to-roll-back');
    expect(webService.idle?.('rollback', snapshots[deploy])).toBeNull();
    // Pressed at the deploy: from the switch back on, nothing is left to roll back.
    const rolled = runRound(webService, {
      scenario: 'bad-deploy',
      seed: 1,
      minutes: 30,
      noise: true,
      changes: [{ minute: deploy + 1, key: 'rollback', value: PRESS }],
    }).snapshots;
    const done = rolled.findIndex((s) => s.events.some((e) => e.kind === 'rollback-done'));
    expect(done).toBeGreaterThan(deploy);
    expect(webService.idle?.('rollback', rolled[done - 1])).toBeNull();
    expect(webService.idle?.('rollback', rolled[done])).toBe('nothing-to-roll-back');
    // Other controls always act; a desk that does not receive the bad build's share is not told it is idle.
    expect(webService.idle?.('warmUp', snapshots[0])).toBeNull();
    const { badBuildShare: _, ...hidden } = snapshots[0].indicators;
    expect(webService.idle?.('rollback', { ...snapshots[0], indicators: hidden })).toBeNull();
  });
});

describe('seats on autopilot', () => {
  const pilot = { kind: 'autopilot', skill: 'careful', reason: 'dropped', since: 0, minute: 12 } as const;
  const turn = (minute: number, p: SeatTurn['pilot'], playerId = 1): SeatTurn => ({
    roundId: 1,
    teamId: 1,
    playerId,
    name: 'Ana',
    roles: ['standin'],
    minute,
    pilot: p,
    at: minute * 1000,
  });
  const auto = (id: number, minute: number, value: number, playerId = 1): ChangeRecord => ({
    ...change(id, minute, 'standInLimit', value),
    author: { playerId, name: 'Ana' },
    actor: { kind: 'autopilot', skill: 'careful', reason: 'dropped' },
  });
  const snaps = Array.from({ length: 20 }, (_, m) => snap(m, { controls: { standInLimit: m < 18 ? 100 : 60 } }));

  test('the summary on taking a seat back: how long the autopilot played and what it changed, from what', () => {
    const turns = [turn(12, pilot), turn(18, null)];
    const changes = [auto(5, 18, 60), change(6, 15, 'servers', 8), auto(7, 19, 40, 2)];
    expect(autopilotSummary(turns, changes, snaps, 1)).toEqual({
      id: expect.any(String),
      roles: ['standin'],
      minutes: 6,
      changes: [{ key: 'standInLimit', from: 100, to: 60, minute: 18 }],
    });
  });

  test('no summary while the autopilot still plays, after the teacher played, or for another seat', () => {
    expect(autopilotSummary([turn(12, pilot)], [], snaps, 1)).toBeNull();
    expect(autopilotSummary([turn(12, { ...pilot, kind: 'teacher' }), turn(18, null)], [], snaps, 1)).toBeNull();
    expect(autopilotSummary([turn(12, pilot, 2), turn(18, null, 2)], [], snaps, 1)).toBeNull();
    expect(autopilotSummary([turn(12, pilot), turn(18, null)], [], snaps, null)).toBeNull();
  });

  test('the feed tells who took over a seat and who took it back, at their minutes', () => {
    const items = feedItems([], snaps.slice(0, 19), 60, [], null, [turn(12, pilot), turn(18, null)]);
    const seats = items.filter((i) => i.kind === 'seat');
    expect(seats.map((i) => [i.minute, i.kind === 'seat' && (i.turn.pilot?.kind ?? null)])).toEqual([
      [18, null],
      [12, 'autopilot'],
    ]);
  });
});
