// A scenario file's checks at their three depths, hostile files, and an authored scenario played by the engine.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { acceptScenario, checkScenario } from '../../shared/scenarios/check.ts';
import { LIMITS } from '../../shared/scenarios/format.ts';
import { ScenarioFileError, loadScenarioText } from '../../shared/scenarios/load.ts';
import { withScenario } from '../../shared/scenarios/model.ts';
import { checkTeaching } from '../../shared/scenarios/teaching.ts';
import { runRound } from '../../shared/sim/engine.ts';
import { getModel } from '../../shared/sim/registry.ts';

const EXAMPLE = readFileSync(new URL('../../docs/scenarios/late-sale.json', import.meta.url), 'utf8');
const example = (): Record<string, any> => JSON.parse(EXAMPLE);

/** The issues of a refused file, as `path: message` lines. */
function refusal(input: unknown): string[] {
  try {
    acceptScenario(input);
  } catch (e) {
    if (e instanceof ScenarioFileError) return e.issues.map((i) => `${i.path}: ${i.message}`);
    throw e;
  }
  throw new Error('the file was accepted');
}

test('the documented example passes both depths without a finding', () => {
  const { file, def, findings } = checkScenario(EXAMPLE);
  expect(findings).toEqual([]);
  expect(file.briefs.it?.name).toBe('Saldi tardivi');
  expect(def.minutes).toBe(45);
  expect(def.shocks?.episodes).toHaveLength(4);
});

test('a goal over the worst stretch of minutes is read as the engine scores it', () => {
  const f = example();
  f.goals[1] = { ...f.goals[1], aggregate: 'worst', stretch: 8 };
  const { def } = checkScenario(JSON.stringify(f));
  expect(def.goals[1]).toMatchObject({ aggregate: 'worst', stretch: 8 });
  f.goals[1].stretch = 1;
  expect(refusal(f)).toEqual([expect.stringMatching(/^goals\[1\]\.stretch/)]);
});

describe('the schema names the field', () => {
  test.each([
    ['a target that is text', (f: any) => (f.goals[1].target = '40'), 'goals[1].target'],
    ['an unknown field', (f: any) => (f.goals[0].weight = 2), 'goals[0]: unknown field weight'],
    ['an unknown shock', (f: any) => (f.shocks.episodes[2].kind = 'meteor'), 'shocks.episodes[2].kind'],
    ['a range upside down', (f: any) => (f.shocks.episodes[1].start = [35, 20]), 'shocks.episodes[1].start'],
    ['no English brief', (f: any) => delete f.briefs.en, 'briefs.en'],
    ['a language nobody speaks', (f: any) => (f.briefs.xx = f.briefs.en), 'briefs: unknown field xx'],
    ['an unknown simulator', (f: any) => (f.simulator = 'tram'), 'simulator'],
    ['a newer schema', (f: any) => (f.schemaVersion = 2), 'schemaVersion: version 2 is newer'],
    ['a round of a day', (f: any) => (f.minutes = 1440), 'minutes'],
  ])('%s', (_, edit, expected) => {
    const f = example();
    edit(f);
    expect(refusal(f).join('\n')).toContain(expected);
  });
});

