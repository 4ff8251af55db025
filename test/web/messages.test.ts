// Every simulator key the models define has its words in web/messages/en.json, under the naming
// the web app uses (web/lib/sims/*.ts); the other locales only hold keys English has.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { models } from '../../shared/sim/registry.ts';
import { ErrorCode } from '../../shared/protocol/errors.ts';

const dir = 'web/messages';
const load = (locale: string): Record<string, string> => JSON.parse(readFileSync(`${dir}/${locale}.json`, 'utf8'));
const en = load('en');
const prefix = { 'payment-switch': 'ps', 'web-service': 'ws' } as const;
const id = (s: string) => s.replace(/-/g, '_');

describe('messages', () => {
  for (const [sim, model] of Object.entries(models)) {
    const p = prefix[sim as keyof typeof prefix];
    test(`${sim}: controls, roles, indicators, scenarios and goals have English words`, () => {
      const missing: string[] = [];
      const need = (key: string) => {
        if (typeof en[key] !== 'string' || en[key].trim() === '') missing.push(key);
      };
      for (const c of model.controls) {
        need(`${p}_ctl_${c.key}`);
        need(`${p}_ctl_${c.key}_help`);
        if (c.kind === 'enum') for (const o of c.options) need(`${p}_opt_${c.key}_${o}`);
      }
      for (const r of model.roles) need(`${p}_role_${r.id}`);
      for (const i of model.indicators) need(`${p}_ind_${i.key}`);
      for (const s of model.scenarios) {
        need(`${p}_scn_${id(s.id)}`);
        need(`${p}_scn_${id(s.id)}_brief`);
        for (const g of s.goals) need(`${p}_goal_${id(s.id)}_${g.id}`);
      }
      expect(missing).toEqual([]);
    });
  }

  test('every full shift is named as one, in every language, as the first full shift is', () => {
    // The scenario list and the history name a 60-minute shift "Full shift · …" so that a teacher
    // picking a level or a shift sees which is which, in either simulator.
    const shifts = Object.entries(models).flatMap(([sim, model]) =>
      model.scenarios
        .filter((s) => s.kind === 'full-shift')
        .map((s) => `${prefix[sim as keyof typeof prefix]}_scn_${id(s.id)}`),
    );
    const others = Object.entries(models).flatMap(([sim, model]) =>
      model.scenarios
        .filter((s) => s.kind !== 'full-shift')
        .map((s) => `${prefix[sim as keyof typeof prefix]}_scn_${id(s.id)}`),
    );
    expect(shifts.length).toBeGreaterThanOrEqual(4);
    for (const f of readdirSync(dir).filter((x) => /^[a-z]{2}\.json$/.test(x))) {
      const words = load(f.replace(/\.json$/, ''));
      const mark = `${words[shifts[0]].split(' · ')[0]} · `;
      expect(mark.length, f).toBeGreaterThan(4);
      for (const k of shifts) expect(words[k].startsWith(mark), `${f} ${k}: ${words[k]}`).toBe(true);
      for (const k of others) expect(words[k].startsWith(mark), `${f} ${k}: ${words[k]}`).toBe(false);
    }
  });

  test('every protocol error code has a message', () => {
    expect(Object.values(ErrorCode).filter((c) => !en[`err_${c}`])).toEqual([]);
  });

  test('goal sentences take the target; keys are snake_case groups', () => {
    for (const [k, v] of Object.entries(en)) {
      if (k === '$schema') continue;
      expect(k, k).toMatch(/^[a-z][a-z0-9]*(_[A-Za-z0-9]+)*$/);
      if (/^(ps|ws)_goal_/.test(k)) expect(v, k).toContain('{target}');
    }
  });

  test('the other locales are valid JSON and hold no key English lacks', () => {
    // Locale files only: provenance.json and README.md live beside them.
    for (const f of readdirSync(dir).filter((x) => /^[a-z]{2}\.json$/.test(x))) {
      const extra = Object.keys(load(f.replace(/\.json$/, ''))).filter((k) => !(k in en));
      expect(extra, f).toEqual([]);
    }
  });
});
