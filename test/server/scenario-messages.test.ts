// A scenario file's messages reach every desk at their minute — minute 0 with the opening screen — as an event of that
// minute carrying the file's words in each language it gives; the desk says it in its reader's language, else in
// English (never the event's key).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { SimEvent } from '../../shared/sim/types.ts';
import { eventText } from '../../web/lib/components/desk/change-text.ts';
import { overwriteGetLocale } from '../../web/lib/paraglide/runtime.js';
import { sim as simOf } from '../../web/lib/sims/index.ts';
import { collect, connect, ok, startServer, until, type TestServer } from './helpers.ts';

const EXAMPLE = JSON.parse(readFileSync(new URL('../../docs/scenarios/late-sale.json', import.meta.url), 'utf8'));
const MINE = {
  ...EXAMPLE,
  id: 'told-sale',
  messages: [
    { minute: 0, text: { en: 'Welcome to the desk.', hu: 'Üdv a pultnál.' } },
    { minute: 2, text: { en: 'The sale is coming.' } },
  ],
};

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

test('each message at its minute, on every desk, in the reader’s language when the file has it', async () => {
  const made = await server.app.inject({ method: 'POST', url: '/api/rooms', payload: { teamCount: 2, tempo: 1 } });
  const { code, teacherKey } = made.json();
  const saved = await server.app.inject({
    method: 'POST',
    url: '/api/teacher/scenarios',
    headers: { authorization: `Bearer ${teacherKey}`, 'content-type': 'application/json' },
    payload: JSON.stringify(MINE),
  });
  expect(saved.statusCode).toBe(201);
  const teacher = await connect(server);
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  await ok(teacher, 'teacher:configure', { scenario: 'told-sale' });
  const desks: ReturnType<typeof collect<'minute'>>[] = [];
  for (const name of ['Ana', 'Bo']) {
    const c = await connect(server);
    await ok(c, 'student:join', { code, name });
    desks.push(collect(c, 'minute'));
  }
  await ok(teacher, 'teacher:clock', { action: 'start' });
  for (let i = 0; i < 3; i++) {
    await server.app.rooms.settled();
    if (i < 2) server.clock.advance(1000);
  }
  await until(() => desks.every((d) => d.length === 3), 'minutes 0–2 on both desks');
  const told = (minutes: { snapshot: { events: SimEvent[] } }[]) =>
    minutes.map((m) => m.snapshot.events.filter((e) => e.kind === 'scenario-message'));
  for (const d of desks) {
    const [at0, at1, at2] = told(d);
    expect(at0).toEqual([
      { kind: 'scenario-message', index: 0, text: 'Welcome to the desk.', 'text.hu': 'Üdv a pultnál.' },
    ]);
    expect(at1).toEqual([]);
    expect(at2).toEqual([{ kind: 'scenario-message', index: 1, text: 'The sale is coming.' }]);
  }

  const sim = simOf('payment-switch');
  const [[opening], , [sale]] = told(desks[0]);
  overwriteGetLocale(() => 'hu');
  expect(eventText(sim, opening)).toBe('Üdv a pultnál.');
  expect(eventText(sim, sale)).toBe('The sale is coming.');
  overwriteGetLocale(() => 'en');
  expect(eventText(sim, opening)).toBe('Welcome to the desk.');
});
