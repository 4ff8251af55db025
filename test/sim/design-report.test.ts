// `npm run design-report`'s helpers: the documented plays it measures are the ones the sim CLI runs,
// and its text and table show every figure of a scenario's report.
import { describe, expect, it } from 'vitest';
import { documentedArgs, documentedPlay, formatReport, summaryTable } from '../../server/cli/design-report.ts';
import { parseArgs } from '../../server/cli/sim-cli.ts';
import { scenarioReport } from '../../shared/design/report.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';

describe('design report', () => {
  it('measures every payment-switch scenario with goals against its documented play, parsed as the sim CLI parses it', () => {
    for (const s of paymentSwitch.scenarios.filter((x) => x.goals.length > 0)) {
      const args = documentedArgs('payment-switch', s.id)!;
      expect(args, s.id).toBeDefined();
      const o = parseArgs(['--model', 'payment-switch', '--scenario', s.id, ...args]);
      expect(documentedPlay('payment-switch', s.id)).toEqual({ timed: o.changes, rules: o.rules });
    }
    expect(documentedPlay('payment-switch', 'free')).toBeUndefined();
  });
  it('prints each play, the checks of a targeted scenario and one table row per scenario', () => {
    const r = scenarioReport(paymentSwitch, 'issuer-trouble', {
      seeds: [1, 2],
      budget: 30,
      oracleBudget: 8,
      documented: documentedPlay('payment-switch', 'issuer-trouble'),
    });
    const text = formatReport(r, 1);
    for (const label of [
      'doing nothing',
      'best fixed',
      'best adaptive',
      'best two-time',
      'adaptive, 3 min late',
      'documented',
      'documented, 3 min late',
      'oracle (per seed)',
    ])
      expect(text).toContain(label);
    for (const c of r.checks) expect(text).toContain(c.id);
    expect(text).toMatch(/roles: scaling \d+ %, shedding -?\d+ %, fraud -?\d+ %, standin -?\d+ %/);
    const table = summaryTable([r]).split('\n');
    expect(table).toHaveLength(3);
    expect(table[2]).toMatch(/^\| payment-switch \/ issuer-trouble \| /);
    expect(table[2].split('|').length).toBe(table[0].split('|').length);
  });
});