describe('the meaning checks', () => {
  test.each([
    ['an unknown control', (f: any) => (f.controls.turbo = 1), 'controls.turbo: payment-switch has no control "turbo"'],
    [
      'a control out of range',
      (f: any) => (f.controls.servers = 99),
      'controls.servers: servers: 99 is out of range; allowed 2–24 step 1',
    ],
    ['a control off its step', (f: any) => (f.controls.fraudThreshold = 2.85), 'controls.fraudThreshold'],
    ['a number given a boolean', (f: any) => (f.controls.servers = true), 'controls.servers'],
    ['an unknown indicator', (f: any) => (f.goals[0].indicator = 'happiness'), 'goals[0].indicator'],
    ['a share above 1', (f: any) => (f.goals[0].target = 88), 'goals[0].target: goodApproval is a share'],
    ['a window after the end', (f: any) => (f.goals[1].from = 50), 'goals[1].from: the window starts at minute 50'],
    ['two goals of one id', (f: any) => (f.goals[1].id = 'approval'), 'goals[1].id: a second goal "approval"'],
    [
      'a shock after the end',
      (f: any) => (f.shocks.episodes[1].start = [50, 55]),
      'shocks.episodes[1].start: it starts after',
    ],
    [
      'a reference to a later shock',
      (f: any) => (f.shocks.episodes[2].start.after = 3),
      'shocks.episodes[2].start.after',
    ],
    ['notAs of itself', (f: any) => (f.shocks.episodes[0].meanS.notAs = 0), 'shocks.episodes[0].meanS.notAs'],
    ['a message after the end', (f: any) => (f.messages[1].minute = 46), 'messages[1].minute'],
    ['a built-in id', (f: any) => (f.id = 'black-friday'), 'id: "black-friday" is a built-in'],
    [
      'an unknown timeline',
      (f: any) => (f.timeline = 'sale-surge'),
      'timeline: a scenario has its own shocks or a named timeline',
    ],
    ["a role with another role's control", (f: any) => f.roles[0].controls.push('shedding'), 'roles[0].controls'],
    ['a role missing', (f: any) => f.roles.pop(), 'roles: role "standin" is missing'],
    ['a role seeing nothing real', (f: any) => (f.roles[1].sees[0] = 'vibes'), 'roles[1].sees[0]'],
    ['a brief for a goal that is not', (f: any) => (f.briefs.en.goals.speed = 'x'), 'briefs.en.goals.speed'],
    ['goals in free play', (f: any) => (f.kind = 'free'), 'goals: free play has no goals'],
    ['a retired authored scenario', (f: any) => (f.retired = true), 'retired'],
  ])('%s is an error', (_, edit, expected) => {
    const f = example();
    edit(f);
    expect(refusal(f).join('\n')).toContain(expected);
  });

  test('what a teacher may not have meant is a warning, and the file is accepted', () => {
    const f = example();
    f.shocks.episodes[1].start = [30, 44];
    f.goals[2].from = 5;
    const { findings } = acceptScenario(f);
    expect(findings.map((x) => `${x.level} ${x.path}`)).toEqual([
      'warning shocks.episodes[2].start',
      'warning shocks.episodes[3].start',
      'warning goals[2].from',
    ]);
  });

  test('a scenario with no shocks and no timeline is warned that nothing happens', () => {
    const f = example();
    delete f.shocks;
    expect(acceptScenario(f).findings.map((x) => x.path)).toEqual(['shocks']);
  });
});

