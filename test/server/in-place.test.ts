// Two slots written over in turn (in-place.ts) hold exactly what the simulation made: the same JSON text, the
// same numbers by Object.is, nothing shared with the fresh objects, whatever the shape does from minute to minute.
import { describe, expect, test } from 'vitest';
import { ownedCopy, refill } from '../../server/rooms/in-place.ts';
import { randomControlValue } from '../../shared/sim/controls.ts';
import { changesByMinute, createRound, stepRound } from '../../shared/sim/engine.ts';
import { paymentSwitch } from '../../shared/sim/payment-switch/index.ts';
import { rngFromSeed, uniform } from '../../shared/sim/rng.ts';
import type { SimModel, SimStateBase } from '../../shared/sim/types.ts';
import { webService } from '../../shared/sim/web-service/index.ts';

/** Every number of `a` and `b` in the same place, compared with Object.is (−0 and NaN included). */
function sameNumbers(a: unknown, b: unknown, at = ''): string[] {
  if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b) ? [] : [`${at}: ${a} ≠ ${b}`];
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a === b ? [] : [at];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((k) => sameNumbers((a as never)[k], (b as never)[k], `${at}.${k}`));
}

/** Every object reachable from `v`. */
function objectsOf(v: unknown, into = new Set<object>()): Set<object> {
  if (typeof v === 'object' && v !== null && !into.has(v)) {
    into.add(v);
    for (const x of Object.values(v)) objectsOf(x, into);
  }
  return into;
}

describe('a team’s minute written in place, two slots in turn', () => {
  test.each<[SimModel, string]>([
    [paymentSwitch, 'fraud-wave'],
    [paymentSwitch, 'sale-day'],
    [webService, 'bad-deploy'],
    [webService, 'launch-day'],
  ])('every minute of a round with seeded changes equals the fresh one (%#)', (model, scenario) => {
    const rng = rngFromSeed(23);
    const changes = changesByMinute(
      Array.from({ length: 12 }, (_, i) => {
        const c = model.controls[Math.floor(uniform(rng) * model.controls.length)];
        return { minute: 1 + i * 4, key: c.key, value: randomControlValue(c, () => uniform(rng)) };
      }),
    );
    let fresh: SimStateBase = createRound(model, { scenario, seed: 5, noise: true });
    let current: SimStateBase = fresh;
    const slots: (SimStateBase | null)[] = [null, null];
    let replaced = 0;
    for (let m = 1; m <= 60; m++) {
      // The next minute is stepped from the slot, as the room does, and must equal the one stepped from the fresh run.
      const next = stepRound(model, current, changes.get(m) ?? []);
      fresh = stepRound(model, fresh, changes.get(m) ?? []);
      const i = m % 2;
      const before = slots[i];
      const slot = before ? refill(before, next) : ownedCopy(next);
      if (before && slot !== before) replaced++;
      slots[i] = slot;
      expect(JSON.stringify(slot), `${scenario} minute ${m}`).toBe(JSON.stringify(fresh));
      expect(sameNumbers(slot, fresh), `${scenario} minute ${m}`).toEqual([]);
      // Nothing in the slot is the fresh run's, nor the other slot's (the one the current state reads).
      const other = objectsOf(slots[1 - i]);
      for (const o of objectsOf(slot)) {
        expect(objectsOf(next).has(o)).toBe(false);
        expect(other.has(o)).toBe(false);
      }
      current = slot;
    }
    // A slot's top level keeps its shape for the whole round: it is written over, never made again.
    expect(replaced).toBe(0);
  });

  test('a part whose shape changes is replaced by a copy: keys in the new order, numbers exact', () => {
    const slot = ownedCopy({ minute: 1, indicators: { a: 1.5, b: 2 }, events: [] as object[], na: ['a'] });
    const without = { minute: 2, indicators: { a: -0, b: Number.NaN }, events: [{ kind: 'x', n: 3 }] };
    const written = refill(slot, without);
    expect(written).not.toBe(slot);
    expect(JSON.stringify(written)).toBe(JSON.stringify(without));
    expect(Object.is(written.indicators.a, -0)).toBe(true);
    expect(Number.isNaN(written.indicators.b)).toBe(true);
    const reordered = refill(ownedCopy({ x: { p: 1, q: 2 } }), { x: { q: 3, p: 4 } });
    expect(JSON.stringify(reordered)).toBe('{"x":{"q":3,"p":4}}');
    // The same shape: written over, the object kept, its list of another length replaced.
    const kept = ownedCopy({ minute: 1, indicators: { a: 1.5 }, events: [] as object[] });
    const again = refill(kept, { minute: 2, indicators: { a: 2.25 }, events: [{ kind: 'y' }] });
    expect(again).toBe(kept);
    expect(again).toEqual({ minute: 2, indicators: { a: 2.25 }, events: [{ kind: 'y' }] });
  });

  test('slots are plain objects to whatever reads them', () => {
    const slot = ownedCopy({ a: 1, b: { c: [1, 2] } });
    expect(Object.getPrototypeOf(slot)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(slot.b)).toBe(Object.prototype);
    expect(structuredClone(slot)).toStrictEqual({ a: 1, b: { c: [1, 2] } });
  });

  test('writing a slot over with its own objects is refused', () => {
    const slot = ownedCopy({ a: { b: 1 } });
    expect(() => refill(slot, slot)).toThrow(/must not share/);
    expect(() => refill(slot, { a: slot.a })).toThrow(/must not share/);
  });
});
