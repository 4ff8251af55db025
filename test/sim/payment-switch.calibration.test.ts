// Payment switch: the seed's opening screen reproduced to its shown digits, and the model's
// definitions (controls, roles, indicators, scenarios, goals) exactly as the spec and seed give them.
import { describe, expect, it } from 'vitest';
import { formatDisplay } from '../../shared/format.ts';
import { createRound } from '../../shared/sim/engine.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';

// The seed page's indicator block (English digits), free play, default controls, noise off.
const SEED_OPENING: Record<string, string> = {
  goodApproval: '99.9 %',
  authTimeMs: '330 ms',
  fraudRateBp: '10.4 bp',
  slotsBusy: '69 %',
  healthyApproval: '99.9 %',
  goodDeclinedByRule: '1.3 ‰',
  stepUpShare: '0.0 %',
  fraudStopped: '31 %',
  newTps: '400 tx/s',
  offeredTps: '400 tx/s',
  retryTps: '0 tx/s',
  shedTps: '0 tx/s',
  queueDropShare: '0.0 %',
  issuerTimeoutShare: '0.0 %',
  standInTps: '0 tx/s',
  serversInService: '6',
  serversBooting: '0',
  costRatePerHour: '36 u/h',
  costSoFar: '0 u',
  standInExposure: '0.00 M u',
  fraudApprovedSoFar: '0.00 M u',
  goodLostSoFar: '0.0 k tx',
  awaitingRetry: '0 tx',
  groupBLatencyMs: '250 ms',
};

describe('payment switch: calibration (free play, defaults, noise off, minute 0)', () => {
  const opening = createRound(paymentSwitch, { scenario: 'free', seed: 1, noise: false }).snapshot;

  it.each(Object.entries(SEED_OPENING))('%s shows %s', (key, shown) => {
    const def = paymentSwitch.indicators.find((i) => i.key === key)!;
    expect(formatDisplay(def.display, opening.indicators[key], 'en')).toBe(shown);
  });
  it('shows every indicator the seed shows, in its order, then the ledger lines (all 0 u at the opening)', () => {
    const ledger = ['ledgerCustomers', 'ledgerFriction', 'ledgerFraud', 'ledgerStandIn', 'ledgerTotal'];
    expect(paymentSwitch.indicators.map((i) => i.key)).toEqual([...Object.keys(SEED_OPENING), ...ledger]);
    expect(Object.keys(opening.indicators).sort()).toEqual([...Object.keys(SEED_OPENING), ...ledger].sort());
    for (const k of ledger) expect(opening.indicators[k]).toBe(0);
    expect(paymentSwitch.ledger).toEqual({
      currency: 'u',
      items: ['ledgerCustomers', 'ledgerFriction', 'ledgerFraud', 'ledgerStandIn', 'costSoFar'],
      total: 'ledgerTotal',
    });
    expect(opening.na).toBeUndefined();
  });
  it('the four headline indicators are "normal", as on the seed page', () => {
    expect(paymentSwitch.indicators.filter((i) => i.headline).map((i) => i.key)).toEqual([
      'goodApproval',
      'authTimeMs',
      'fraudRateBp',
      'slotsBusy',
    ]);
    expect(opening.status).toEqual({
      goodApproval: 'normal',
      authTimeMs: 'normal',
      fraudRateBp: 'normal',
      slotsBusy: 'normal',
    });
  });
  it('the Italian page shows the same digits in its format', () => {
    const d = (k: string) => paymentSwitch.indicators.find((i) => i.key === k)!.display;
    expect(formatDisplay(d('goodApproval'), opening.indicators.goodApproval, 'it')).toBe('99,9 %');
    expect(formatDisplay(d('fraudRateBp'), opening.indicators.fraudRateBp, 'it')).toBe('10,4 bp');
    expect(formatDisplay(d('goodDeclinedByRule'), opening.indicators.goodDeclinedByRule, 'it')).toBe('1,3 ‰');
  });
  it('the opening figures follow from the spec formulas', () => {
    // S = 80 ms + φ·250 ms (T = 8 s ≫ 250 ms), φ = 0.999·Φ(3) + 0.001·Φ(0.5); busy = 400·S/192.
    const phi = 0.999 * 0.9986501019683699 + 0.001 * 0.6914624612740131;
    const s = 0.08 + phi * 0.25 * (1 - Math.exp(-32)) + phi * Math.exp(-32) * 0.08;
    expect(opening.indicators.authTimeMs).toBeCloseTo(s * 1000, 4); // the wait at 69 % busy is ~3 ns
    expect(opening.indicators.slotsBusy).toBeCloseTo((400 * s) / 192, 12);
    const fraud = 0.001 * 0.6914624612740131 * 60 * Math.exp(0.5);
    const genuine = 0.999 * 0.9986501019683699 * 40 * Math.exp(0.5);
    expect(opening.indicators.fraudRateBp).toBeCloseTo((fraud / (fraud + genuine)) * 1e4, 9);
  });
});

