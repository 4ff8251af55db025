// After the round: each student's own team's replay with their token as the key (every team's once
// the teacher shares them), rounds ended early labelled wherever they appear and ranked below
// complete ones, what-if rooms named after the team they come from. Real server on port 0.
import { afterEach, describe, expect, test } from 'vitest';
import { rankRows } from '../../shared/classroom/rank.ts';
import type { RoundReplay, StudentRounds } from '../../shared/protocol/types.ts';
import { leaderboardFromScores } from '../../web/lib/state/leaderboard.ts';
import { collect, connect, createRoom, ok, startServer, until, type Client, type TestServer } from './helpers.ts';

let server: TestServer;
afterEach(() => server?.close());

const auth = (secret: string) => ({ authorization: `Bearer ${secret}` });
const get = (url: string, secret?: string) =>
  server.app.inject({ method: 'GET', url, headers: secret ? auth(secret) : {} });

/** A room of two teams — Ana and Cy in the first, Bo in the second — started, and its teacher. */
async function classroom(body: object = {}) {
  const { code, teacherKey } = await createRoom(server, { teamCount: 2, minutes: 12, tempo: 1, seed: 17, ...body });
  const teacher = await connect(server);
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  const tokens: Record<string, string> = {};
  for (const name of ['Ana', 'Bo', 'Cy'])
    tokens[name] = (await ok(await connect(server), 'student:join', { code, name })).token;
  await ok(teacher, 'teacher:clock', { action: 'start' });
  const room = await server.app.rooms.get(code);
  const [t1, t2] = room.view('teacher').teams.map((t) => t.id);
  return { code, teacherKey, teacher, tokens, roundId: room.round.id, t1, t2 };
}

async function minutes(n: number): Promise<void> {
  for (let i = 0; i < n; i++) server.clock.advance(1000);
  await server.app.rooms.settled();
}

