// The words and sets behind the ledger, split view and the coach on screen: which indicators a
// student's desk does not receive in split view (and who does), "—" for a share with nothing under
// it, the money saved against doing nothing, and a coach suggestion in words with its figures.
import { describe, expect, test } from 'vitest';
import type { Suggestion } from '../../shared/protocol/types.ts';
import { visibleKeys } from '../../shared/classroom/split.ts';
import { getMeta } from '../../shared/sim/meta.ts';
import { fmtIndicator, NOTHING_UNDER } from '../../web/lib/format.ts';
import { durationText, effectText, figuresText, suggestionText } from '../../web/lib/replay/coach-text.ts';
import { fmtSaved } from '../../web/lib/sims/money.ts';
import { paymentSwitchSim } from '../../web/lib/sims/payment-switch.ts';
import { shownScenario } from '../../web/lib/sims/shown.ts';
import { webServiceSim } from '../../web/lib/sims/web-service.ts';
import { hiddenKeys, seersOf } from '../../web/lib/state/split-view.ts';

describe('split view on the desk', () => {
  const ps = getMeta('payment-switch');
  const ws = getMeta('web-service');
  const all = (model: typeof ps) => model.indicators.map((i) => i.key);

  test('off: nothing is hidden; on: exactly what the server leaves out', () => {
    expect(hiddenKeys(ps, false, []).size).toBe(0);
    for (const model of [ps, ws]) {
      for (const role of model.roles) {
        const hidden = hiddenKeys(model, true, [role.id]);
        const seen = visibleKeys(model, [role.id]);
        for (const key of all(model)) expect(hidden.has(key), `${role.id} ${key}`).toBe(!seen.has(key));
        // The headline and the ledger are everyone's.
        for (const key of [...model.ledger.items, model.ledger.total]) expect(hidden.has(key)).toBe(false);
        for (const i of model.indicators.filter((x) => x.headline)) expect(hidden.has(i.key)).toBe(false);
      }
    }
    // An analyst, who owns no control, sees every figure; the scaling role the shared ones and its own.
    for (const model of [ps, ws]) expect(hiddenKeys(model, true, []).size).toBe(0);
    expect(hiddenKeys(ps, true, ['scaling']).has('newTps')).toBe(false);
    expect(hiddenKeys(ps, true, ['scaling']).has('offeredTps')).toBe(true);
  });

  test('who sees a hidden figure: its roles with their owners now', () => {
    const owners: Record<string, string[]> = { shedding: ['Bo'], standin: [] };
    expect(seersOf(ps, 'offeredTps', (r) => owners[r] ?? [])).toEqual([{ role: 'shedding', owners: ['Bo'] }]);
    expect(seersOf(ws, 'requestsPerSec', () => []).map((x) => x.role)).toEqual(['fleet', 'traffic']);
  });
});

describe('the ledger on screen', () => {
  test('a share with nothing under it reads "—", not 0', () => {
    const fraud = paymentSwitchSim.model.indicators.find((i) => i.key === 'fraudRateBp')!;
    expect(fmtIndicator(fraud, { indicators: { fraudRateBp: 0 }, na: ['fraudRateBp'] })).toBe(NOTHING_UNDER);
    expect(fmtIndicator(fraud, { indicators: { fraudRateBp: 0 } })).toBe('0.0 bp');
    expect(fmtIndicator(fraud, { indicators: { fraudRateBp: 12.34 }, na: ['goodApproval'] })).toBe('12.3 bp');
  });

  test('saved against doing nothing, or how much more was lost, in the simulator’s currency', () => {
    expect(fmtSaved(paymentSwitchSim, { total: 249, baseline: 10809, calm: 107, saving: 0.8 })).toBe('saved 10,560 u');
    expect(fmtSaved(paymentSwitchSim, { total: 626, baseline: 626, calm: 107, saving: 0 })).toBe('saved 0 u');
    expect(fmtSaved(webServiceSim, { total: 4.28, baseline: 3.37, calm: 1.12, saving: -0.3 })).toBe('0.91 $ more lost');
  });
});

