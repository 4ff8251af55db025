// The scenario a screen shows: a teacher's own (the round's `own`) with its words in the reader's language or
// English, each goal's line with its target; a goal without words as its indicator and target; a built-in by id.
import { afterEach, describe, expect, test } from 'vitest';
import type { OwnScenario } from '../../shared/protocol/types.ts';
import { getLocale, overwriteGetLocale } from '../../web/lib/paraglide/runtime.js';
import { paymentSwitchSim } from '../../web/lib/sims/payment-switch.ts';
import { shownScenario } from '../../web/lib/sims/shown.ts';
import { chartedIndicators, goalsOn, startingControls } from '../../web/lib/state/desk-logic.ts';

const sim = paymentSwitchSim;
const own: OwnScenario = {
  id: 'sale-day-mine',
  kind: 'classic',
  controls: { servers: 20 },
  goals: [
    { id: 'approval', indicator: 'goodApproval', aggregate: 'mean', op: '>=', target: 0.885 },
    { id: 'stepUp', indicator: 'stepUpShare', aggregate: 'worst', stretch: 10, op: '<=', target: 0.2 },
  ],
  briefs: {
    en: {
      name: 'My <b>sale</b> day',
      brief: 'Keep the shop open & honest.',
      goals: { approval: 'Approve ≥ {target}' },
    },
    hu: { name: 'Az én akcióm', brief: 'Tartsd nyitva a boltot.' },
  },
};

const reader = getLocale;
afterEach(() => overwriteGetLocale(reader));

describe('shownScenario', () => {
  test("a teacher's own scenario: its words, its goal lines with the formatted target, as text", () => {
    const s = shownScenario(sim, own.id, own);
    expect(s.name).toBe('My <b>sale</b> day');
    expect(s.brief).toBe('Keep the shop open & honest.');
    expect(s.goals).toBe(own.goals);
    expect(s.goalLine(own.goals[0])).toBe('Approve ≥ 88.5 %');
    // No words for the step-up goal: its indicator's name and the target as the desk writes it.
    expect(s.goalLine(own.goals[1])).toBe(`${sim.text.indicators.stepUpShare()} ≤ 20 %`);
  });

  test("the reader's language when the file has it, English for what it lacks", () => {
    overwriteGetLocale(() => 'hu');
    const s = shownScenario(sim, own.id, own);
    expect(s.name).toBe('Az én akcióm');
    expect(s.brief).toBe('Tartsd nyitva a boltot.');
    expect(s.goalLine(own.goals[0])).toMatch(/^Approve ≥ 88,5/);
    overwriteGetLocale(() => 'it');
    expect(shownScenario(sim, own.id, own).name).toBe('My <b>sale</b> day');
  });

  test('a built-in by id, as its words are; an unknown id shows the id and no goals', () => {
    const s = shownScenario(sim, 'sale-surge');
    const def = sim.model.scenarios.find((x) => x.id === 'sale-surge');
    expect(s.name).toBe(sim.text.scenarios['sale-surge'].name());
    expect(s.goals).toEqual(def?.goals);
    const approval = s.goals.find((g) => g.id === 'approval');
    expect(approval && s.goalLine(approval)).toBe(sim.text.scenarios['sale-surge'].goals.approval({ target: '95 %' }));
    const unknown = shownScenario(sim, 'black-friday-copy');
    expect([unknown.name, unknown.brief, unknown.goals.length]).toEqual(['black-friday-copy', null, 0]);
  });

  test("the desk's starting controls, goal lines and charts follow the own scenario", () => {
    const s = shownScenario(sim, own.id, own);
    expect(startingControls(sim.model, s).servers).toBe(20);
    expect(goalsOn(sim.model, s, 'stepUpShare').map((g) => g.target)).toEqual([0.2]);
    expect(chartedIndicators(sim.model, s).map((i) => i.key)).toContain('stepUpShare');
    expect(chartedIndicators(sim.model, own.id).map((i) => i.key)).not.toContain('stepUpShare');
  });
});