describe('hostile files are refused with a clear error', () => {
  const issues = (text: string) => {
    try {
      loadScenarioText(text);
    } catch (e) {
      if (e instanceof ScenarioFileError) return e.message;
      throw e;
    }
    throw new Error('accepted');
  };
  test('a huge file, before it is parsed', () => {
    const f = example();
    f.briefs.en.brief = 'x'.repeat(LIMITS.bytes);
    expect(issues(JSON.stringify(f))).toMatch(/^the file has \d+ bytes; at most 262144$/);
  });
  test('deep nesting, before it is parsed', () => {
    expect(issues(`${'['.repeat(100000)}${']'.repeat(100000)}`)).toBe('the file nests 100000 levels deep; at most 12');
    const deep: any = example();
    let at = deep.controls;
    for (let i = 0; i < 20; i++) at = at.x = {};
    expect(refusal(deep).join()).toContain('nests too deep');
  });
  test('not JSON, NaN and Infinity', () => {
    expect(issues('{"schemaVersion": 1, "minutes": NaN}')).toMatch(/^not JSON: /);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
      const f = example();
      f.goals[0].target = bad;
      expect(refusal(f).join()).toContain('goals[0].target');
    }
  });
  test('10,000 shocks', () => {
    const f = example();
    f.shocks.episodes = Array.from({ length: 10000 }, () => f.shocks.episodes[1]);
    expect(refusal(f).join()).toContain('shocks.episodes: Too big');
  });
  test('script and markup in a brief or a message; control characters', () => {
    for (const text of ['<script>alert(1)</script>', 'Hello <img src=x onerror=alert(1)>', 'a </b> b', 'bell\u0007']) {
      const f = example();
      f.briefs.en.brief = text;
      f.messages[0].text.en = text;
      const r = refusal(f).join('\n');
      expect(r).toContain('briefs.en.brief');
      expect(r).toContain('messages[0].text.en');
    }
    // Arithmetic is not markup.
    const f = example();
    f.briefs.en.brief = 'Keep the fraud rate < 40 bp and approval > 88 %.';
    expect(acceptScenario(f).findings).toEqual([]);
  });
  test('a prototype key is an unknown field, and changes no object', () => {
    const text = EXAMPLE.replace('"schemaVersion": 1,', '"schemaVersion": 1, "__proto__": { "polluted": true },');
    expect(issues(text)).toContain('unknown field __proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('an authored scenario, played', () => {
  test('its messages come at their minutes, and it replays exactly from its definition', () => {
    const { def } = checkScenario(EXAMPLE);
    const model = withScenario(getModel('payment-switch'), def);
    const a = runRound(model, { scenario: def.id, seed: 7, noise: true, minutes: 45 });
    const b = runRound(model, { scenario: def.id, seed: 7, noise: true, minutes: 45 });
    expect(b.snapshots).toEqual(a.snapshots);
    const said = a.snapshots.flatMap((s) =>
      s.events.filter((e) => e.kind === 'scenario-message').map((e) => [s.minute, e.index]),
    );
    expect(said).toEqual([
      [1, 0],
      [30, 1],
    ]);
    // The shocks are drawn from the seed: the sale is announced on a drawn minute between 13 and 30.
    const announced = a.snapshots.find((s) => s.events.some((e) => e.kind === 'sale-announced'));
    expect(announced?.minute).toBeGreaterThanOrEqual(13);
    expect(announced?.minute).toBeLessThanOrEqual(30);
  });

  test('a duplicate of a built-in plays its timeline under a new id exactly as the built-in', () => {
    const ps = getModel('payment-switch');
    const dup = { ...ps.scenarios.find((s) => s.id === 'sale-surge')!, id: 'my-sale', timeline: 'sale-surge' };
    const model = withScenario(ps, dup);
    const mine = runRound(model, { scenario: 'my-sale', seed: 3, noise: true, minutes: 60 });
    const theirs = runRound(ps, { scenario: 'sale-surge', seed: 3, noise: true, minutes: 60 });
    expect(mine.snapshots).toEqual(theirs.snapshots);
    expect(mine.final.timeline).toBe('sale-surge');
    const ws = getModel('web-service');
    const wdup = { ...ws.scenarios.find((s) => s.id === 'failover')!, id: 'my-failover', timeline: 'failover' };
    const w1 = runRound(withScenario(ws, wdup), { scenario: 'my-failover', seed: 3, noise: true, minutes: 60 });
    const w2 = runRound(ws, { scenario: 'failover', seed: 3, noise: true, minutes: 60 });
    expect(w1.snapshots).toEqual(w2.snapshots);
  });
});

describe('the teaching checks', () => {
  test('the example: doing nothing loses, careful bots win, the verdicts in words', () => {
    const { def } = checkScenario(EXAMPLE);
    const r = checkTeaching(getModel('payment-switch'), def, { seeds: [1, 2, 3], budget: 12 });
    expect(r.nothing.winRate).toBe(0);
    expect(r.careful.winRate).toBeGreaterThan(r.nothing.winRate);
    expect(r.verdicts.every((v) => v.level !== 'error')).toBe(true);
    for (const v of r.verdicts) expect(v.message).toMatch(/^[A-Z].*\.$/);
  });

  test('goals that doing nothing meets are an error; goals nobody meets a warning', () => {
    const easy = example();
    easy.id = 'too-easy';
    easy.goals = [{ id: 'approval', indicator: 'goodApproval', aggregate: 'mean', op: '>=', target: 0.1 }];
    delete easy.briefs.en.goals;
    const r = checkTeaching(getModel('payment-switch'), checkScenario(easy).def, { seeds: [1, 2], budget: 6 });
    expect(r.verdicts.map((v) => `${v.level} ${v.key}`)).toContain('error nothing-wins');

    const hard = example();
    hard.goals = [{ id: 'approval', indicator: 'goodApproval', aggregate: 'mean', op: '>=', target: 0.9999 }];
    delete hard.briefs.en.goals;
    const h = checkTeaching(getModel('payment-switch'), checkScenario(hard).def, { seeds: [1, 2], budget: 6 });
    expect(h.verdicts.map((v) => `${v.level} ${v.key}`)).toEqual(
      expect.arrayContaining(['warning careful-never-wins', 'warning goal-unmet']),
    );
  });
});
