// The scenario editor's logic, without a browser: a duplicate that saves, ids that do not collide, shocks and
// goals added and removed (references renumbered), the quick checks naming fields, the strip's windows, an
// imported file, the dry run's preview (seeded, three seeds) and when the dry run runs (debounced; a change
// while it runs ends that worker; an answer for an older draft is dropped).
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { BUILT_IN_FILES } from '../../shared/scenarios/builtin/index.ts';
import type { ScenarioFile } from '../../shared/scenarios/format.ts';
import { fileText, parseScenarioFile } from '../../shared/scenarios/load.ts';
import { getMeta } from '../../shared/sim/meta.ts';
import type { SimulatorId } from '../../shared/sim/types.ts';
import {
  addEpisode,
  addGoal,
  checkDraft,
  duplicateOf,
  fromShown,
  removeEpisode,
  removeGoal,
  settingFields,
  stripOf,
  toShown,
  uniqueId,
} from '../../web/routes/teacher/scenarios/edit/draft.ts';
import { dryRun, PREVIEW_SEEDS, preview, type DryRunMessage } from '../../web/routes/teacher/scenarios/edit/dry-run.ts';
import { builtInIds } from '../../web/routes/teacher/scenarios/edit/ids.ts';
import {
  DryRunScheduler,
  type DryRunView,
  type WorkerLike,
} from '../../web/routes/teacher/scenarios/edit/scheduler.ts';
import { incoming } from '../../web/routes/teacher/scenarios/import.ts';

const lateSale = (): ScenarioFile =>
  parseScenarioFile(JSON.parse(readFileSync('docs/scenarios/late-sale.json', 'utf8')));
const builtIn = (simulator: SimulatorId, id: string): ScenarioFile => {
  const file = BUILT_IN_FILES[simulator].find((f) => f.id === id);
  if (!file) throw new Error(`no built-in file ${simulator}/${id}`);
  return structuredClone(file);
};
const errorsOf = (draft: unknown) => checkDraft(draft).findings.filter((f) => f.level === 'error');

describe('ids', () => {
  test('the first free id, within 40 characters', () => {
    expect(uniqueId('late-sale', new Set())).toBe('late-sale');
    expect(uniqueId('late-sale', new Set(['late-sale']))).toBe('late-sale-2');
    expect(uniqueId('late-sale', new Set(['late-sale', 'late-sale-2']))).toBe('late-sale-3');
    const long = 'a'.repeat(39);
    const id = uniqueId(long, new Set([long]));
    expect(id.length).toBeLessThanOrEqual(40);
    expect(id.endsWith('-2')).toBe(true);
  });

  test('every built-in is taken, offered or retired', () => {
    expect(builtInIds()).toEqual(expect.arrayContaining(['black-friday', 'sale-day', 'product-launch', 'free']));
  });
});

describe('duplicate and tweak', () => {
  test('a copy of a built-in gets its own id and passes the checks a save runs', () => {
    const copy = duplicateOf(builtIn('payment-switch', 'sale-surge'), new Set(builtInIds()), true);
    expect(copy.id).toBe('sale-surge-copy');
    // Its shocks are the model's code: the copy names that timeline.
    expect(copy.timeline).toBe('sale-surge');
    expect(errorsOf(copy)).toEqual([]);
  });

  test('what only built-ins carry does not come along (retired, score rule 1, level)', () => {
    const copy = duplicateOf(builtIn('payment-switch', 'sale-day'), new Set(builtInIds()), true);
    expect(copy).not.toHaveProperty('retired');
    expect(copy).not.toHaveProperty('scoreRule');
    expect(copy).not.toHaveProperty('level');
    expect(errorsOf(copy)).toEqual([]);
  });

  test("a copy of the teacher's own scenario, beside the original", () => {
    const copy = duplicateOf(lateSale(), new Set(['late-sale', 'late-sale-copy']), false);
    expect(copy.id).toBe('late-sale-copy-2');
    expect(copy.shocks).toEqual(lateSale().shocks);
    expect(copy.timeline).toBeUndefined();
  });
});

