// Payment switch through the CLI (in process): errors exit 2 naming the key and what is allowed,
// --set timing, table output, and determinism of the JSON lines.
import { describe, expect, it } from 'vitest';
import { runCli } from '../../server/cli/sim-cli.ts';
import { normalCdf } from '../../shared/sim/math.ts';

const BASE = ['--model', 'payment-switch', '--scenario', 'sale-surge'];

function lines(argv: string[]) {
  const out = runCli(argv);
  expect(out.code, out.stderr).toBe(0);
  const all = out.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return {
    snapshots: all.slice(0, -1) as {
      minute: number;
      indicators: Record<string, number>;
      controls: Record<string, unknown>;
      events: { kind: string }[];
    }[],
    result: all[all.length - 1].result,
    stdout: out.stdout,
  };
}

describe('errors exit 2 with a message naming the key and what is allowed', () => {
  it.each([
    [['--speed', '3'], /unknown flag --speed/],
    [
      ['--set', 'capacity=3'],
      /unknown control "capacity".*controls are: servers, shedding, retryPolicy, fraudThreshold, stepUpBand, issuerTimeoutS, standInLimit/,
    ],
    [['--set', 'servers=30'], /servers: 30 is out of range; allowed 2–24 step 1 \(count\)/],
    [['--set', 'fraudThreshold=9@10'], /fraudThreshold: 9 is out of range; allowed 0\.5–5\.0 step 0\.1 \(sigma\)/],
    [['--set', 'issuerTimeoutS=0.2'], /issuerTimeoutS: 0\.2 is out of range; allowed 0\.5–15\.0 step 0\.1 \(s\)/],
    [['--set', 'standInLimit=-1'], /standInLimit: -1 is out of range; allowed 0–1000 step 1 \(u\)/],
    [['--set', 'stepUpBand=0.25'], /stepUpBand: 0\.25 is not a multiple of the step 0\.1; allowed 0\.0–3\.0/],
    [['--set', 'shedding=yes'], /shedding: expected on\/off/],
    [['--set', 'retryPolicy=later'], /retryPolicy: expected one of immediate\/backoff/],
    [['--set', 'servers=8@61'], /--set servers @minute: expected an integer in 0–60/],
  ])('%j', (extra, message) => {
    const out = runCli([...BASE, ...(extra as string[])]);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(message as RegExp);
    expect(out.stderr).toContain('usage: npm run sim');
  });
});

describe('--set timing', () => {
  it('without @ it applies before the opening snapshot', () => {
    const { snapshots } = lines([
      '--model',
      'payment-switch',
      '--scenario',
      'fraud-wave',
      '--noise',
      'off',
      '--minutes',
      '3',
      '--set',
      'fraudThreshold=2.5',
      '--set',
      'servers=8',
    ]);
    expect(snapshots[0].controls.fraudThreshold).toBe(2.5);
    expect(snapshots[0].indicators.goodDeclinedByRule).toBeCloseTo(1 - normalCdf(2.5), 15);
    expect(snapshots[0].indicators.serversBooting).toBe(2);
    expect(snapshots[0].events).toContainEqual({ kind: 'control', key: 'fraudThreshold', value: 2.5 });
  });
  it('with @m it applies from minute m, not before', () => {
    const { snapshots } = lines([
      ...BASE,
      '--noise',
      'off',
      '--minutes',
      '12',
      '--set',
      'shedding=on@7',
      '--set',
      'retryPolicy=backoff@7',
    ]);
    for (let m = 0; m < 7; m++)
      expect(snapshots[m].controls).toMatchObject({ shedding: false, retryPolicy: 'immediate' });
    for (let m = 7; m <= 12; m++)
      expect(snapshots[m].controls).toMatchObject({ shedding: true, retryPolicy: 'backoff' });
    expect(snapshots[7].events).toContainEqual({ kind: 'control', key: 'shedding', value: true });
    expect(snapshots[6].indicators.shedTps).toBe(0);
    expect(snapshots[7].indicators.shedTps).toBeGreaterThan(0);
  });
});

describe('--format table', () => {
  it('shows headline statuses, the control changes and the goal verdicts', () => {
    const out = runCli([...BASE, '--format', 'table', '--set', 'servers=10@6', '--set', 'shedding=on@6']);
    expect(out.code).toBe(0);
    const text = out.stdout;
    const header = text.split('\n')[0];
    for (const k of [
      'goodApproval',
      'authTimeMs',
      'fraudRateBp',
      'slotsBusy',
      'offeredTps',
      'retryTps',
      'shedTps',
      'serversBooting',
      'costSoFar',
    ])
      expect(header).toContain(k);
    expect(text).toMatch(/^ {2}0 +99\.9 % ok +330 ms ok +10\.4 bp ok +69 % ok/m);
    expect(text).toMatch(/ CRIT/);
    expect(text).toMatch(/ WARN/);
    expect(text).toContain('minute 6: servers = 10');
    expect(text).toContain('minute 6: shedding = on');
    expect(text).toMatch(/(MET|FAILED) +approval: goodApproval mean from minute 5 = [\d.]+ % \(target >= 95\.0 %\)/);
    expect(text).toMatch(/MET {4}cost: costSoFar at the end = \d+ u \(target <= 75 u\)/);
    expect(text).toMatch(/score \d+(\.\d)?/);
  });
  it('free play says it has no goals', () => {
    const out = runCli(['--model', 'payment-switch', '--scenario', 'free', '--minutes', '2', '--format', 'table']);
    expect(out.stdout).toContain('free play: no goals');
  });
});

