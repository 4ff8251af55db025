// The server scores every team against doing nothing and a calm hour on the round's seed and minutes:
// live every minute, at the end, when ended early, in forks and replays — the engine's numbers — and a
// round stored before the baseline keeps the score it was given.
import { beforeEach, describe, expect, test } from 'vitest';
import { baselineSeries, evaluateWithSeries, ledgerAt } from '../../shared/classroom/ledger.ts';
import { baselineRun, runRound, scenarioDef } from '../../shared/sim/engine.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';
import { evaluateRound } from '../../shared/sim/score.ts';
import type { TeamMinute } from '../../shared/protocol/types.ts';
import { buildReplay } from '../../server/replay/replay.ts';
import { roomEnv, type RoomEnv } from './rooms.ts';
import { joinStudent } from './seats.ts';

let env: RoomEnv;
beforeEach(() => {
  env = roomEnv();
});

const SEED = 21;
const MINUTES = 12;
const def = scenarioDef(paymentSwitch, 'sale-surge');

async function playedRoom(endAt = MINUTES) {
  const { room } = await env.manager.create({
    scenario: 'sale-surge',
    teamCount: 2,
    seed: SEED,
    minutes: MINUTES,
    tempo: 1,
  });
  const ana = (await joinStudent(env.manager, room.code, 'Ana')).player;
  await joinStudent(env.manager, room.code, 'Bo');
  await room.dispatch({ type: 'clock', action: 'start' });
  // Ana (alone in team 1, every role) scales up and sheds at minute 2; team 2 does nothing.
  await env.advance(1000);
  await room.dispatch({ type: 'control', playerId: ana.id, key: 'servers', value: 12 });
  await room.dispatch({ type: 'control', playerId: ana.id, key: 'shedding', value: true });
  for (let m = 2; m <= endAt; m++) await env.advance(1000);
  if (endAt < MINUTES) await room.dispatch({ type: 'clock', action: 'end' });
  return { room, ana };
}

describe('against doing nothing', () => {
  test('every minute carries the engine’s score and ledger at that minute; the stored verdict is the last', async () => {
    const { room, ana } = await playedRoom();
    const baseline = baselineRun(paymentSwitch, 'sale-surge', SEED, MINUTES);
    const changes = [
      { minute: 2, key: 'servers', value: 12 },
      { minute: 2, key: 'shedding', value: true },
    ];
    const played = runRound(paymentSwitch, {
      scenario: 'sale-surge',
      seed: SEED,
      noise: true,
      minutes: MINUTES,
      changes,
      baseline,
    });
    const mine = env.out.sent
      .filter((s) => s.event === 'minute' && s.to.kind === 'team' && s.to.teamId === ana.teamId)
      .map((s) => s.payload as TeamMinute);
    expect(mine.map((m) => m.snapshot.minute)).toEqual(Array.from({ length: MINUTES + 1 }, (_, i) => i));
    for (const m of mine) {
      const upTo = played.snapshots.slice(0, m.snapshot.minute + 1);
      expect(m.score).toBe(evaluateRound(def, upTo, baseline).score);
      expect(m.ledger).toEqual(ledgerAt(upTo.at(-1)!, paymentSwitch.ledger.total, baselineSeries(baseline)));
    }
    // The play saved money: a positive score, with its mission points.
    expect(played.result.score).toBeGreaterThan(0);
    const stored = await env.store.resultsOfRound(room.round.id);
    expect(stored.find((r) => r.teamId === ana.teamId)?.score).toBe(played.result.score);
    // Doing nothing scores 0 exactly.
    expect(stored.find((r) => r.teamId !== ana.teamId)?.score).toBe(0);
    // The figures travel with the summary too.
    const summary = env.out.of('summary').at(-1)!;
    expect(summary.teams.find((t) => t.teamId === ana.teamId)?.ledger).toEqual(mine.at(-1)!.ledger);
  });

  test('a round ended early is judged against the baseline at the minute it was ended', async () => {
    const { room, ana } = await playedRoom(6);
    const baseline = baselineRun(paymentSwitch, 'sale-surge', SEED, MINUTES);
    const changes = [
      { minute: 2, key: 'servers', value: 12 },
      { minute: 2, key: 'shedding', value: true },
    ];
    const upTo6 = runRound(paymentSwitch, {
      scenario: 'sale-surge',
      seed: SEED,
      noise: true,
      minutes: 6,
      changes,
      baseline,
    });
    const scores = env.out.of('scores').at(-1)!;
    expect(scores.endedEarlyAt).toBe(6);
    expect(scores.teams.find((t) => t.teamId === ana.teamId)?.score).toBe(upTo6.result.score);
    expect((await room.historyOf(ana.teamId!))?.ledger.baseline).toBe(baselineSeries(baseline).total[6]);
  });

  test('a replay carries the baseline series; the web’s figures from it equal the server’s', async () => {
    const { room, ana } = await playedRoom();
    const roundRow = (await env.store.roundById(room.round.id))!;
    const roomRow = (await env.store.roomById(room.id))!;
    const replay = await buildReplay(env.store, roundRow, roomRow);
    const series = baselineSeries(baselineRun(paymentSwitch, 'sale-surge', SEED, MINUTES));
    for (const t of replay.teams) expect(t.baseline).toEqual(series);
    const history = (await room.historyOf(ana.teamId!))!;
    expect(history.baseline).toEqual(series);
    const again = evaluateWithSeries(def, history.snapshots, history.baseline, paymentSwitch.ledger.total);
    expect(again.score).toBe(history.score);
    expect(again.ledger).toEqual(history.ledger);
  });

  test('a round stored before the baseline keeps its stored score when it is read again', async () => {
    const { room, ana } = await playedRoom();
    // As a round scored with the goals-only rule would have been stored.
    env.store.sqlite
      .prepare('update scores set score = 3065.8 where round_id = ? and team_id = ?')
      .run(room.round.id, ana.teamId);
    const code = room.code;
    room.dispose();
    expect(env.manager.sweep(0)).toBe(1);
    const back = await env.manager.get(code);
    expect(back.scores()?.teams.find((t) => t.teamId === ana.teamId)?.score).toBe(3065.8);
    // Its ledger figures are still computed against the baseline.
    expect((await back.historyOf(ana.teamId!))?.ledger.baseline).toBeGreaterThan(0);
  });

  test('a what-if starts against the same baseline as the round it comes from', async () => {
    const { room, ana } = await playedRoom();
    const fork = await env.manager.fork(room.teacherId, room.round.id, ana.teamId!, 5);
    const opened = await env.manager.get(fork.code);
    const team = [...opened.round.teams.values()][0];
    // The same references, up to where the what-if stands (it is paused at minute 5; the round it comes from is over).
    const origin = (await room.historyOf(ana.teamId!))!.baseline;
    expect((await opened.historyOf(team.teamId))?.baseline).toEqual({
      total: origin.total.slice(0, 6),
      calm: origin.calm.slice(0, 6),
    });
    expect(team.score).toBe(
      evaluateRound(
        def,
        (await room.historyOf(ana.teamId!))!.snapshots.slice(0, 6),
        baselineRun(paymentSwitch, 'sale-surge', SEED, MINUTES),
      ).score,
    );
  });
});
