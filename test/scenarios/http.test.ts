// Scenario files over HTTP (app.inject): the published schema at its stable address, and the check of a file —
// findings for a good one, the one error shape naming the field for a bad or hostile one.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../server/app.ts';
import { ManualClock } from '../../server/lib/clock.ts';
import { scenarioJsonSchema } from '../../shared/scenarios/format.ts';

const EXAMPLE = readFileSync(new URL('../../docs/scenarios/late-sale.json', import.meta.url), 'utf8');
let app: Awaited<ReturnType<typeof buildApp>>;
beforeAll(async () => {
  app = await buildApp({ databasePath: ':memory:', webRoot: null, clock: new ManualClock() });
});
afterAll(() => app.close());

const check = (payload: string) =>
  app.inject({ method: 'POST', url: '/api/scenarios/check', headers: { 'content-type': 'application/json' }, payload });

test('the JSON Schema is served at the address a file names', async () => {
  const res = await app.inject({ url: JSON.parse(EXAMPLE).$schema });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('application/schema+json; charset=utf-8');
  expect(res.json()).toEqual(scenarioJsonSchema());
});

describe('POST /api/scenarios/check', () => {
  test('a good file: its findings (none for the example, a warning for a window on a final goal)', async () => {
    const res = await check(EXAMPLE);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: 'late-sale', simulator: 'payment-switch', ok: true, findings: [] });
    const f = JSON.parse(EXAMPLE);
    f.goals[2].from = 5;
    const warned = await check(JSON.stringify(f));
    expect(warned.json().ok).toBe(true);
    expect(warned.json().findings).toEqual([
      {
        level: 'warning',
        path: 'goals[2].from',
        message: 'a window only matters to a mean: a final goal reads the last minute',
      },
    ]);
  });

  test.each([
    ['an unknown field', (f: any) => (f.extra = 1), 'extra', 'scenario file: unknown field extra'],
    ['script in a brief', (f: any) => (f.briefs.en.brief = '<script>x</script>'), 'briefs.en.brief', 'is plain text'],
  ])('%s: 400 in the one error shape, naming the field', async (_, edit, key, words) => {
    const f = JSON.parse(EXAMPLE);
    edit(f);
    const res = await check(JSON.stringify(f));
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error.code).toBe('BAD_REQUEST');
    expect(body.error.message).toContain(words);
    if (key !== 'extra') expect(body.error.key).toBe(key);
  });

  test('an error of meaning is a finding, and the file is not ok', async () => {
    const f = JSON.parse(EXAMPLE);
    f.controls.servers = 99;
    const res = await check(JSON.stringify(f));
    expect(res.statusCode).toBe(200);
    expect(res.json().ok).toBe(false);
    expect(res.json().findings).toEqual([
      {
        level: 'error',
        path: 'controls.servers',
        message: 'servers: 99 is out of range; allowed 2–24 step 1 (count)',
      },
    ]);
  });

  test('hostile bodies: too big, too deep, not JSON, a prototype key', async () => {
    const big = await check(JSON.stringify({ pad: 'x'.repeat(300_000) }));
    expect(big.statusCode).toBe(413);
    expect(big.json().error).toBeDefined();
    const deep = await check(`${'['.repeat(50_000)}${']'.repeat(50_000)}`);
    expect(deep.statusCode).toBe(400);
    expect(deep.json().error.message).toBe('scenario file: the file nests 50000 levels deep; at most 12');
    const broken = await check('{"schemaVersion": 1,');
    expect(broken.statusCode).toBe(400);
    expect(broken.json().error.message).toMatch(/^scenario file: not JSON: /);
    const proto = await check(EXAMPLE.replace('"schemaVersion": 1,', '"schemaVersion": 1, "__proto__": {"x": 1},'));
    expect(proto.statusCode).toBe(400);
    expect(proto.json().error.message).toContain('unknown field __proto__');
  });
});