describe('payment switch: definitions', () => {
  it('seven controls with the spec kinds, ranges, defaults and units', () => {
    expect(paymentSwitch.controls).toEqual([
      { key: 'servers', role: 'scaling', kind: 'number', min: 2, max: 24, step: 1, default: 6, unit: 'count' },
      { key: 'shedding', role: 'shedding', kind: 'bool', default: false },
      { key: 'retryPolicy', role: 'shedding', kind: 'enum', options: ['immediate', 'backoff'], default: 'immediate' },
      {
        key: 'fraudThreshold',
        role: 'fraud',
        kind: 'number',
        min: 0.5,
        max: 5.0,
        step: 0.1,
        default: 3.0,
        unit: 'sigma',
      },
      { key: 'stepUpBand', role: 'fraud', kind: 'number', min: 0, max: 3.0, step: 0.1, default: 0, unit: 'sigma' },
      { key: 'issuerTimeoutS', role: 'standin', kind: 'number', min: 0.5, max: 15, step: 0.1, default: 8, unit: 's' },
      { key: 'standInLimit', role: 'standin', kind: 'number', min: 0, max: 1000, step: 1, default: 0, unit: 'u' },
    ]);
  });
  it('four roles in deal order, each owning its controls', () => {
    expect(paymentSwitch.roles.map(({ id, controls }) => ({ id, controls }))).toEqual([
      { id: 'scaling', controls: ['servers'] },
      { id: 'shedding', controls: ['shedding', 'retryPolicy'] },
      { id: 'fraud', controls: ['fraudThreshold', 'stepUpBand'] },
      { id: 'standin', controls: ['issuerTimeoutS', 'standInLimit'] },
    ]);
    for (const c of paymentSwitch.controls)
      expect(paymentSwitch.roles.find((r) => r.id === c.role)!.controls).toContain(c.key);
  });
  it("split view: each role sees detail indicators only (headline and ledger are everyone's), and every detail indicator is seen by someone or is a running figure", () => {
    const byKey = new Map(paymentSwitch.indicators.map((i) => [i.key, i]));
    const seen = new Set(paymentSwitch.roles.flatMap((r) => r.sees));
    for (const k of seen) {
      expect(byKey.get(k), k).toBeDefined();
      expect(byKey.get(k)!.headline, k).toBeFalsy();
      expect(
        [...paymentSwitch.ledger.items, paymentSwitch.ledger.total].filter((x) => x !== 'costSoFar'),
        k,
      ).not.toContain(k);
    }
    expect(paymentSwitch.roles.find((r) => r.id === 'standin')!.sees).toContain('groupBLatencyMs');
    expect(paymentSwitch.roles.find((r) => r.id === 'scaling')!.sees).not.toContain('groupBLatencyMs');
  });
  it('displays as the brief fixes them; table columns are indicators', () => {
    const d = Object.fromEntries(paymentSwitch.indicators.map((i) => [i.key, i.display]));
    expect(d.goodApproval).toEqual({ scale: 100, digits: 1, unit: '%' });
    expect(d.authTimeMs).toEqual({ scale: 1, digits: 0, unit: 'ms' });
    expect(d.fraudRateBp).toEqual({ scale: 1, digits: 1, unit: 'bp' });
    expect(d.slotsBusy).toEqual({ scale: 100, digits: 0, unit: '%' });
    expect(d.goodDeclinedByRule).toEqual({ scale: 1000, digits: 1, unit: '‰' });
    expect(d.standInExposure).toEqual({ scale: 1e-6, digits: 2, unit: 'M u' });
    expect(d.goodLostSoFar).toEqual({ scale: 1e-3, digits: 1, unit: 'k tx' });
    expect(d.newTps).toEqual({ scale: 1, digits: 0, unit: 'tx/s' });
    for (const k of paymentSwitch.tableColumns) expect(d[k]).toBeDefined();
    expect(paymentSwitch.tableColumns).toEqual(
      expect.arrayContaining([
        'offeredTps',
        'retryTps',
        'shedTps',
        'queueDropShare',
        'serversInService',
        'serversBooting',
        'costSoFar',
        'standInExposure',
      ]),
    );
  });
  it('scenarios and goals carry the seed numbers', () => {
    expect(paymentSwitch.defaultMinutes).toBe(60);
    const byId = Object.fromEntries(paymentSwitch.scenarios.map((s) => [s.id, s]));
    expect(Object.keys(byId)).toEqual([
      'free',
      'sale-surge',
      'fraud-wave',
      'issuer-outage',
      'black-friday',
      'sale-day',
      'issuer-trouble',
    ]);
    expect(paymentSwitch.scenarios.map((s) => s.kind)).toEqual([
      'free',
      'classic',
      'classic',
      'classic',
      'full-shift',
      'full-shift',
      'full-shift',
    ]);
    expect(paymentSwitch.scenarios.filter((s) => s.retired).map((s) => s.id)).toEqual(['sale-day', 'issuer-trouble']);
    expect(byId.free.goals).toEqual([]);
    expect(byId['sale-surge'].level).toBe(1);
    expect(byId['sale-surge'].goals).toEqual([
      { id: 'approval', indicator: 'goodApproval', aggregate: 'mean', from: 5, op: '>=', target: 0.95 },
      { id: 'authTime', indicator: 'authTimeMs', aggregate: 'mean', op: '<=', target: 500 },
      { id: 'cost', indicator: 'costSoFar', aggregate: 'final', op: '<=', target: 75 },
    ]);
    expect(byId['fraud-wave'].level).toBe(2);
    expect(byId['fraud-wave'].goals).toEqual([
      { id: 'fraudRate', indicator: 'fraudRateBp', aggregate: 'mean', op: '<=', target: 25 },
      { id: 'approval', indicator: 'goodApproval', aggregate: 'mean', op: '>=', target: 0.98 },
      { id: 'declinedByRule', indicator: 'goodDeclinedByRule', aggregate: 'mean', op: '<=', target: 0.005 },
    ]);
    expect(byId['issuer-outage'].level).toBe(3);
    expect(byId['issuer-outage'].goals).toEqual([
      { id: 'healthyApproval', indicator: 'healthyApproval', aggregate: 'mean', op: '>=', target: 0.9 },
      { id: 'approval', indicator: 'goodApproval', aggregate: 'mean', op: '>=', target: 0.86 },
      { id: 'exposure', indicator: 'standInExposure', aggregate: 'final', op: '<=', target: 9e6 },
      { id: 'cost', indicator: 'costSoFar', aggregate: 'final', op: '<=', target: 65 },
    ]);
  });
  it('every crisis opens on the seed defaults: 6 servers, immediate retries, 3σ, no step-up, 8 s, no stand-in', () => {
    for (const scenario of ['sale-surge', 'fraud-wave', 'issuer-outage']) {
      const s = createRound(paymentSwitch, { scenario, seed: 1, noise: false }).snapshot;
      expect(s.controls).toEqual({
        servers: 6,
        shedding: false,
        retryPolicy: 'immediate',
        fraudThreshold: 3,
        stepUpBand: 0,
        issuerTimeoutS: 8,
        standInLimit: 0,
      });
      expect(s.indicators.serversInService).toBe(6);
    }
  });
});
