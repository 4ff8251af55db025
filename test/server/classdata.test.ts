// The class's data leaving Opsroom: the research package (valid against its own descriptor, re-simulated from the
// package alone, pseudonymous by default) and the gradebook (its rules, the Canvas, Moodle and plain layouts, the
// roster mapping).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { matchRoster, readRoster } from '../../shared/classroom/roster-csv.ts';
import { runRound } from '../../shared/sim/engine.ts';
import { getModel } from '../../shared/sim/registry.ts';
import type { ControlValue, ScheduledChange, SimulatorId } from '../../shared/sim/types.ts';
import { pseudonymiser, researchField } from '../../server/replay/research.ts';
import type { Room } from '../../server/rooms/room.ts';
import { advance, connect, createRoom, ok, startServer, type TestServer, turnsUntil } from './helpers.ts';
import { joinStudent } from './seats.ts';
import { csvRows, unzip, validatePackage } from './table-schema.ts';

const NAMES = ['Zsófia Kovács', 'Ana', 'Bao Tran', 'Dewi'];
const MINUTES = 20;

/** A CSV file of the package as objects by column name. */
function table(files: Map<string, Buffer>, path: string): Record<string, string>[] {
  const file = files.get(path);
  if (!file) throw new Error(`no ${path} in the package`);
  const [header, ...rows] = csvRows(file.toString('utf8'));
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
}

