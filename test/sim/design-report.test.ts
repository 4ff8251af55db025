// `npm run design-report`'s helpers: the documented plays it measures are the ones the sim CLI runs,
// and its text and table show every figure of a scenario's report.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  documentedArgs,
  documentedPlay,
  formatReport,
  playLine,
  summaryTable,
  writeDoc,
} from '../../server/cli/design-report.ts';
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
  it('prints each play, the teams, every role, the checks of a targeted scenario and one table row per scenario', () => {
    const r = scenarioReport(paymentSwitch, 'black-friday', {
      seeds: [1, 2],
      budget: 16,
      convergence: false,
      documented: documentedPlay('payment-switch', 'black-friday'),
    });
    const text = formatReport(r, 1);
    for (const label of [
      'doing nothing',
      'best fixed (most wins)',
      'best fixed (best score)',
      'best two-time',
      'best adaptive',
      'best adaptive, 3 min late',
      'documented',
      'documented, 3 min late',
      'teams (role policies): careful@0',
      'careless@1',
      'buy-check:',
      'floor:',
    ])
      expect(text).toContain(label);
    for (const c of r.checks) expect(text).toContain(c.id);
    for (const role of ['scaling', 'shedding', 'fraud', 'standin'])
      expect(text).toMatch(new RegExp(`\\n {4}${role} +dropped [−+]\\d+ % · set once .*windows [\\d.]+/\\d+/\\d+`));
    // Every play printed is the shell line of the play.
    expect(text).toContain(playLine(r.run.twoTimes.play));
    const table = summaryTable([r]).split('\n');
    expect(table).toHaveLength(3);
    expect(table[2]).toMatch(/^\| payment-switch \/ black-friday \| /);
    expect(table[2].split('|').length).toBe(table[0].split('|').length);
  });
  it('writes the report between the markers of a document and refuses a document without them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'design-doc-'));
    const file = join(dir, 'doc.md');
    writeFileSync(file, 'before\n<!-- design-report -->\nold\n<!-- /design-report -->\nafter\n');
    writeDoc(file, 'new table');
    expect(readFileSync(file, 'utf8')).toBe(
      'before\n<!-- design-report -->\nnew table\n<!-- /design-report -->\nafter\n',
    );
    writeFileSync(file, 'no markers\n');
    expect(() => writeDoc(file, 'x')).toThrow(/markers/);
    expect(readFileSync(file, 'utf8')).toBe('no markers\n');
  });
});