describe('a debrief for students', () => {
  test('after the round a student opens their own team’s replay with their token; others are not theirs until the teacher shares', async () => {
    server = await startServer();
    const c = await classroom();
    await minutes(3);
    // While the round runs: not yet.
    const early = await get(`/api/rounds/${c.roundId}/replay`, c.tokens.Ana);
    expect([early.statusCode, early.json().error.code]).toEqual([409, 'BAD_STATE']);
    expect((await get('/api/student/rounds', c.tokens.Ana)).json().rounds).toEqual([]);
    // A what-if made from it is the teacher's: its room is not named to students.
    expect(
      (
        await server.app.inject({
          method: 'POST',
          url: `/api/rounds/${c.roundId}/fork`,
          headers: auth(c.teacherKey),
          payload: { teamId: c.t1, minute: 2 },
        })
      ).statusCode,
    ).toBe(201);
    await minutes(9);

    const ana: RoundReplay = (await get(`/api/rounds/${c.roundId}/replay`, c.tokens.Ana)).json();
    expect(ana.teams.map((t) => t.teamId)).toEqual([c.t1]);
    expect(ana.round.teams.map((t) => t.teamId)).toEqual([c.t1]);
    expect(ana.teams[0].members.map((m) => m.name)).toEqual(['Ana', 'Cy']);
    expect(ana.teams[0].columns.minutes).toHaveLength(13);
    expect([ana.forks, ana.origin]).toEqual([[], null]);
    // The same team as the teacher sees it.
    const full: RoundReplay = (await get(`/api/rounds/${c.roundId}/replay`, c.teacherKey)).json();
    expect(full.teams).toHaveLength(2);
    expect(full.forks).toHaveLength(1);
    expect(ana.teams[0]).toEqual(full.teams[0]);
    expect((await get(`/api/rounds/${c.roundId}/replay`, c.tokens.Bo)).json().teams.map((t: any) => t.teamId)).toEqual([
      c.t2,
    ]);

    const rounds: StudentRounds = (await get('/api/student/rounds', c.tokens.Cy)).json();
    expect(rounds).toMatchObject({ roomCode: c.code, name: 'Cy', replayShared: false });
    expect(rounds.rounds.map((r) => [r.id, r.teamIds, r.teams.map((t) => t.teamId)])).toEqual([
      [c.roundId, [c.t1], [c.t1]],
    ]);

    // The teacher shares the room's replays: every team, for every student of the room.
    const rooms = collect(c.teacher, 'room');
    expect((await ok(c.teacher, 'teacher:share', { shared: true })).room.replayShared).toBe(true);
    await until(() => rooms.some((r) => r.replayShared), 'the room view');
    expect((await get(`/api/rounds/${c.roundId}/replay`, c.tokens.Bo)).json().teams.map((t: any) => t.teamId)).toEqual([
      c.t1,
      c.t2,
    ]);
    expect((await get('/api/student/rounds', c.tokens.Bo)).json()).toMatchObject({
      replayShared: true,
      rounds: [{ teamIds: [c.t2], teams: [{ teamId: c.t1 }, { teamId: c.t2 }] }],
    });
    // Taken back: their own again.
    await ok(c.teacher, 'teacher:share', { shared: false });
    expect((await get(`/api/rounds/${c.roundId}/replay`, c.tokens.Bo)).json().teams.map((t: any) => t.teamId)).toEqual([
      c.t2,
    ]);
  });

  test('a student’s replay ranks their team among every team of the round, without naming the others', async () => {
    server = await startServer();
    const { code, teacherKey } = await createRoom(server, { teamCount: 3, minutes: 12, tempo: 1, seed: 17 });
    const teacher = await connect(server);
    await ok(teacher, 'teacher:join', { code, key: teacherKey });
    const seats: Record<string, { token: string; socket: Client }> = {};
    for (const name of ['Ana', 'Bo', 'Cy']) {
      const socket = await connect(server);
      seats[name] = { socket, token: (await ok(socket, 'student:join', { code, name })).token };
    }
    await ok(teacher, 'teacher:clock', { action: 'start' });
    const room = await server.app.rooms.get(code);
    const roundId = room.round.id;
    const teamOf = (name: string) => room.view('teacher').players.find((p) => p.name === name)!.teamId!;
    // Three teams of one, each with every role: Bo scales up to just enough, Cy too far, Ana does nothing.
    expect(new Set(['Ana', 'Bo', 'Cy'].map(teamOf)).size).toBe(3);
    await ok(seats.Bo.socket, 'student:control', { key: 'servers', value: 10 });
    await ok(seats.Cy.socket, 'student:control', { key: 'servers', value: 14 });
    await minutes(12);

    const full: RoundReplay = (await get(`/api/rounds/${roundId}/replay`, teacherKey)).json();
    const board = rankRows(full.round.teams.map((t) => ({ ...t, met: t.goalsMet, complete: true }))).map((r) => [
      r.teamId,
      r.rank,
    ]);
    expect(full.standing.teams).toBe(3);
    expect(full.standing.ranks.map((r) => [r.teamId, r.rank])).toEqual(board);
    expect(board.map(([t]) => t)).toEqual([teamOf('Bo'), teamOf('Cy'), teamOf('Ana')]);
    expect(board.map(([, r]) => r)).toEqual([1, 2, 3]);

    // Ana's debrief: her team only, at its real place — third of three, not "1 of 1".
    const ana: RoundReplay = (await get(`/api/rounds/${roundId}/replay`, seats.Ana.token)).json();
    expect(ana.teams.map((t) => t.teamId)).toEqual([teamOf('Ana')]);
    expect(ana.standing).toEqual({ teams: 3, ranks: [{ teamId: teamOf('Ana'), rank: 3 }] });
    expect(JSON.stringify(ana)).not.toContain('"Bo"');
    // Shared: every team's rank, as the teacher's.
    await ok(teacher, 'teacher:share', { shared: true });
    const shared: RoundReplay = (await get(`/api/rounds/${roundId}/replay`, seats.Ana.token)).json();
    expect(shared.standing).toEqual(full.standing);
  });

  test('a student the teacher moved during the round sees both teams they played in', async () => {
    server = await startServer();
    const c = await classroom();
    await minutes(3);
    const cy = (await server.app.rooms.get(c.code)).view('teacher').players.find((p) => p.name === 'Cy')!;
    await ok(c.teacher, 'teacher:move', { playerId: cy.id, teamId: c.t2 });
    await minutes(9);
    const replay: RoundReplay = (await get(`/api/rounds/${c.roundId}/replay`, c.tokens.Cy)).json();
    expect(replay.teams.map((t) => [t.teamId, t.members.map((m) => m.name)])).toEqual([
      [c.t1, ['Ana', 'Cy']],
      [c.t2, ['Bo', 'Cy']],
    ]);
    expect((await get('/api/student/rounds', c.tokens.Cy)).json().rounds[0].teamIds.sort()).toEqual(
      [c.t1, c.t2].sort(),
    );
    expect((await get(`/api/rounds/${c.roundId}/replay`, c.tokens.Ana)).json().teams.map((t: any) => t.teamId)).toEqual(
      [c.t1],
    );
  });

  test('no key, a removed student, a student of another room, a student who came after the round: refused', async () => {
    server = await startServer();
    const c = await classroom();
    await minutes(12);
    const other = await classroom();
    await minutes(12);
    const late = (await ok(await connect(server), 'student:join', { code: c.code, name: 'Late' })).token;
    const status = async (url: string, secret?: string) => {
      const r = await get(url, secret);
      return [r.statusCode, r.json().error?.code];
    };
    expect(await status(`/api/rounds/${c.roundId}/replay`)).toEqual([401, 'BAD_KEY']);
    expect(await status(`/api/rounds/${c.roundId}/replay`, 'Z'.repeat(43))).toEqual([401, 'BAD_TOKEN']);
    expect(await status(`/api/rounds/${c.roundId}/replay`, other.tokens.Ana)).toEqual([404, 'ROUND_NOT_FOUND']);
    expect(await status(`/api/rounds/${c.roundId}/replay`, late)).toEqual([404, 'ROUND_NOT_FOUND']);
    expect((await get('/api/student/rounds', late)).json().rounds).toEqual([]);
    const cy = (await server.app.rooms.get(c.code)).view('teacher').players.find((p) => p.name === 'Cy')!;
    await ok(c.teacher, 'teacher:remove', { playerId: cy.id });
    expect(await status(`/api/rounds/${c.roundId}/replay`, c.tokens.Cy)).toEqual([401, 'BAD_TOKEN']);
    expect(await status('/api/student/rounds', c.tokens.Cy)).toEqual([401, 'BAD_TOKEN']);
  });

  test('rate-limited like the other look-ups', async () => {
    server = await startServer({ httpLimits: { lookups: { max: 3, timeWindow: '1 minute' } } });
    const c = await classroom();
    await minutes(12);
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await get(`/api/rounds/${c.roundId}/replay`, c.tokens.Ana)).statusCode);
    expect(codes).toEqual([200, 200, 200, 429]);
    const listed = [];
    for (let i = 0; i < 4; i++) listed.push((await get('/api/student/rounds', c.tokens.Ana)).statusCode);
    expect(listed).toEqual([200, 200, 200, 429]);
  });
});