describe('research package and gradebook of a played class', () => {
  let server: TestServer;
  let room: Room;
  let code: string;
  let key: string;
  let roundId: number;
  const ids: number[] = [];
  const auth = (k: string) => ({ authorization: `Bearer ${k}` });
  const get = (url: string, k = key) => server.app.inject({ method: 'GET', url, headers: auth(k) });

  /** A value of the control other than `now`, within its range. */
  function another(sim: SimulatorId, control: string, now: ControlValue): ControlValue {
    const def = getModel(sim).controls.find((c) => c.key === control);
    if (!def || def.kind === 'action') throw new Error(`${control} has no value`);
    if (def.kind === 'bool') return !now;
    if (def.kind === 'enum') return def.options.find((o) => o !== now) ?? def.default;
    const up = Number(now) + 2 * def.step;
    return up <= def.max ? up : Number(now) - 2 * def.step;
  }

  beforeAll(async () => {
    server = await startServer();
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/rooms',
      payload: {
        simulator: 'payment-switch',
        scenario: 'sale-surge',
        teamCount: 2,
        minutes: MINUTES,
        tempo: 1,
        seed: 7,
      },
    });
    ({ code, teacherKey: key } = res.json());
    room = await server.app.rooms.get(code);
    for (const n of NAMES) ids.push((await joinStudent(server.app.rooms, code, n)).player.id);
    await room.dispatch({ type: 'clock', action: 'start' });
    roundId = room.round.id;
    for (let m = 1; m <= MINUTES; m++) {
      // While minute m − 1 is shown: every student changes one of their controls every third minute.
      if (m % 3 === 0)
        for (const id of ids) {
          const p = room.player(id);
          const role = getModel('payment-switch').roles.find((r) => p?.roles.includes(r.id));
          const control = role?.controls.find(
            (c) => getModel('payment-switch').controls.find((d) => d.key === c)?.kind !== 'action',
          );
          if (!p || !control || p.pilot) continue;
          const team = room.round.teams.get(p.teamId ?? -1);
          const now = team?.snapshot.controls[control];
          if (now === undefined) continue;
          await room.dispatch({
            type: 'control',
            playerId: id,
            key: control,
            value: another('payment-switch', control, now),
          });
        }
      // Ana steps out while minute 3 is shown and takes her seat back while minute 8 is.
      if (m === 4)
        await room.dispatch({
          type: 'pilot',
          playerId: ids[1],
          pilot: { kind: 'autopilot', skill: 'careful', reason: 'self' },
          by: 'student',
        });
      if (m === 9) await room.dispatch({ type: 'pilot', playerId: ids[1], pilot: null, by: 'student' });
      if (m === 5)
        await room.dispatch({ type: 'message', teamId: null, text: 'Ana and zsófia kovács: watch the sale. Banana.' });
      await advance(server, 1000);
    }
    expect(room.round.state).toBe('finished');
  });
  afterAll(() => server.close());

  describe('research package', () => {
    let files: Map<string, Buffer>;
    beforeAll(async () => {
      const res = await get(`/api/rounds/${roundId}/research.zip`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/zip');
      files = unzip(res.rawPayload);
    });

    test('validates against its own descriptor, every resource described', () => {
      expect(validatePackage(files)).toEqual([]);
      const dp = JSON.parse(files.get('datapackage.json')?.toString('utf8') ?? '{}');
      const paths = dp.resources.map((r: { path: string }) => r.path).sort();
      expect(paths).toEqual([...files.keys()].filter((f) => f !== 'datapackage.json').sort());
      expect(paths).toEqual(
        expect.arrayContaining([
          'participants.csv',
          'events.csv',
          'minutes-payment-switch.csv',
          'goals.csv',
          'ledger-payment-switch.csv',
          'messages.csv',
          'rounds.csv',
          'scenarios/payment-switch.sale-surge.json',
        ]),
      );
    });

    test('the checker finds what breaks a package', () => {
      const broken = new Map(files);
      const events = broken.get('events.csv')?.toString('utf8') ?? '';
      const lines = events.split('\r\n');
      // A text where an integer goes, a row one cell short, a repeated primary key.
      lines[1] = lines[1].replace(/^(\d+),(\d+),/, '$1,x,');
      lines[2] = lines[2].replace(/,[^,]*$/, '');
      lines.push(lines[3]);
      broken.set('events.csv', Buffer.from(lines.join('\r\n')));
      broken.delete('goals.csv');
      const problems = validatePackage(broken).join('\n');
      expect(problems).toContain('seq = "x" is not an integer');
      expect(problems).toContain('cells for');
      expect(problems).toContain('primary key round_id,seq repeated');
      expect(problems).toContain('no file goals.csv');
    });

    test('a round re-simulates from the package alone and matches every recorded minute exactly', () => {
      const [round] = table(files, 'rounds.csv');
      const sim = round.simulator as SimulatorId;
      const model = getModel(sim);
      const scenario = JSON.parse(files.get(round.scenario_path)?.toString('utf8') ?? '{}');
      // The scenario as played is the one the model re-simulates with.
      expect(scenario).toEqual(JSON.parse(JSON.stringify(model.scenarios.find((s) => s.id === round.scenario))));
      const events = table(files, 'events.csv');
      const minutes = table(files, `minutes-${sim}.csv`);
      const teams = [...new Set(minutes.map((m) => m.team_id))];
      expect(teams.length).toBe(2);
      expect(events.length).toBeGreaterThan(8);
      let compared = 0;
      for (const team of teams) {
        const changes: ScheduledChange[] = events
          .filter((e) => e.team_id === team)
          .sort((a, b) => Number(a.seq) - Number(b.seq))
          .map((e) => {
            const def = model.controls.find((c) => c.key === e.control);
            const value =
              def?.kind === 'number'
                ? Number(e.new_value)
                : def?.kind === 'bool'
                  ? e.new_value === 'true'
                  : e.new_value;
            return { minute: Number(e.minute), key: e.control, value };
          });
        const { snapshots } = runRound(model, {
          scenario: round.scenario,
          seed: Number(round.seed),
          noise: round.noise === 'true',
          minutes: Number(round.last_minute),
          changes,
        });
        const recorded = minutes.filter((m) => m.team_id === team);
        expect(recorded.length).toBe(snapshots.length);
        for (const row of recorded) {
          const s = snapshots[Number(row.minute)];
          for (const i of model.indicators) {
            expect(row[i.key], `team ${team} minute ${row.minute} ${i.key}`).toBe(researchField(s.indicators[i.key]));
            compared++;
          }
          for (const c of model.controls.filter((x) => x.kind !== 'action'))
            expect(row[`control_${c.key}`]).toBe(String(s.controls[c.key]));
        }
      }
      expect(compared).toBe(2 * (MINUTES + 1) * model.indicators.length);
    });

    test('events: actors, old → new values, and the decision latency since the last shock shown', () => {
      const events = table(files, 'events.csv');
      const minutes = table(files, 'minutes-payment-switch.csv');
      expect(new Set(events.map((e) => e.actor_type))).toEqual(new Set(['student', 'autopilot']));
      // The autopilot played Ana's seat (P02) while she stepped out, with its policy and why.
      for (const e of events.filter((x) => x.actor_type === 'autopilot')) {
        expect([e.participant, e.autopilot_skill, e.autopilot_reason]).toEqual(['P02', 'careful', 'self']);
        expect(Number(e.minute)).toBeGreaterThanOrEqual(4);
        expect(Number(e.minute)).toBeLessThan(9);
      }
      for (const e of events) {
        const shown = Number(e.shown_minute);
        expect(shown).toBe(Number(e.minute) - 1);
        const before = minutes.find((m) => m.team_id === e.team_id && Number(m.minute) === shown);
        expect(e.old_value).toBe(before?.[`control_${e.control}`]);
        expect(e.new_value).not.toBe(e.old_value);
        const shocks = minutes.filter((m) => m.team_id === e.team_id && Number(m.minute) <= shown && m.events !== '');
        const last = shocks.at(-1);
        if (!last) {
          expect(e.last_shock_minute).toBe('');
          continue;
        }
        expect(e.last_shock_minute).toBe(last.minute);
        expect(last.events.split('; ')).toContain(e.last_shock_kind);
        expect(Number(e.latency_minutes)).toBe(shown - Number(last.minute));
        // Each change was made the moment its minute was shown, one real second a minute.
        expect(Number(e.latency_seconds)).toBe((Date.parse(e.received_at) - Date.parse(last.sent_at)) / 1000);
        expect(Number(e.latency_seconds)).toBe(Number(e.latency_minutes));
      }
      expect(events.some((e) => e.last_shock_kind === 'sale-start')).toBe(true);
      expect(events.some((e) => Number(e.latency_minutes) > 0)).toBe(true);
    });

    test('participants: roles over time, minutes on autopilot, their own changes', () => {
      const people = table(files, 'participants.csv');
      expect(people.map((p) => p.participant).sort()).toEqual(['P01', 'P02', 'P03', 'P04']);
      const ana = people.find((p) => p.participant === 'P02');
      expect(ana?.autopilot_minutes).toBe('5');
      expect(ana?.seat_minutes).toBe(String(MINUTES));
      expect(ana?.roles).toMatch(/^[a-z]+ 0–20/);
      const events = table(files, 'events.csv');
      for (const p of people)
        expect(Number(p.own_changes)).toBe(
          events.filter((e) => e.participant === p.participant && e.actor_type === 'student').length,
        );
    });

    test('pseudonymous by default: no student name anywhere; a named export has them', async () => {
      const text = [...files.values()].map((b) => b.toString('utf8')).join('\n');
      // A name as a whole word, in any case ("Ana" is not in "Banana").
      const word = (n: string) => new RegExp(`(?<![\\p{L}])${n}(?![\\p{L}])`, 'iu');
      for (const n of NAMES) expect(text).not.toMatch(word(n));
      expect(text).toMatch(word('Banana'));
      const msg = table(files, 'messages.csv')[0];
      expect(msg.text).toBe('P02 and P01: watch the sale. Banana.');
      expect(msg.shown_minute).toBe('4');
      const named = unzip((await get(`/api/rounds/${roundId}/research.zip?names=true`)).rawPayload);
      expect(validatePackage(named)).toEqual([]);
      const people = table(named, 'participants.csv');
      expect(people.map((p) => p.name).sort()).toEqual([...NAMES].sort());
      expect(table(named, 'events.csv').every((e) => e.name !== '')).toBe(true);
    });

    test("the room's package holds every round; only the room's teacher gets it", async () => {
      const res = await get(`/api/teacher/rooms/${code}/research.zip`);
      expect(res.statusCode).toBe(200);
      const all = unzip(res.rawPayload);
      expect(validatePackage(all)).toEqual([]);
      expect(table(all, 'rounds.csv').map((r) => r.round_id)).toEqual([String(roundId)]);
      const other = (await server.app.inject({ method: 'POST', url: '/api/rooms', payload: {} })).json().teacherKey;
      for (const url of [`/api/rounds/${roundId}/research.zip`, `/api/teacher/rooms/${code}/research.zip`]) {
        const refused = await get(url, other);
        expect(refused.statusCode).toBe(404);
        expect(refused.json().error.code).toMatch(/NOT_FOUND/);
        expect((await server.app.inject({ method: 'GET', url })).statusCode).toBe(401);
      }
    });

    test('the pseudonymiser replaces whole names in any case, longest first', () => {
      const scrub = pseudonymiser(
        new Map([
          ['Ana', 'P02'],
          ['Ana 2', 'P05'],
        ]),
      );
      expect(scrub('ana, Ana 2 and Banana')).toBe('P02, P05 and Banana');
    });
  });

  describe('gradebook', () => {
    const book = async (query: string) => {
      const res = await get(`/api/teacher/rooms/${code}/gradebook.csv?${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return csvRows(res.body.replace(/^\uFEFF/, '')).filter((r) => r.some((c) => c !== ''));
    };

    test('Canvas layout: its columns, the Points Possible row, a grade per student', async () => {
      const rows = await book('layout=canvas&rule=participation&points=10');
      expect(rows[0]).toEqual(['Student', 'ID', 'SIS User ID', 'SIS Login ID', 'Section', `Opsroom ${code}`]);
      expect(rows[1]).toEqual(['Points Possible', '', '', '', '', '10']);
      expect(
        rows
          .slice(2)
          .map((r) => r[0])
          .sort(),
      ).toEqual([...NAMES].sort());
      // Ana's seat was on autopilot for 5 of the 20 minutes.
      expect(rows.find((r) => r[0] === 'Ana')?.[5]).toBe('7.5');
      for (const n of NAMES.filter((x) => x !== 'Ana')) expect(rows.find((r) => r[0] === n)?.[5]).toBe('10');
    });

    test('Moodle layout: ID number and email to map from, the grade item', async () => {
      const rows = await book('layout=moodle&rule=rank&assignment=Crisis%20desk');
      expect(rows[0]).toEqual(['ID number', 'Email address', 'Full name', 'Crisis desk']);
      expect(rows).toHaveLength(1 + NAMES.length);
    });

    test('rules: score against the best team, rank, and a weighted mix', async () => {
      const plain = await book('layout=plain&rule=score');
      expect(plain[0]).toEqual([
        'name',
        'school_id',
        'email',
        'teams',
        'rounds_played',
        'acting_minutes',
        'round_minutes',
        'participation_pct',
        'score_pct',
        'rank_pct',
        'rule',
        'grade',
        'points_possible',
      ]);
      const col = (h: string) => plain[0].indexOf(h);
      const scores = room.round.teams;
      expect(scores.size).toBe(2);
      const results = await server.app.store.resultsOfRound(roundId);
      const best = Math.max(...results.map((r) => r.score ?? 0));
      const byTeam = new Map<string, number>();
      for (const r of plain.slice(1)) {
        const pct = Number(r[col('score_pct')]);
        byTeam.set(r[col('teams')], pct);
        expect(Number(r[col('grade')])).toBeCloseTo(pct, 1);
      }
      const pcts = [...byTeam.values()].sort((a, b) => b - a);
      expect(pcts[0]).toBe(100);
      const worst = Math.min(...results.map((r) => r.score ?? 0));
      expect(pcts[1]).toBeCloseTo(best > 0 ? Math.max(0, (worst / best) * 100) : 0, 1);
      const rank = await book('layout=plain&rule=rank');
      expect(
        rank
          .slice(1)
          .map((r) => Number(r[col('grade')]))
          .sort((a, b) => a - b),
      ).toEqual(pcts[0] === pcts[1] ? [100, 100, 100, 100] : [0, 0, 100, 100]);
      const mix = await book('layout=plain&rule=mix&wp=1&ws=0&wr=1');
      for (const r of mix.slice(1)) {
        const expected = (Number(r[col('participation_pct')]) + Number(r[col('rank_pct')])) / 2;
        expect(Number(r[col('grade')])).toBeCloseTo(expected, 1);
      }
      const bad = await get(`/api/teacher/rooms/${code}/gradebook.csv?rule=mix&wp=0&ws=0&wr=0`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.code).toBe('BAD_REQUEST');
    });

    test('roster mapping: stored per room, checked, and used by the layouts', async () => {
      const put = (entries: object[], k = key) =>
        server.app.inject({
          method: 'PUT',
          url: `/api/teacher/rooms/${code}/roster`,
          headers: auth(k),
          payload: { entries },
        });
      const ok = await put([
        { playerId: ids[0], schoolId: ' S-1001 ', email: 'zsofia@school.example' },
        { playerId: ids[1], schoolId: 'S-1002', email: '' },
      ]);
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.json().mapped).toBe(2);
      // A student of no room of this teacher, and one id for two students: refused, nothing changed.
      for (const wrong of [
        [{ playerId: 999999, schoolId: 'S-1', email: '' }],
        [
          { playerId: ids[2], schoolId: 'S-9', email: '' },
          { playerId: ids[3], schoolId: 'S-9', email: '' },
        ],
      ]) {
        const res = await put(wrong);
        expect(res.statusCode).toBe(400);
        expect(res.json().error.code).toBe('BAD_REQUEST');
      }
      const other = (await server.app.inject({ method: 'POST', url: '/api/rooms', payload: {} })).json().teacherKey;
      expect((await put([], other)).statusCode).toBe(404);
      const view = (await get(`/api/teacher/rooms/${code}/roster`)).json();
      expect(
        view.students.filter((s: { schoolId: string }) => s.schoolId).map((s: { schoolId: string }) => s.schoolId),
      ).toEqual(['S-1001', 'S-1002']);
      const canvas = await book('layout=canvas');
      expect(canvas.find((r) => r[0] === 'Zsófia Kovács')?.slice(1, 4)).toEqual([
        '',
        'S-1001',
        'zsofia@school.example',
      ]);
      const moodle = await book('layout=moodle');
      expect(moodle.find((r) => r[2] === 'Ana')?.slice(0, 2)).toEqual(['S-1002', '']);
    });

    test("a roster CSV from the school's gradebook is read and matched by name", () => {
      const canvasExport = [
        'Student,ID,SIS User ID,SIS Login ID,Section,Quiz 1',
        'Points Possible,,,,,10',
        '"Kovács, Zsófia",17,S-1001,zsofia,7A,9',
        'Tran Bao,18,S-1003,bao,7A,8',
        '"Ana",19,S-1002,ana,7A,7',
      ].join('\r\n');
      const rows = readRoster(canvasExport);
      expect(rows).toEqual([
        { name: 'Kovács, Zsófia', schoolId: 'S-1001', email: '' },
        { name: 'Tran Bao', schoolId: 'S-1003', email: '' },
        { name: 'Ana', schoolId: 'S-1002', email: '' },
      ]);
      const students = NAMES.map((name, i) => ({ playerId: i + 1, name }));
      const m = matchRoster(rows, students);
      expect(m.matched.map((x) => [x.student.name, x.row.schoolId])).toEqual([
        ['Zsófia Kovács', 'S-1001'],
        ['Ana', 'S-1002'],
      ]);
      expect(m.rows.map((r) => r.name)).toEqual(['Tran Bao']);
      expect(m.students.map((s) => s.name)).toEqual(['Bao Tran', 'Dewi']);
      const moodle = readRoster('\uFEFFFirst name;Last name;ID number;Email address\nDewi;;D-7;dewi@school.example\n');
      expect(matchRoster(moodle, students).matched[0]).toEqual({
        student: { playerId: 4, name: 'Dewi' },
        row: { name: 'Dewi', schoolId: 'D-7', email: 'dewi@school.example' },
      });
      expect(() => readRoster('colour,size\nred,4\n')).toThrow(/no name column/);
    });
  });
});

test('a large round’s research package is built in slices: the event loop turns at least once per team', async () => {
  const server = await startServer();
  try {
    const { code, teacherKey } = await createRoom(server, { teamCount: 30, minutes: 60, tempo: 1 });
    const teacher = await connect(server);
    await ok(teacher, 'teacher:join', { code, key: teacherKey });
    const started = await ok(teacher, 'teacher:clock', { action: 'start' });
    for (let m = 0; m < 60; m++) await advance(server, 1000);
    const { value: res, turns } = await turnsUntil(
      server.app.inject({
        method: 'GET',
        url: `/api/rounds/${started.room.round.id}/research.zip`,
        headers: { authorization: `Bearer ${teacherKey}` },
      }),
    );
    expect(res.statusCode).toBe(200);
    // Built in one go, the request would finish within a few turns: here at least one per team.
    expect(turns).toBeGreaterThanOrEqual(30);
    const files = unzip(res.rawPayload);
    expect(validatePackage(files)).toEqual([]);
    expect(
      csvRows(files.get('minutes-payment-switch.csv')?.toString('utf8') ?? '').filter((r) => r.length > 1),
    ).toHaveLength(1 + 30 * 61);
  } finally {
    await server.close();
  }
});
