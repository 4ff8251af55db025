// What a round plays, as content: every built-in read back from its stored text is the definition the code plays (so
// a built-in round recorded by hash plays as before), and a stored content that differs from the code — a built-in
// reworked since the round was played — is played as it was stored.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { scenarioDef } from '../../shared/sim/engine.ts';
import { models } from '../../shared/sim/registry.ts';
import { contentFor } from '../../server/rooms/round.ts';
import {
  builtInContent,
  contentHash,
  contentOfFile,
  ownScenario,
  playOf,
  readContent,
} from '../../server/rooms/scenario-content.ts';
import { parseScenarioFile } from '../../shared/scenarios/load.ts';

describe('built-ins as content', () => {
  const all = Object.values(models).flatMap((m) => m.scenarios.map((s) => [m.id, s.id] as const));

  test.each(all)('%s/%s: its text reads back to the definition the code plays', (sim, id) => {
    const c = builtInContent(sim, id)!;
    expect(c.hash).toBe(contentHash(c.text));
    const back = readContent({ hash: `${c.hash}-read`, simulator: sim, text: c.text });
    expect(back.def).toEqual(scenarioDef(models[sim], id));
    // The current built-in plays the model itself (the same object every built-in round shares).
    expect(playOf(sim, id, c).model).toBe(models[sim]);
  });

  test('a built-in stored before a rework plays as it was stored', () => {
    const c = builtInContent('payment-switch', 'sale-surge')!;
    const before = JSON.parse(c.text);
    before.goals[0].target = 0.5;
    before.minutes = 33;
    const text = JSON.stringify(before);
    const old = readContent({ hash: contentHash(text), simulator: 'payment-switch', text });
    const { model, def } = playOf('payment-switch', 'sale-surge', old);
    expect(model).not.toBe(models['payment-switch']);
    expect(def.goals[0].target).toBe(0.5);
    expect(model.scenarios.find((s) => s.id === 'sale-surge')).toBe(def);
    // A new round of that built-in plays the code's version, whatever the room's last round played.
    expect(contentFor({ simulator: 'payment-switch', scenario: 'sale-surge' }, old)).toBe(c);
    // A round without a hash (stored before contents were kept) plays the built-in by its id.
    expect(playOf('payment-switch', 'sale-surge', undefined).def).toBe(
      scenarioDef(models['payment-switch'], 'sale-surge'),
    );
  });
});

test('a teacher’s own scenario tells the desks its score rule when the file names one, so a replay scores as stored', () => {
  const example = JSON.parse(readFileSync(new URL('../../docs/scenarios/late-sale.json', import.meta.url), 'utf8'));
  const file = (extra: object) => parseScenarioFile({ ...example, id: 'ruled', ...extra });
  expect(ownScenario(contentOfFile(file({ scoreRule: 1 })))?.scoreRule).toBe(1);
  expect(ownScenario(contentOfFile(file({})))).not.toHaveProperty('scoreRule');
  // A built-in's words and rule are the app's own: nothing is sent.
  expect(ownScenario(builtInContent('payment-switch', 'black-friday') ?? null)).toBeUndefined();
});