describe('a round ended early (issue 12, item 8)', () => {
  test('is labelled “ended at minute m” in the room view, the scores, the history, the replay and the CSV', async () => {
    server = await startServer();
    const c = await classroom();
    const student: Client = await connect(server);
    await ok(student, 'student:join', { code: c.code, token: c.tokens.Ana });
    const scores = collect(student, 'scores');
    const rooms = collect(student, 'room');
    await minutes(4);
    const { room } = await ok(c.teacher, 'teacher:clock', { action: 'end' });
    expect(room.round).toMatchObject({ state: 'finished', minute: 4, endedEarlyAt: 4 });
    await until(() => scores.length === 1 && rooms.some((r) => r.round.state === 'finished'), 'the end');
    expect(scores[0].endedEarlyAt).toBe(4);
    expect(rooms.at(-1)?.round.endedEarlyAt).toBe(4);
    const history = (await get('/api/teacher/rooms', c.teacherKey)).json().rooms[0].rounds[0];
    expect(history).toMatchObject({ id: c.roundId, endedEarlyAt: 4 });
    expect((await get(`/api/rounds/${c.roundId}/replay`, c.teacherKey)).json().round.endedEarlyAt).toBe(4);
    expect((await get(`/api/rounds/${c.roundId}/replay`, c.tokens.Ana)).json().round.endedEarlyAt).toBe(4);
    const csv = (await get(`/api/rounds/${c.roundId}/export/scores.csv`, c.teacherKey)).body.trim().split('\r\n');
    expect(csv[0].split(',').at(-1)).toBe('Ended at minute [ended_at_minute]');
    expect(csv.slice(1).map((l) => l.split(',').at(-1))).toEqual(['4', '4']);

    // The next round, played through, is complete.
    await ok(c.teacher, 'teacher:clock', { action: 'next' });
    const next = await ok(c.teacher, 'teacher:clock', { action: 'start' });
    expect(next.room.round.endedEarlyAt).toBeNull();
    await minutes(12);
    expect((await server.app.rooms.get(c.code)).scores()?.endedEarlyAt).toBeNull();
  });

  test('never ranks above a complete round, whatever its score (one rank for every screen)', () => {
    const rows = rankRows([
      { team: 'early, 3 of 3 goals', score: 3133, met: 3, complete: false, idx: 0 },
      { team: 'played through', score: 1200, met: 1, complete: true, idx: 1 },
      { team: 'played through, free play', score: null, met: 0, complete: true, idx: 2 },
      { team: 'early too', score: 3133, met: 3, complete: false, idx: 3 },
    ]);
    expect(rows.map((r) => [r.team, r.rank])).toEqual([
      ['played through', 1],
      ['played through, free play', 2],
      ['early, 3 of 3 goals', 3],
      ['early too', 3],
    ]);
    // The leaderboard of the screens ranks through it: a round's teams carry whether it was complete.
    const board = leaderboardFromScores(
      { roundId: 1, endedEarlyAt: 11, teams: [{ teamId: 5, name: '', goals: [], score: 10 }] },
      [{ id: 5, idx: 0, name: '', whatIf: null }],
    );
    expect(board[0]).toMatchObject({ complete: false, rank: 1 });
  });
});

