// Replay and debrief: exact re-simulation, what-if forks, CSV export, the teacher's history.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RoundReplay } from '../../shared/protocol/types.ts';
import { fromColumns } from '../../shared/replay/columns.ts';
import { models } from '../../shared/sim/registry.ts';
import type { ControlValue } from '../../shared/sim/types.ts';
import { csvField } from '../../server/replay/csv.ts';
import { verifyRounds } from '../../server/replay/verify.ts';
import type { Room } from '../../server/rooms/room.ts';
import { startServer, type TestServer } from './helpers.ts';
import { joinStudent } from './seats.ts';

/** A small RFC 4180 parser, enough to check what the export writes (`sep`: the list separator). */
function parseCsv(text: string, sep = ','): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  const endRow = () => {
    row.push(field);
    rows.push(row);
    row = [];
    field = '';
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++; // the escaped quote's second half
      } else if (ch === '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch === '"') {
      quoted = true;
    } else if (ch === sep) {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      endRow();
      i++; // the \n of \r\n
    } else {
      field += ch;
    }
  }
  if (field || row.length) endRow();
  return rows;
}

interface Played {
  room: Room;
  key: string;
  roundId: number;
  teams: number[];
}

describe('replay of finished rounds', () => {
  let server: TestServer;
  let ps: Played;
  let ws: Played;
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });

  /** Plays a whole round in-process: students join, changes are sent to apply at their minute, the clock runs out. */
  async function play(
    body: object,
    moves: { team: number; minute: number; key: string; value: ControlValue }[],
    key?: string,
  ): Promise<Played> {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/rooms',
      payload: body,
      headers: key ? auth(key) : {},
    });
    const { code, teacherKey } = res.json();
    const room = await server.app.rooms.get(code);
    const teamIds = room.view('teacher').teams.map((t) => t.id);
    const players = [];
    for (let i = 0; i < teamIds.length; i++)
      players.push((await joinStudent(server.app.rooms, code, `Solo ${i + 1}`)).player);
    await room.dispatch({ type: 'clock', action: 'start' });
    const minutes = room.round.minutes;
    for (let m = 1; m <= minutes; m++) {
      for (const mv of moves.filter((x) => x.minute === m))
        await room.dispatch({ type: 'control', playerId: players[mv.team].id, key: mv.key, value: mv.value });
      await advance(room.round.tempo * 1000);
    }
    expect(room.round.state).toBe('finished');
    return { room, key: teacherKey, roundId: room.round.id, teams: teamIds };
  }

  /** Moves the clock and waits until every room has handled what fell due. */
  async function advance(ms: number): Promise<void> {
    server.clock.advance(ms);
    await server.app.rooms.settled();
  }

  async function replayOf(p: { key: string; roundId: number }): Promise<RoundReplay> {
    const res = await server.app.inject({
      method: 'GET',
      url: `/api/rounds/${p.roundId}/replay`,
      headers: { ...auth(p.key), 'accept-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    return JSON.parse(gunzipSync(res.rawPayload).toString('utf8'));
  }

  beforeAll(async () => {
    server = await startServer();
    ps = await play(
      { simulator: 'payment-switch', scenario: 'sale-surge', teamCount: 3, minutes: 30, tempo: 1, seed: 11 },
      [
        { team: 0, minute: 3, key: 'servers', value: 10 },
        { team: 0, minute: 3, key: 'shedding', value: true },
        { team: 1, minute: 20, key: 'servers', value: 12 },
        { team: 2, minute: 6, key: 'retryPolicy', value: 'backoff' },
      ],
    );
    ws = await play(
      { simulator: 'web-service', scenario: 'bad-deploy', teamCount: 2, minutes: 40, tempo: 1, seed: 5 },
      [{ team: 0, minute: 12, key: 'rollback', value: 'press' }],
      ps.key,
    );
  });
  afterAll(() => server.close());

  test('re-simulation from seed and recorded changes equals the stored snapshots, for both simulators', async () => {
    const reports = await verifyRounds(server.app.store);
    expect(reports.map((r) => r.roundId).sort()).toEqual([ps.roundId, ws.roundId].sort());
    for (const r of reports) expect(r.mismatches).toEqual([]);
  });

  test('the replay holds every minute of every team, the changes with their authors, the scores and chapters', async () => {
    const replay = await replayOf(ps);
    expect(replay.round).toMatchObject({
      simulator: 'payment-switch',
      scenario: 'sale-surge',
      seed: 11,
      state: 'finished',
      minute: 30,
    });
    expect(replay.teams).toHaveLength(3);
    for (const t of replay.teams) {
      const stored = (await server.app.store.snapshotsOfRound(ps.roundId, { teamId: t.teamId })).map((s) =>
        JSON.parse(s.data),
      );
      expect(fromColumns(t.columns)).toEqual(stored);
      expect(t.result!.goals.map((g) => g.id)).toEqual(['approval', 'authTime', 'cost']);
    }
    const t0 = replay.teams[0];
    // The roster: who played in the team, with the roles this simulator dealt them.
    expect(t0.members).toEqual([
      { playerId: expect.any(Number), name: 'Solo 1', roles: ['scaling', 'shedding', 'fraud', 'standin'] },
    ]);
    expect(replay.round.tempo).toBe(1);
    expect(t0.changes.map((c) => [c.minute, c.key, c.value, c.author.name])).toEqual([
      [3, 'servers', 10, 'Solo 1'],
      [3, 'shedding', true, 'Solo 1'],
    ]);
    const kinds = (t: (typeof replay.teams)[number]) =>
      t.chapters.map((c) => `${c.minute}:${c.kind}${c.goal ? `:${c.goal}` : ''}`);
    expect(kinds(t0)).toContain('5:sale-start');
    expect(kinds(t0)).toContain('8:servers-ready');
    // Team 2 added servers late, without shedding: the storm sets in and the approval goal is lost for good.
    const t1 = kinds(replay.teams[1]);
    expect(t1.some((k) => k.endsWith(':retry-storm'))).toBe(true);
    expect(t1.some((k) => k.endsWith(':goal-lost:approval'))).toBe(true);
    const wsReplay = await replayOf(ws);
    expect(wsReplay.teams[1].chapters.map((c) => c.kind)).toEqual(expect.arrayContaining(['deploy', 'page']));
    expect(wsReplay.teams[0].chapters.map((c) => c.kind)).toContain('rollback-done');
  });

  test('a fork at minute m equals the original up to m, and diverges after a different change', async () => {
    const m = 12;
    const origin = await replayOf(ps);
    const team = origin.teams[1];
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/rounds/${ps.roundId}/fork`,
      headers: auth(ps.key),
      payload: { teamId: team.teamId, minute: m },
    });
    expect(res.statusCode).toBe(201);
    const { code, roundId } = res.json();
    const fork = await server.app.rooms.get(code);
    expect(fork.round).toMatchObject({
      state: 'paused',
      minute: m,
      seed: 11,
      forkOf: { roundId: ps.roundId, teamId: team.teamId, minute: m },
    });
    const runOf = () => [...fork.round.teams.values()][0];
    const minutesOf = async () => (await fork.historyOf(runOf().teamId))!.snapshots;
    const original = fromColumns(team.columns);
    expect(await minutesOf()).toEqual(original.slice(0, m + 1));
    // A different decision: shedding on at once, instead of servers at minute 20.
    const me = (await joinStudent(server.app.rooms, code, 'Teacher')).player;
    await fork.dispatch({ type: 'control', playerId: me.id, key: 'shedding', value: true });
    await fork.dispatch({ type: 'clock', action: 'resume' });
    await advance(18_000);
    expect(fork.round.state).toBe('finished');
    const run = runOf();
    const played = await minutesOf();
    expect(played.at(m + 1)?.controls.shedding).toBe(true);
    expect(played.at(m + 1)?.indicators).not.toEqual(original[m + 1].indicators);
    expect(run.score).not.toBe(team.result?.score);
    // The fork is a round of its own, linked both ways, and replays exactly.
    const forkReplay = await replayOf({ key: ps.key, roundId });
    expect(forkReplay.origin).toMatchObject({ roundId: ps.roundId, teamId: team.teamId, minute: m });
    expect(fromColumns(forkReplay.teams[0].columns).slice(0, m + 1)).toEqual(original.slice(0, m + 1));
    expect((await replayOf(ps)).forks).toEqual([{ roundId, roomCode: code, teamId: team.teamId, minute: m }]);
    expect((await verifyRounds(server.app.store)).every((r) => r.mismatches.length === 0)).toBe(true);
  });

  test('a fork played on with the original decisions is the original', async () => {
    const m = 10;
    const origin = await replayOf(ps);
    const team = origin.teams[0];
    const res = await server.app.inject({
      method: 'POST',
      url: `/api/rounds/${ps.roundId}/fork`,
      headers: auth(ps.key),
      payload: { teamId: team.teamId, minute: m },
    });
    const fork = await server.app.rooms.get(res.json().code);
    await fork.dispatch({ type: 'clock', action: 'resume' });
    await advance(20_000);
    const played = await fork.historyOf([...fork.round.teams.values()][0].teamId);
    expect(played?.snapshots).toEqual(fromColumns(team.columns));
  });

  test('forks are refused for minutes not played, teams not in the round and other teachers', async () => {
    const url = `/api/rounds/${ps.roundId}/fork`;
    const bad = [
      [{ teamId: ps.teams[0], minute: 31 }, 400, 'BAD_REQUEST'],
      [{ teamId: 99999, minute: 3 }, 404, 'TEAM_NOT_FOUND'],
      [{ teamId: ps.teams[0], minute: -1 }, 400, 'BAD_REQUEST'],
    ] as const;
    for (const [payload, status, code] of bad) {
      const r = await server.app.inject({ method: 'POST', url, headers: auth(ps.key), payload });
      expect(r.statusCode, JSON.stringify(payload)).toBe(status);
      expect(r.json().error.code).toBe(code);
    }
    const stranger = (await server.app.inject({ method: 'POST', url: '/api/rooms', payload: {} })).json().teacherKey;
    const r = await server.app.inject({
      method: 'POST',
      url,
      headers: auth(stranger),
      payload: { teamId: ps.teams[0], minute: 3 },
    });
    expect(r.statusCode).toBe(404);
    const noKey = await server.app.inject({ method: 'GET', url: `/api/rounds/${ps.roundId}/replay` });
    expect(noKey.statusCode).toBe(401);
    const other = await server.app.inject({
      method: 'GET',
      url: `/api/rounds/${ps.roundId}/replay`,
      headers: auth(stranger),
    });
    expect(other.statusCode).toBe(404);
  });

  test('CSV export: a header row naming each column with its unit and key, a row per team per minute', async () => {
    const get = async (part: string) => {
      const r = await server.app.inject({
        method: 'GET',
        url: `/api/rounds/${ps.roundId}/export/${part}.csv`,
        headers: auth(ps.key),
      });
      expect(r.statusCode).toBe(200);
      expect(r.headers['content-type']).toMatch(/^text\/csv/);
      expect(r.headers['content-disposition']).toMatch(/attachment; filename="opsroom-[A-Z0-9]{6}-round1-/);
      // A byte-order mark first, so that spreadsheets read UTF-8.
      expect(r.body.startsWith('\uFEFF')).toBe(true);
      return parseCsv(r.body.slice(1));
    };
    const model = models['payment-switch'];
    const minutes = await get('minutes');
    const controls = model.controls.filter((c) => c.kind !== 'action');
    expect(minutes).toHaveLength(1 + 3 * 31);
    expect(minutes[0]).toHaveLength(3 + model.indicators.length + controls.length);
    for (const row of minutes) expect(row).toHaveLength(minutes[0].length);
    expect(minutes[0].slice(0, 3)).toEqual(['Team id [team_id]', 'Team [team]', 'Minute [minute]']);
    expect(minutes[0]).toEqual(
      expect.arrayContaining([
        'Good-customer approval rate (%) [goodApproval]',
        'Authorization time (ms) [authTimeMs]',
        'Fraud rate (share of approved amount) (bp) [fraudRateBp]',
        'Server cost so far (u) [costSoFar]',
        'Servers in service [serversInService]',
        'New transactions (tx/s) [newTps]',
        'Servers [servers]',
        'Load shedding [shedding]',
        'Fraud-score threshold (σ) [fraudThreshold]',
      ]),
    );
    const col = (name: string) => minutes[0].indexOf(name);
    const team0 = minutes.slice(1).filter((r) => r[0] === String(ps.teams[0]));
    expect(team0.map((r) => Number(r[2]))).toEqual(Array.from({ length: 31 }, (_, i) => i));
    expect(team0[4][col('Servers [servers]')]).toBe('10');
    expect(team0[4][col('Load shedding [shedding]')]).toBe('on');
    expect(team0[4][col('Fraud-score threshold (σ) [fraudThreshold]')]).toMatch(/^\d\.\d$/);
    // Shares in %, rounded as the desk shows them (one decimal): 99.7, not 0.99734…
    const approval = team0[10][col('Good-customer approval rate (%) [goodApproval]')];
    expect(approval).toMatch(/^\d{1,3}\.\d$/);
    expect(Number(approval)).toBeGreaterThan(1);
    expect(Number(approval)).toBeLessThanOrEqual(100);
    // No exponent notation anywhere, however small a value.
    for (const row of minutes.slice(1)) for (const cell of row) expect(cell).not.toMatch(/^-?[\d.]+e[-+]?\d+$/i);

    const changes = await get('changes');
    expect(changes[0]).toEqual([
      'Team id [team_id]',
      'Team [team]',
      'Applied at minute [minute]',
      'Control [control]',
      'Value [value]',
      'Unit [unit]',
      'Role [role]',
      'Author [author]',
      'Made by [actor]',
      'Received at (UTC, ISO 8601) [received_at]',
    ]);
    expect(changes).toHaveLength(1 + 4);
    expect(changes[1].slice(2, 9)).toEqual(['3', 'Servers [servers]', '10', '', 'Scaling', 'Solo 1', 'student']);

    // Every student's seat: their own changes, and no minute on autopilot in a round nobody left.
    const seats = await get('seats');
    expect(seats[0]).toEqual([
      'Team id [team_id]',
      'Team [team]',
      'Student [student]',
      'Roles [roles]',
      'Changes made [changes]',
      'Changes by the autopilot [autopilot_changes]',
      'Minutes on autopilot [autopilot_minutes]',
      'Minutes played by the teacher [teacher_minutes]',
    ]);
    expect(seats.slice(1).map((r) => [r[2], r[6], r[7]])).toEqual(seats.slice(1).map((r) => [r[2], '0', '0']));

    const scores = await get('scores');
    expect(scores).toHaveLength(1 + 3);
    expect(scores[0].slice(0, 4)).toEqual([
      'Team id [team_id]',
      'Team [team]',
      'Score [score]',
      'Goals met [goals_met]',
    ]);
    expect(scores[0]).toContain('Average authorization time ≤ 500 ms: Value (ms) [authTime_value]');
    expect(scores[0]).toContain('Average authorization time ≤ 500 ms: Target ≤ (ms) [authTime_target]');
    expect(scores[0]).toContain('Average authorization time ≤ 500 ms: met [authTime_met]');
    expect(scores[0].at(-1)).toBe('Ended at minute [ended_at_minute]');
    // Played to its end: no minute it was ended at.
    expect(scores[1].at(-1)).toBe('');
    const stored = (await server.app.store.resultsOfRound(ps.roundId)).find((r) => r.teamId === ps.teams[0]);
    expect(Number(scores[1][2])).toBe(stored?.score);
    expect(scores[1][scores[0].indexOf('Average authorization time ≤ 500 ms: met [authTime_met]')]).toMatch(
      /^(yes|no)$/,
    );

    const wsMinutes = parseCsv(
      (
        await server.app.inject({
          method: 'GET',
          url: `/api/rounds/${ws.roundId}/export/minutes.csv`,
          headers: auth(ps.key),
        })
      ).body.slice(1),
    );
    expect(wsMinutes[0].slice(0, 4)).toEqual([
      'Team id [team_id]',
      'Team [team]',
      'Minute [minute]',
      'Time of day (HH:MM) [clock]',
    ]);
    expect(wsMinutes[1][3]).toBe('09:00');
    expect(wsMinutes[0]).toEqual(
      expect.arrayContaining([
        'p99 latency (ms) [p99Ms]',
        'Cost so far ($) [costSoFar]',
        'Cache TTL (s) [cacheTtlS]',
        'Target utilization (%) [targetUtilization]',
      ]),
    );
  });

  test('CSV in the class’s language: semicolons and decimal commas where the language writes 0,5', async () => {
    const get = async (part: string, lang: string) => {
      const r = await server.app.inject({
        method: 'GET',
        url: `/api/rounds/${ps.roundId}/export/${part}.csv?lang=${lang}`,
        headers: auth(ps.key),
      });
      expect(r.statusCode).toBe(200);
      return r.body.slice(1);
    };
    const en = parseCsv(await get('minutes', 'en'));
    const approval = en[0].indexOf('Good-customer approval rate (%) [goodApproval]');
    const row = en.findIndex((r) => /\.\d$/.test(r[approval] ?? '') && r !== en[0]);
    expect(row).toBeGreaterThan(0);
    for (const lang of ['it', 'hu', 'nl', 'id']) {
      const text = await get('minutes', lang);
      // A spreadsheet set to the language splits the header on semicolons: every column its own cell.
      const header = text.slice(0, text.indexOf('\r\n'));
      expect(header.split(';'), lang).toHaveLength(en[0].length);
      const rows = parseCsv(text, ';');
      expect(rows.map((r) => r.length)).toEqual(en.map((r) => r.length));
      // The same figures, with the language's decimal mark: "99.7" → "99,7"; integers and times as they were.
      expect(rows[row][approval], lang).toBe(en[row][approval].replace('.', ','));
      expect([rows[row][0], rows[row][2]]).toEqual([en[row][0], en[row][2]]);
      for (const r of rows.slice(1)) for (const cell of r) expect(cell, lang).not.toMatch(/^-?\d+\.\d+$/);
    }
    // Nepali writes a decimal point: commas, as in English.
    const ne = parseCsv(await get('scores', 'ne'));
    const enScores = parseCsv(await get('scores', 'en'));
    expect(ne[1].slice(2, 4)).toEqual(enScores[1].slice(2, 4));
    expect(ne[0]).toHaveLength(enScores[0].length);
    // Scores (plain numbers) follow the mark too.
    const itScores = parseCsv(await get('scores', 'it'), ';');
    expect(itScores[1][2]).toBe(enScores[1][2].replace('.', ','));
    expect(csvField(1400.5, { separator: ';', decimal: ',' })).toBe('1400,5');
    expect(csvField('a;b', { separator: ';', decimal: ',' })).toBe('"a;b"');
    expect(csvField('a,b', { separator: ';', decimal: ',' })).toBe('a,b');
  });

  test('team names cannot smuggle formulas into a spreadsheet; numbers stay numbers', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/rooms',
      headers: auth(ps.key),
      payload: { teamCount: 1, minutes: 5, tempo: 1 },
    });
    const room = await server.app.rooms.get(res.json().code);
    await room.dispatch({
      type: 'rename',
      teamId: room.view('teacher').teams[0].id,
      name: '=HYPERLINK("http://x","y")',
    });
    await room.dispatch({ type: 'clock', action: 'start' });
    await advance(5000);
    const r = await server.app.inject({
      method: 'GET',
      url: `/api/rounds/${room.round.id}/export/scores.csv`,
      headers: auth(ps.key),
    });
    const rows = parseCsv(r.body.slice(1));
    expect(rows[1][1]).toBe(`'=HYPERLINK("http://x","y")`);
    expect(csvField(-0.25)).toBe('-0.25');
    expect(csvField('-0.25')).toBe("'-0.25");
    expect(csvField('a,b')).toBe('"a,b"');
  });

  test("the teacher's history: every room and round, newest first, with scores", async () => {
    const r = await server.app.inject({ method: 'GET', url: '/api/teacher/rooms', headers: auth(ps.key) });
    const { rooms } = r.json();
    const codes = rooms.map((x: { code: string }) => x.code);
    expect(codes).toContain(ps.room.code);
    expect(codes).toContain(ws.room.code);
    const times = rooms.map((x: { createdAt: number }) => x.createdAt);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const round = rooms.find((x: { code: string }) => x.code === ps.room.code).rounds[0];
    expect(round).toMatchObject({
      id: ps.roundId,
      simulator: 'payment-switch',
      scenario: 'sale-surge',
      seed: 11,
      state: 'finished',
    });
    expect(round.teams.map((t: { score: number }) => typeof t.score)).toEqual(['number', 'number', 'number']);
    expect(
      (await server.app.inject({ method: 'GET', url: '/api/teacher/rooms', headers: auth('Q'.repeat(43)) })).statusCode,
    ).toBe(401);
  });
});

describe('npm run verify-replays', () => {
  const dir = mkdtempSync(join(tmpdir(), 'opsroom-verify-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('reports a stored minute that no longer matches its re-simulation', async () => {
    const dbPath = join(dir, 'v.db');
    const server = await startServer({ databasePath: dbPath });
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/rooms',
      payload: { scenario: 'fraud-wave', teamCount: 2, minutes: 8, tempo: 1 },
    });
    const room = await server.app.rooms.get(res.json().code);
    await room.dispatch({ type: 'clock', action: 'start' });
    server.clock.advance(8000);
    await server.app.rooms.settled();
    const roundId = room.round.id;
    const teamId = [...room.round.teams.keys()][1];
    await server.close();
    const run = () => {
      try {
        return {
          code: 0,
          out: execFileSync(process.execPath, ['--import', 'tsx', 'server/cli/verify-replays.ts', '--db', dbPath], {
            encoding: 'utf8',
          }),
        };
      } catch (e) {
        const err = e as { status: number; stdout: string };
        return { code: err.status, out: err.stdout };
      }
    };
    const clean = run();
    expect(clean.code).toBe(0);
    expect(clean.out).toMatch(/^ok {3}round \d+ .*2 teams × 9 minutes\): exact$/m);
    // Tamper with one stored minute.
    const { SqliteEngine } = await import('../../server/db/sqlite.ts');
    const sqlite = new SqliteEngine(dbPath).db;
    const row = sqlite
      .prepare('select data from snapshots where round_id = ? and team_id = ? and minute = 6')
      .get(roundId, teamId) as { data: string };
    const data = JSON.parse(row.data);
    data.indicators.goodApproval += 1e-9;
    sqlite
      .prepare('update snapshots set data = ? where round_id = ? and team_id = ? and minute = 6')
      .run(JSON.stringify(data), roundId, teamId);
    sqlite.close();
    const dirty = run();
    expect(dirty.code).toBe(1);
    expect(dirty.out).toContain(`DIFF round ${roundId}`);
    expect(dirty.out).toContain(`team ${teamId}: minutes 6`);
    expect(dirty.out).toMatch(/1 finished rounds re-simulated, 1 with differences/);
  });
});
