// Loading a finished room (a follow-up of issue 13): anyone who knows a code can make the server load a
// room, and re-simulating a whole finished round on the event loop cost ~250 ms for 30 teams × 240 minutes.
// A finished round is read as it was stored — no minute is simulated; a paused round is still rebuilt by
// re-simulation (it goes on from there) and checked against what was stored; verify-replays still
// re-simulates finished rounds.
import { afterEach, describe, expect, test, vi } from 'vitest';
import { verifyRounds } from '../../server/replay/verify.ts';
import type { Room } from '../../server/rooms/room.ts';
import { getModel } from '../../shared/sim/registry.ts';
import { roomEnv, type RoomEnv } from '../server/rooms.ts';
import { joinStudent } from '../server/seats.ts';

const model = getModel('payment-switch');
afterEach(() => void vi.restoreAllMocks());

/** A 2-team, 6-minute round played to its end (or paused at minute 3), then swept out of memory. */
async function playedAndSwept(env: RoomEnv, end: 'finished' | 'paused'): Promise<{ room: Room; teamIds: number[] }> {
  const { room } = await env.manager.create({ teamCount: 2, minutes: 6, tempo: 1 });
  for (const name of ['Ann', 'Bob', 'Cy']) await joinStudent(env.manager, room.code, name);
  await room.dispatch({ type: 'clock', action: 'start' });
  const [p] = [...room.view('teacher').players];
  await room.dispatch({ type: 'control', playerId: p.id, key: 'servers', value: 9 });
  await env.advance(end === 'finished' ? 6000 : 3000);
  if (end === 'paused') await room.dispatch({ type: 'clock', action: 'pause' });
  expect(room.round.state).toBe(end);
  await env.advance(31 * 60_000);
  expect(env.manager.sweep(30 * 60_000)).toBeGreaterThan(0);
  expect(env.manager.peek(room.code)).toBeUndefined();
  return { room, teamIds: room.view('teacher').teams.map((t) => t.id) };
}

/** Changes one stored minute of a team, as a damaged or edited database would hold it. */
function tamper(env: RoomEnv, roundId: number, teamId: number, minute: number): number {
  const db = env.store.sqlite;
  const row = db
    .prepare('SELECT data FROM snapshots WHERE round_id = ? AND team_id = ? AND minute = ?')
    .get(roundId, teamId, minute) as { data: string };
  const data = JSON.parse(row.data);
  data.indicators.goodApproval += 1e-9;
  db.prepare('UPDATE snapshots SET data = ? WHERE round_id = ? AND team_id = ? AND minute = ?').run(
    JSON.stringify(data),
    roundId,
    teamId,
    minute,
  );
  return data.indicators.goodApproval;
}

describe('a finished room', () => {
  test('is loaded from its stored minutes without simulating one, and shows what it showed before', async () => {
    const env = roomEnv();
    const { room: before, teamIds } = await playedAndSwept(env, 'finished');
    const stored = tamper(env, before.round.id, teamIds[1], 3);
    const step = vi.spyOn(model, 'step');
    const create = vi.spyOn(model, 'create');

    const back = await env.manager.get(before.code);
    expect(step).not.toHaveBeenCalled();
    expect(create).not.toHaveBeenCalled();
    expect(back.round.state).toBe('finished');
    // What was stored is what is shown, and nothing is reported at load: checking is verify-replays' job.
    expect((await back.historyOf(teamIds[1]))!.snapshots[3].indicators.goodApproval).toBe(stored);
    expect(back.recoveryMismatches).toEqual([]);
    expect(env.errors).toEqual([]);
    // Everything else is as it was: views, the untouched team's history, scores, the teacher's minute.
    expect(back.view('teacher')).toEqual(before.view('teacher'));
    expect(await back.historyOf(teamIds[0])).toEqual(await before.historyOf(teamIds[0]));
    expect(back.scores()).toEqual(before.scores());
    expect(back.trends()[teamIds[0]]).toEqual(before.trends()[teamIds[0]]);
    expect(back.latestMinute()).toEqual(before.latestMinute());

    // verify-replays still re-simulates it, and finds the edited minute.
    const reports = await verifyRounds(env.store);
    expect(step).toHaveBeenCalled();
    expect(reports.find((r) => r.roundId === before.round.id)!.mismatches).toEqual([
      { teamId: teamIds[1], minutes: [3] },
    ]);
  });

  test('a next round starts from it as from any finished round', async () => {
    const env = roomEnv();
    const { room: before } = await playedAndSwept(env, 'finished');
    const back = await env.manager.get(before.code);
    await back.dispatch({ type: 'clock', action: 'next' });
    await back.dispatch({ type: 'clock', action: 'start' });
    await env.advance(2000);
    expect(back.round).toMatchObject({ number: 2, state: 'running', minute: 2 });
  });

  test('with a stored minute missing, it is rebuilt by re-simulation and the gap is reported', async () => {
    const env = roomEnv();
    const { room: before, teamIds } = await playedAndSwept(env, 'finished');
    env.store.sqlite
      .prepare('DELETE FROM snapshots WHERE round_id = ? AND team_id = ? AND minute = 4')
      .run(before.round.id, teamIds[0]);
    const step = vi.spyOn(model, 'step');
    const back = await env.manager.get(before.code);
    expect(step).toHaveBeenCalled();
    expect(await back.historyOf(teamIds[0])).toEqual(await before.historyOf(teamIds[0]));
    expect(back.recoveryMismatches).toEqual([{ teamId: teamIds[0], minutes: [4] }]);
  });
});

test('a paused room is still rebuilt by re-simulation and checked against what was stored', async () => {
  const env = roomEnv();
  const { room: before, teamIds } = await playedAndSwept(env, 'paused');
  const original = (await before.historyOf(teamIds[1]))!.snapshots[2].indicators.goodApproval;
  tamper(env, before.round.id, teamIds[1], 2);
  const step = vi.spyOn(model, 'step');
  const back = await env.manager.get(before.code);
  expect(step).toHaveBeenCalled();
  // The simulation is what goes on, so the re-simulated minute is the one shown; the difference is reported.
  expect((await back.historyOf(teamIds[1]))!.snapshots[2].indicators.goodApproval).toBe(original);
  expect(back.recoveryMismatches).toEqual([{ teamId: teamIds[1], minutes: [2] }]);
  expect(env.errors).toEqual([
    expect.objectContaining({ room: before.code, mismatches: [{ teamId: teamIds[1], minutes: [2] }] }),
  ]);
  await back.dispatch({ type: 'clock', action: 'resume' });
  await env.advance(1000);
  expect(back.round.minute).toBe(4);
});