describe('editing the draft', () => {
  test('a shock added to a scenario without shocks brings the setting and leaves the named timeline', () => {
    const copy = duplicateOf(builtIn('web-service', 'traffic-surge'), new Set(builtInIds()), true);
    addEpisode(copy, 'crawl');
    expect(copy.timeline).toBeUndefined();
    expect(copy.shocks?.episodes).toHaveLength(1);
    expect(copy.shocks?.setting).toEqual({ clock: 670, bootMinutes: 4, budget: 0.5 });
    expect(errorsOf(copy)).toEqual([]);
    expect(() => addEpisode(copy, 'sale')).toThrow(/no shock "sale"/);
  });

  test("removing a shock renumbers later shocks' references to the ones after it", () => {
    const file = lateSale();
    // The bots start after the sale (episode 1), the card testers after its end: both now refer to episode 0.
    removeEpisode(file, 0);
    const [, bots, attack] = (file.shocks?.episodes ?? []) as unknown as { start: { after: number } }[];
    expect(bots.start.after).toBe(0);
    expect(attack.start.after).toBe(0);
    expect(errorsOf(file)).toEqual([]);
  });

  test('removing the shock others refer to is an error the checks name', () => {
    const file = lateSale();
    removeEpisode(file, 1);
    const errors = errorsOf(file);
    expect(errors.map((e) => e.path)).toContain('shocks.episodes[1].start.after');
  });

  test('a goal added and removed, with its lines in every brief', () => {
    const file = lateSale();
    addGoal(file, 'goodApproval');
    expect(file.goals.at(-1)).toMatchObject({ id: 'goodApproval', indicator: 'goodApproval' });
    addGoal(file, 'goodApproval');
    expect(file.goals.at(-1)?.id).toBe('goodApproval2');
    removeGoal(file, 0);
    expect(file.goals.map((g) => g.id)).not.toContain('approval');
    expect(file.briefs.en.goals).not.toHaveProperty('approval');
  });

  test('a target in the desk units and back', () => {
    const share = getMeta('payment-switch').indicators.find((i) => i.key === 'goodApproval');
    expect(toShown(0.885, share)).toBe(88.5);
    expect(fromShown(88.5, share)).toBe(0.885);
    const ms = getMeta('payment-switch').indicators.find((i) => i.key === 'groupBLatencyMs');
    expect(fromShown(toShown(1234, ms), ms)).toBe(1234);
  });

  test("the setting's terms carry the schema's bounds", () => {
    const ps = settingFields('payment-switch');
    expect(ps.find((f) => f.key === 'ownServers')).toEqual({
      key: 'ownServers',
      type: 'integer',
      min: 0,
      max: 24,
      optional: false,
    });
    expect(ps.find((f) => f.key === 'fraudLiability')?.optional).toBe(true);
    expect(settingFields('web-service').map((f) => f.key)).toEqual(['clock', 'bootMinutes', 'budget']);
  });
});

describe('the quick checks', () => {
  test('an emptied number is a schema error naming its field', () => {
    const file = lateSale() as unknown as { goals: { target: number }[] };
    file.goals[1].target = Number.NaN;
    const { findings, file: checked } = checkDraft(file);
    expect(checked).toBeNull();
    expect(findings[0]).toMatchObject({ level: 'error', depth: 'schema', path: 'goals[1].target' });
  });

  test('a starting control out of its range is an error of meaning; a warning does not block', () => {
    const file = lateSale();
    file.controls = { servers: 999 };
    expect(errorsOf(file)).toEqual([expect.objectContaining({ depth: 'meaning', path: 'controls.servers' })]);
    const ok = lateSale();
    (ok.goals[2] as { from?: number }).from = 5; // a window on a final goal: a warning
    const { findings, file: checked } = checkDraft(ok);
    expect(findings.some((f) => f.level === 'warning' && f.path === 'goals[2].from')).toBe(true);
    expect(checked).not.toBeNull();
  });
});

describe('the strip', () => {
  test("each shock's start window and latest end, references followed", () => {
    const [issuer, sale, bots, attack] = stripOf(lateSale());
    expect(issuer).toEqual({ index: 0, kind: 'issuer', span: { start: [4, 7], end: [14, 21] } });
    expect(sale.span).toEqual({ start: [20, 35], end: [26, 43] });
    // Bots: 1–3 minutes after the sale starts.
    expect(bots.span?.start).toEqual([21, 38]);
    // Card testers: 0–2 minutes after the sale ends.
    expect(attack.span?.start).toEqual([26, 45]);
  });

  test('moving a shock moves its window', () => {
    const file = lateSale();
    (file.shocks?.episodes[1] as { start: [number, number] }).start = [10, 12];
    expect(stripOf(file)[1].span?.start).toEqual([10, 12]);
    expect(stripOf(file)[2].span?.start).toEqual([11, 15]);
  });
});

describe('a file that comes in', () => {
  test('a refused file names its field', () => {
    const bad = JSON.parse(fileText(lateSale()));
    bad.shocks.episodes[2].kind = 'meteor';
    expect(incoming(JSON.stringify(bad), new Set())).toMatchObject({ ok: false, field: 'shocks.episodes[2].kind' });
    expect(incoming('{', new Set())).toMatchObject({ ok: false, field: '' });
    const script = JSON.parse(fileText(lateSale()));
    script.briefs.en.brief = '<script>alert(1)</script>';
    expect(incoming(script, new Set())).toMatchObject({ ok: false, field: 'briefs.en.brief' });
  });

  test('an id already taken becomes <id>-copy', () => {
    expect(incoming(fileText(lateSale()), new Set())).toMatchObject({ ok: true, renamed: false });
    const got = incoming(fileText(lateSale()), new Set(['late-sale']));
    expect(got).toMatchObject({ ok: true, renamed: true, file: { id: 'late-sale-copy' } });
  });
});

