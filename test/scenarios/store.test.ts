// A teacher's own scenarios over HTTP (app.inject): saved, listed with the built-ins, read, saved again as a new
// version, exported, shared by a link another teacher opens, deleted — and every bad or hostile body refused in the
// one error shape with nothing stored.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { SCENARIOS_PER_TEACHER } from '../../server/http/teacher-scenarios.ts';
import { ManualClock } from '../../server/lib/clock.ts';
import { sqliteOf } from '../server/helpers.ts';

const EXAMPLE = readFileSync(new URL('../../docs/scenarios/late-sale.json', import.meta.url), 'utf8');
const clock = new ManualClock(Date.UTC(2026, 11, 7, 9));
let app: Awaited<ReturnType<typeof buildApp>>;
let key: string;
let other: string;

const newTeacher = async () => {
  const res = await app.inject({ method: 'POST', url: '/api/rooms', payload: {} });
  return res.json().teacherKey as string;
};
beforeAll(async () => {
  app = await buildApp({ databasePath: ':memory:', webRoot: null, clock });
  key = await newTeacher();
  other = await newTeacher();
});
afterAll(() => app.close());

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: string, who = key) =>
  app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${who}`,
      ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(payload !== undefined ? { payload } : {}),
  });
const fileWith = (edit: (f: any) => void) => {
  const f = JSON.parse(EXAMPLE);
  edit(f);
  return JSON.stringify(f);
};
/** Everything the scenario tables hold, to show a refusal stored nothing. */
const tables = () => {
  const db = sqliteOf({ app } as never);
  return {
    scenarios: db.prepare('SELECT * FROM scenarios ORDER BY teacher_id, scenario_id').all(),
    contents: db.prepare('SELECT hash FROM scenario_contents ORDER BY hash').all(),
  };
};

describe('a teacher saves, reads, edits, exports, shares and deletes a scenario', () => {
  test('the list: the built-ins new rooms offer, then mine, newest first', async () => {
    const before = await call('GET', '/api/teacher/scenarios');
    expect(before.statusCode).toBe(200);
    const builtIns = before.json().scenarios;
    expect(builtIns.every((s: any) => s.source === 'builtin')).toBe(true);
    expect(builtIns.map((s: any) => `${s.simulator}/${s.id}`)).toContain('payment-switch/sale-surge');
    // Titles are the English briefs' names.
    expect(builtIns.find((s: any) => s.id === 'sale-surge').title).toMatch(/Sale-peak surge/);

    const saved = await call('POST', '/api/teacher/scenarios', EXAMPLE);
    expect(saved.statusCode).toBe(201);
    expect(saved.json()).toEqual({ id: 'late-sale', version: 1, findings: [] });
    clock.advance(1000);
    const second = fileWith((f) => {
      f.id = 'late-sale-2';
    });
    expect((await call('POST', '/api/teacher/scenarios', second)).statusCode).toBe(201);

    const list = (await call('GET', '/api/teacher/scenarios')).json().scenarios;
    expect(list.slice(0, builtIns.length)).toEqual(builtIns);
    expect(list.slice(builtIns.length)).toEqual([
      {
        id: 'late-sale-2',
        simulator: 'payment-switch',
        title: JSON.parse(EXAMPLE).briefs.en.name,
        source: 'mine',
        version: 1,
        updatedAt: clock.now(),
      },
      {
        id: 'late-sale',
        simulator: 'payment-switch',
        title: JSON.parse(EXAMPLE).briefs.en.name,
        source: 'mine',
        version: 1,
        updatedAt: clock.now() - 1000,
      },
    ]);
    // Another teacher sees only the built-ins.
    expect((await call('GET', '/api/teacher/scenarios', undefined, other)).json().scenarios).toEqual(builtIns);
  });

  test('read, saved again (a new version; the same content is the same version), exported', async () => {
    const read = await call('GET', '/api/teacher/scenarios/late-sale');
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({ id: 'late-sale', source: 'mine', version: 1, file: JSON.parse(EXAMPLE) });

    const edited = fileWith((f) => {
      f.goals[0].target = 0.9;
    });
    const contents = tables().contents.length;
    const put = await call('PUT', '/api/teacher/scenarios/late-sale', edited);
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({ id: 'late-sale', version: 2, findings: [] });
    expect((await call('PUT', '/api/teacher/scenarios/late-sale', edited)).json().version).toBe(2);
    expect((await call('GET', '/api/teacher/scenarios/late-sale')).json().file.goals[0].target).toBe(0.9);

    const exported = await call('GET', '/api/teacher/scenarios/late-sale/export');
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-disposition']).toBe('attachment; filename="late-sale.opsroom-scenario.json"');
    expect(JSON.parse(exported.body)).toEqual(JSON.parse(edited));
    // Version 1's content was played by no round: it is dropped with the save (version 2's is added).
    expect(tables().contents).toHaveLength(contents);
  });

  test('a built-in is read as the file to duplicate; another teacher cannot read mine', async () => {
    const b = await call('GET', '/api/teacher/scenarios/sale-surge');
    expect(b.statusCode).toBe(200);
    expect(b.json().source).toBe('builtin');
    expect(b.json().file.id).toBe('sale-surge');
    const free = await call('GET', '/api/teacher/scenarios/free?simulator=web-service');
    expect(free.json().file.simulator).toBe('web-service');
    for (const [method, url] of [
      ['GET', '/api/teacher/scenarios/late-sale'],
      ['GET', '/api/teacher/scenarios/late-sale/export'],
      ['DELETE', '/api/teacher/scenarios/late-sale'],
      ['POST', '/api/teacher/scenarios/late-sale/share'],
    ] as const) {
      const res = await call(method, url, undefined, other);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error.code).toBe('NOT_FOUND');
    }
    const put = await call('PUT', '/api/teacher/scenarios/late-sale', EXAMPLE, other);
    expect(put.statusCode).toBe(404);
    expect((await call('GET', '/api/teacher/scenarios/late-sale')).json().version).toBe(2);
  });

  test('shared by a stable link that any teacher opens, and copies under a new id', async () => {
    const shared = await call('POST', '/api/teacher/scenarios/late-sale/share');
    expect(shared.statusCode).toBe(200);
    const { token, url } = shared.json();
    expect(url).toBe(`/teacher/scenarios?import=${token}`);
    expect((await call('POST', '/api/teacher/scenarios/late-sale/share')).json().token).toBe(token);
    expect((await call('GET', '/api/teacher/scenarios/late-sale')).json().shareToken).toBe(token);

    const opened = await call('GET', `/api/teacher/scenarios/shared/${token}`, undefined, other);
    expect(opened.statusCode).toBe(200);
    expect(opened.json()).toMatchObject({ id: 'late-sale', simulator: 'payment-switch' });
    expect(opened.json().file.goals[0].target).toBe(0.9);
    const copy = await call('POST', '/api/teacher/scenarios', JSON.stringify(opened.json().file), other);
    expect(copy.statusCode).toBe(201);
    // The copy is the other teacher's own: editing it leaves the original as it was.
    const theirs = fileWith((f) => {
      f.goals[0].target = 0.5;
    });
    expect((await call('PUT', '/api/teacher/scenarios/late-sale', theirs, other)).json().version).toBe(2);
    expect((await call('GET', '/api/teacher/scenarios/late-sale')).json().file.goals[0].target).toBe(0.9);

    const none = await call('GET', '/api/teacher/scenarios/shared/AAAAAAAAAAAAAAAAAAAAAAAA');
    expect(none.statusCode).toBe(404);
    expect((await app.inject({ url: `/api/teacher/scenarios/shared/${token}` })).statusCode).toBe(401);
  });

  test('deleted: gone from the list and from the share link', async () => {
    const { token } = (await call('POST', '/api/teacher/scenarios/late-sale/share')).json();
    const del = await call('DELETE', '/api/teacher/scenarios/late-sale');
    expect(del.statusCode).toBe(204);
    expect((await call('GET', '/api/teacher/scenarios/late-sale')).statusCode).toBe(404);
    expect((await call('GET', `/api/teacher/scenarios/shared/${token}`)).statusCode).toBe(404);
    expect((await call('DELETE', '/api/teacher/scenarios/late-sale')).statusCode).toBe(404);
    const mine = (await call('GET', '/api/teacher/scenarios')).json().scenarios.filter((s: any) => s.source === 'mine');
    expect(mine.map((s: any) => s.id)).toEqual(['late-sale-2']);
  });
});

describe('bad input: a clear error, nothing stored', () => {
  const hostile: [string, () => string, number, string, string?][] = [
    ['malformed JSON', () => '{"schemaVersion": 1,', 400, 'not JSON'],
    ['a huge file', () => fileWith((f) => (f.briefs.en.brief = 'x'.repeat(300_000))), 413, ''],
    ['nested too deep', () => `${'['.repeat(5000)}${']'.repeat(5000)}`, 400, 'levels deep'],
    ['an unknown key', () => fileWith((f) => (f.extra = 1)), 400, 'unknown field extra'],
    ['NaN', () => EXAMPLE.replace('"target": 0.88', '"target": NaN'), 400, 'not JSON'],
    [
      '10,000 shocks',
      () => fileWith((f) => (f.shocks.episodes = Array.from({ length: 10_000 }, () => f.shocks.episodes[0]))),
      413,
      '',
    ],
    [
      'more shocks than a scenario has',
      () => fileWith((f) => (f.shocks.episodes = Array.from({ length: 41 }, () => f.shocks.episodes[0]))),
      400,
      'shocks.episodes',
      'shocks.episodes',
    ],
    [
      'script in a brief',
      () => fileWith((f) => (f.briefs.en.brief = 'Read <script>alert(1)</script> now')),
      400,
      'plain text',
      'briefs.en.brief',
    ],
    ['the id of a built-in', () => fileWith((f) => (f.id = 'sale-surge')), 400, 'built-in', 'id'],
    ['the id of the other model’s built-in', () => fileWith((f) => (f.id = 'bad-deploy')), 400, 'built-in', 'id'],
    ['an error of meaning', () => fileWith((f) => (f.goals[0].indicator = 'nothing')), 400, 'no indicator'],
    ['not JSON at all', () => 'hello', 400, 'not JSON'],
  ];
  test.each(hostile)('%s', async (_, body, status, words, field) => {
    const before = tables();
    const res = await call('POST', '/api/teacher/scenarios', body());
    expect(res.statusCode).toBe(status);
    const json = res.json();
    expect(Object.keys(json)).toEqual(['error']);
    expect(json.error.message).toContain(words);
    if (field) expect(json.error.key).toBe(field);
    expect(tables()).toEqual(before);
    // The same on a save of an existing scenario: its version stays.
    const put = await call('PUT', '/api/teacher/scenarios/late-sale-2', body());
    expect(put.statusCode).toBe(status);
    expect(tables()).toEqual(before);
  });

  test('a PUT whose body id differs, of another model, of an id not mine; a POST of an id I have', async () => {
    const before = tables();
    const differs = await call('PUT', '/api/teacher/scenarios/late-sale-2', EXAMPLE);
    expect(differs.statusCode).toBe(400);
    expect(differs.json().error.key).toBe('id');
    const missing = await call('PUT', '/api/teacher/scenarios/late-sale', EXAMPLE);
    expect(missing.statusCode).toBe(404);
    const again = await call(
      'POST',
      '/api/teacher/scenarios',
      fileWith((f) => (f.id = 'late-sale-2')),
    );
    expect(again.statusCode).toBe(409);
    expect(again.json().error.key).toBe('id');
    const noKey = await app.inject({
      method: 'POST',
      url: '/api/teacher/scenarios',
      headers: { 'content-type': 'application/json' },
      payload: EXAMPLE,
    });
    expect(noKey.statusCode).toBe(401);
    const badKey = await call('POST', '/api/teacher/scenarios', EXAMPLE, 'x'.repeat(43));
    expect(badKey.statusCode).toBe(401);
    const badId = await call('GET', '/api/teacher/scenarios/..%2Fetc');
    expect(badId.statusCode).toBe(400);
    expect(tables()).toEqual(before);
  });

  test('two saves of one version at once: one is version 2, the other is refused and stores nothing', async () => {
    const base = (await call('GET', '/api/teacher/scenarios/late-sale-2')).json().version;
    const edits = [0.7, 0.8].map((t) =>
      fileWith((f) => {
        f.id = 'late-sale-2';
        f.goals[0].target = t;
      }),
    );
    const answers = await Promise.all(edits.map((e) => call('PUT', '/api/teacher/scenarios/late-sale-2', e)));
    const statuses = answers.map((r) => r.statusCode);
    expect([...statuses].sort()).toEqual([200, 409]);
    const won = statuses.indexOf(200);
    expect(answers[won].json().version).toBe(base + 1);
    expect(answers[1 - won].json().error.key).toBe('id');
    const now = (await call('GET', '/api/teacher/scenarios/late-sale-2')).json();
    expect(now.version).toBe(base + 1);
    expect(now.file.goals[0].target).toBe([0.7, 0.8][won]);
  });

  test('a teacher keeps up to 200 scenarios: the next is refused, nothing stored', async () => {
    const third = await newTeacher();
    const teacherId = await app.rooms.teacherId(third);
    const { hash } = app.rooms.peek((await app.store.roomsOfTeacher(teacherId))[0].code)!.round.content!;
    // Stored directly (the saves' rate limit would take minutes): 200 scenarios at one content.
    await app.store.commit([
      Array.from({ length: SCENARIOS_PER_TEACHER }, (_, i) => ({
        op: 'insertScenario' as const,
        scenario: { teacherId, id: `s${i}`, simulator: 'payment-switch' as const, title: 't', hash, createdAt: 0 },
      })),
    ]);
    const before = tables();
    const res = await call('POST', '/api/teacher/scenarios', EXAMPLE, third);
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('STORAGE_QUOTA');
    expect(tables()).toEqual(before);
    expect((await call('POST', '/api/teacher/scenarios', EXAMPLE)).statusCode).toBe(201);
  });

  test('a brief is stored and given back as the text it is, never as markup', async () => {
    const body = fileWith((f) => {
      f.id = 'quotes';
      f.briefs.en.brief = 'Keep 5 < 7 & "latency" low';
    });
    expect((await call('POST', '/api/teacher/scenarios', body)).statusCode).toBe(201);
    const read = await call('GET', '/api/teacher/scenarios/quotes');
    expect(read.headers['content-type']).toContain('application/json');
    expect(read.json().file.briefs.en.brief).toBe('Keep 5 < 7 & "latency" low');
  });
});