describe('what-if rooms keep the original team’s name (issue 12, item 9)', () => {
  test('the fork of team 2 at minute 10 carries team 2’s place and name: the room, its desk, the history, the replay, the CSV', async () => {
    server = await startServer();
    const c = await classroom();
    await ok(c.teacher, 'teacher:rename', { teamId: c.t1, name: 'Night shift' });
    await minutes(12);
    const fork = async (teamId: number, roundId = c.roundId, minute = 10) =>
      (
        await server.app.inject({
          method: 'POST',
          url: `/api/rounds/${roundId}/fork`,
          headers: auth(c.teacherKey),
          payload: { teamId, minute },
        })
      ).json();

    const two = await fork(c.t2);
    const origin = { roundId: c.roundId, teamId: c.t2, idx: 1, name: '', minute: 10 };
    expect(two.room.teams).toEqual([{ id: expect.any(Number), idx: 0, name: '', whatIf: origin }]);
    // Its desk: a student of the what-if room reads the same.
    const joined = await ok(await connect(server), 'student:join', { code: two.code, name: 'Di' });
    expect(joined.room.teams[0].whatIf).toEqual(origin);
    const history = (await get('/api/teacher/rooms', c.teacherKey)).json().rooms.find((r: any) => r.code === two.code)
      .rounds[0];
    expect(history.teams[0].whatIf).toEqual(origin);
    expect((await get(`/api/rounds/${two.roundId}/replay`, c.teacherKey)).json().teams[0].whatIf).toEqual(origin);
    const csv = (await get(`/api/rounds/${two.roundId}/export/scores.csv`, c.teacherKey)).body.split('\r\n')[1];
    expect(csv.split(',')[1]).toBe('Team 2 — what-if from minute 10');

    // A named team keeps its name; a what-if of a what-if is still named after the first team.
    expect((await fork(c.t1)).room.teams[0].whatIf).toMatchObject({ idx: 0, name: 'Night shift', minute: 10 });
    const t = await connect(server);
    await ok(t, 'teacher:join', { code: two.code, key: c.teacherKey });
    await ok(t, 'teacher:clock', { action: 'resume' });
    await minutes(2);
    const again = await fork(two.room.teams[0].id, two.roundId, 11);
    expect(again.room.teams[0].whatIf).toEqual({
      roundId: two.roundId,
      teamId: two.room.teams[0].id,
      idx: 1,
      name: '',
      minute: 11,
    });
  });
});