describe('determinism', () => {
  it('the same seed twice gives identical JSON lines; another seed other arrivals', () => {
    const argv = [...BASE, '--seed', '77', '--set', 'servers=9@6', '--set', 'retryPolicy=backoff@6'];
    const a = runCli(argv).stdout;
    expect(runCli(argv).stdout).toBe(a);
    const b = lines([...BASE, '--seed', '78', '--set', 'servers=9@6', '--set', 'retryPolicy=backoff@6']);
    const first = lines(argv);
    expect(first.snapshots[0].indicators.newTps).toBe(b.snapshots[0].indicators.newTps); // opening: expected values
    expect(first.snapshots[1].indicators.newTps).not.toBe(b.snapshots[1].indicators.newTps);
  });
  it('noise off gives identical rounds for every seed', () => {
    const a = runCli([...BASE, '--noise', 'off', '--seed', '1']).stdout;
    expect(runCli([...BASE, '--noise', 'off', '--seed', '4294967295']).stdout).toBe(a);
  });
});

describe('--on: reactive rules', () => {
  it('an event rule applies the minute after the event shows, +d minutes later with EVENT+d', () => {
    const { snapshots } = lines([
      ...BASE,
      '--noise',
      'off',
      '--minutes',
      '12',
      '--on',
      'sale-start',
      'servers=10',
      'shedding=on',
      '--on',
      'sale-start+3',
      'retryPolicy=backoff',
    ]);
    expect(snapshots[5].events).toContainEqual({ kind: 'sale-start' });
    expect(snapshots[5].controls).toMatchObject({ servers: 6, shedding: false });
    expect(snapshots[6].controls).toMatchObject({ servers: 10, shedding: true, retryPolicy: 'immediate' });
    expect(snapshots[9].controls.retryPolicy).toBe('backoff');
    expect(snapshots[6].events).toContainEqual({ kind: 'control', key: 'servers', value: 10 });
  });
  it('an indicator rule applies the minute after the first crossing, once', () => {
    const { snapshots } = lines([...BASE, '--noise', 'off', '--minutes', '20', '--on', 'slotsBusy>0.9', 'shedding=on']);
    const crossed = snapshots.findIndex((s) => s.indicators.slotsBusy > 0.9);
    expect(crossed).toBeGreaterThan(0);
    expect(snapshots[crossed].controls.shedding).toBe(false);
    expect(snapshots[crossed + 1].controls.shedding).toBe(true);
    expect(snapshots.flatMap((s) => s.events).filter((e) => e.kind === 'control')).toHaveLength(1);
  });
  it.each([
    [['--on', 'sale-start'], /--on sale-start: give at least one key=value after it/],
    [['--on', 'speed>3', 'servers=8'], /unknown indicator "speed"/],
    [['--on', 'sale-start', 'servers=99'], /--on sale-start servers=99: servers: 99 is out of range/],
    [['--on', 'newTps=3', 'servers=8'], /expected EVENT\[\+d\], EVENT\.field<value\[\+d\].* or indicator<value/],
    [['servers=8'], /unexpected argument "servers=8"/],
    [['--set', 'servers=8', 'shedding=on'], /unexpected argument "shedding=on"/],
    [['--seed', '1', '--seed', '2'], /--seed given twice/],
  ])('%j exits 2 with a message', (extra, message) => {
    const out = runCli([...BASE, ...(extra as string[])]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(message as RegExp);
  });
  it('the table ends with the ledger against doing nothing and a calm hour; the result line carries it', () => {
    const out = runCli([
      ...BASE,
      '--format',
      'table',
      '--on',
      'sale-start',
      'servers=10',
      'shedding=on',
      'retryPolicy=backoff',
    ]);
    expect(out.stdout).toMatch(
      /ledger \(u\): ledgerCustomers [\d,]+ u, ledgerFriction [\d,]+ u, ledgerFraud [\d,]+ u, ledgerStandIn [\d,]+ u, costSoFar [\d,]+ u/,
    );
    expect(out.stdout).toMatch(
      /ledgerTotal [\d,]+ u; doing nothing [\d,]+ u; a calm hour [\d,]+ u; saving s = 0\.\d{3}/,
    );
    const { result } = lines([...BASE, '--on', 'sale-start', 'servers=10', 'shedding=on', 'retryPolicy=backoff']);
    expect(result.ledger.total).toBeLessThan(result.ledger.nothing);
    expect(result.ledger.saving).toBeGreaterThan(0.5);
    expect(result.score).toBeGreaterThan(500);
  });
});