describe('a coach suggestion in words', () => {
  const base = {
    before: { goalsMet: 1, goals: 3, score: 0, ledgerTotal: 529.8 },
    after: { goalsMet: 3, goals: 3, score: 2053.2, ledgerTotal: 34.3 },
    changes: [],
    forkMinute: 0,
  };
  const s = (x: Partial<Suggestion>): Suggestion => ({
    kind: 'add',
    key: 'servers',
    value: 9,
    fromMinute: null,
    toMinute: 1,
    goalsNowMet: [],
    goalsNowMissed: [],
    until: null,
    unusual: null,
    ...base,
    ...x,
  });

  test('each kind says what to change, for a setting and for a button', () => {
    expect(suggestionText(paymentSwitchSim, s({ kind: 'add' }), null)).toBe('Also setting Servers to 9 at minute 1');
    expect(suggestionText(paymentSwitchSim, s({ kind: 'earlier', fromMinute: 8, toMinute: 3, value: 12 }), null)).toBe(
      'Setting Servers to 12 at minute 3 instead of 8',
    );
    expect(suggestionText(paymentSwitchSim, s({ kind: 'value', fromMinute: 8, toMinute: 8, value: 14 }), 12)).toBe(
      'Setting Servers to 14 instead of 12 at minute 8',
    );
    expect(
      suggestionText(
        webServiceSim,
        s({ kind: 'earlier', key: 'rollback', value: 'press', fromMinute: 14, toMinute: 11 }),
        null,
      ),
    ).toBe('Pressing Roll back at minute 11 instead of 14');
    expect(
      suggestionText(
        webServiceSim,
        s({ kind: 'drop', key: 'rollback', value: 'press', fromMinute: 14, toMinute: null }),
        null,
      ),
    ).toBe('Not pressing Roll back at minute 14');
  });

  test('what it would have done, and its figures', () => {
    const met = s({ goalsNowMet: ['approval', 'authTime'] });
    expect(effectText(paymentSwitchSim, shownScenario(paymentSwitchSim, 'sale-surge'), met)).toBe(
      'would have met “Average good-customer approval ≥ 95 % from the start of the sale”, “Average authorization time ≤ 500 ms”: +2,053 points.',
    );
    expect(effectText(paymentSwitchSim, shownScenario(paymentSwitchSim, 'sale-surge'), s({}))).toBe(
      'would have scored +2,053 points.',
    );
    expect(figuresText(paymentSwitchSim, met)).toBe('Goals 1 → 3 of 3 · score 0 → 2,053.2 · money lost 530 u → 34 u');
  });

  test('how long it lasts, what it costs, and what it gives up', () => {
    // 0.5 σ at minute 39 lasts until the team's own 3.0 σ at 41; it buys the fraud goal with money.
    const swing = s({
      key: 'fraudThreshold',
      value: 0.5,
      toMinute: 39,
      until: 41,
      changes: [
        { minute: 39, key: 'fraudThreshold', value: 0.5 },
        { minute: 41, key: 'fraudThreshold', value: 3 },
      ],
      goalsNowMet: ['fraudRate'],
      before: { goalsMet: 2, goals: 4, score: 704.4, ledgerTotal: 4154.2 },
      after: { goalsMet: 3, goals: 4, score: 990.9, ledgerTotal: 4388.7 },
    });
    expect(durationText(paymentSwitchSim, swing)).toBe('until minute 41, when your own 3.0 σ applies');
    expect(effectText(paymentSwitchSim, shownScenario(paymentSwitchSim, 'sale-day'), swing)).toBe(
      'would have met “Average fraud rate ≤ 20 bp”, at the cost of 235 u more lost: +287 points.',
    );
    expect(durationText(paymentSwitchSim, s({ until: null }))).toBe('until the end of the round');
    // A press has no duration; nor has a change left out.
    expect(durationText(webServiceSim, s({ key: 'rollback', value: 'press', toMinute: 11 }))).toBeNull();
    expect(durationText(paymentSwitchSim, s({ kind: 'drop', fromMinute: 3, toMinute: null }))).toBeNull();
    // A goal given up for others is said.
    expect(
      effectText(
        paymentSwitchSim,
        shownScenario(paymentSwitchSim, 'sale-surge'),
        s({ goalsNowMet: ['approval'], goalsNowMissed: ['cost'] }),
      ),
    ).toBe(
      'would have met “Average good-customer approval ≥ 95 % from the start of the sale”: +2,053 points. It would have missed “Server cost ≤ 75 u” instead.',
    );
  });
});