describe('the dry run', () => {
  test('the preview: doing nothing and careful bots on three seeds, every goal indicator, exactly again', () => {
    const file = { ...lateSale(), minutes: 30 };
    const p = preview(file);
    expect(p.minutes).toBe(30);
    expect(p.nothing.map((r) => r.seed)).toEqual([...PREVIEW_SEEDS]);
    expect(p.careful).toHaveLength(3);
    for (const run of [...p.nothing, ...p.careful]) {
      expect(Object.keys(run.series).sort()).toEqual(['costSoFar', 'fraudRateBp', 'goodApproval']);
      expect(run.series.goodApproval.length).toBeGreaterThanOrEqual(30);
    }
    // The careful team acts: its minutes differ from doing nothing's.
    expect(p.careful[0].series.costSoFar).not.toEqual(p.nothing[0].series.costSoFar);
    expect(preview(file)).toEqual(p);
  });

  test('a run posts the preview, then the teaching verdicts; a broken file posts why', () => {
    const posted: DryRunMessage[] = [];
    dryRun({ id: 7, file: { ...lateSale(), minutes: 20 } }, (msg) => posted.push(msg));
    expect(posted.map((x) => [x.id, x.kind])).toEqual([
      [7, 'preview'],
      [7, 'teaching'],
    ]);
    const report = posted[1].kind === 'teaching' ? posted[1].report : null;
    expect(report?.verdicts.length).toBeGreaterThan(0);
    const failed: DryRunMessage[] = [];
    dryRun({ id: 8, file: { ...lateSale(), simulator: 'web-service' } as unknown as ScenarioFile }, (msg) =>
      failed.push(msg),
    );
    expect(failed.at(-1)?.kind).toBe('failed');
  });
});

describe('when the dry run runs', () => {
  class FakeWorker implements WorkerLike {
    onmessage: WorkerLike['onmessage'] = null;
    onerror: WorkerLike['onerror'] = null;
    posted: { id: number; file: ScenarioFile }[] = [];
    terminated = false;
    postMessage(req: { id: number; file: ScenarioFile }): void {
      this.posted.push(req);
    }
    terminate(): void {
      this.terminated = true;
    }
    answer(msg: DryRunMessage): void {
      this.onmessage?.({ data: msg } as MessageEvent<DryRunMessage>);
    }
  }
  let workers: FakeWorker[];
  let view: DryRunView;
  let scheduler: DryRunScheduler;
  beforeEach(() => {
    vi.useFakeTimers();
    workers = [];
    view = { status: 'waiting', preview: null, report: null, failure: null };
    scheduler = new DryRunScheduler(
      () => {
        const w = new FakeWorker();
        workers.push(w);
        return w;
      },
      (patch) => Object.assign(view, patch),
      700,
    );
  });
  afterEach(() => {
    scheduler.dispose();
    vi.useRealTimers();
  });
  const report = { verdicts: [] } as unknown as Extract<DryRunMessage, { kind: 'teaching' }>['report'];

  test('it waits until the draft stays unchanged, then runs the last one', () => {
    scheduler.schedule({ ...lateSale(), minutes: 40 });
    vi.advanceTimersByTime(400);
    scheduler.schedule({ ...lateSale(), minutes: 41 });
    vi.advanceTimersByTime(699);
    expect(workers).toHaveLength(0);
    expect(view.status).toBe('waiting');
    vi.advanceTimersByTime(1);
    expect(workers).toHaveLength(1);
    expect(workers[0].posted.map((p) => p.file.minutes)).toEqual([41]);
    expect(view.status).toBe('running');
    workers[0].answer({ id: workers[0].posted[0].id, kind: 'teaching', report });
    expect(view.status).toBe('done');
  });

  test('a change while it runs ends that worker; the old answer is dropped', () => {
    scheduler.schedule(lateSale());
    vi.advanceTimersByTime(700);
    const first = workers[0];
    const oldId = first.posted[0].id;
    scheduler.schedule({ ...lateSale(), minutes: 50 });
    first.answer({ id: oldId, kind: 'teaching', report });
    expect(view.status).toBe('waiting');
    vi.advanceTimersByTime(700);
    expect(first.terminated).toBe(true);
    expect(workers).toHaveLength(2);
    expect(workers[1].posted[0].file.minutes).toBe(50);
  });

  test('a finished worker is kept for the next run; a draft with errors blocks it', () => {
    scheduler.schedule(lateSale());
    vi.advanceTimersByTime(700);
    workers[0].answer({ id: workers[0].posted[0].id, kind: 'teaching', report });
    scheduler.schedule({ ...lateSale(), minutes: 30 });
    vi.advanceTimersByTime(700);
    expect(workers).toHaveLength(1);
    expect(workers[0].terminated).toBe(false);
    scheduler.schedule(null);
    expect(view.status).toBe('blocked');
    vi.advanceTimersByTime(5000);
    expect(workers[0].posted).toHaveLength(2);
  });
});
