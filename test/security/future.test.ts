// What a student receives carries nothing of the seed's future (before: a student's join answer carried doing
// nothing's and the calm hour's ledger for every minute of the round — 61 entries at minute 1 of 60 — which show
// when and how hard each shock lands). Every number a student is sent during the round is searched for the
// references of the minutes still to come; after the round, the whole series is theirs.
import { afterEach, expect, test } from 'vitest';
import { roundBaseline } from '../../server/rooms/baseline.ts';
import { getModel } from '../../shared/sim/registry.ts';
import { advance, type Client, connect, createRoom, ok, startServer, type TestServer } from '../server/helpers.ts';

let server: TestServer;
afterEach(async () => server?.close());

/** Every event a client receives, in order. */
function record(c: Client): unknown[] {
  const got: unknown[] = [];
  c.onAny((_event: string, ...args: unknown[]) => got.push(args));
  return got;
}

/** Every number in a value, however deep. */
function numbers(v: unknown, out: number[] = []): number[] {
  if (typeof v === 'number') out.push(v);
  else if (Array.isArray(v)) for (const x of v) numbers(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) numbers(x, out);
  return out;
}

test('a student is sent nothing of the minutes to come: no reference of a later minute, on any path', async () => {
  server = await startServer();
  const { code, teacherKey } = await createRoom(server, {
    scenario: 'sale-day',
    teamCount: 1,
    minutes: 60,
    tempo: 1,
    seed: 4242,
  });
  const teacher = await connect(server);
  await ok(teacher, 'teacher:join', { code, key: teacherKey });
  const student = await connect(server);
  const received = record(student);
  const first = await ok(student, 'student:join', { code, name: 'Ana' });
  received.push(first);
  await ok(teacher, 'teacher:clock', { action: 'start' });
  await advance(server, 1000);
  // A reload at minute 1 (where the whole series used to be sent), and one at minute 20.
  const reload = async () => {
    const again = await connect(server);
    const r = await ok(again, 'student:join', { code, token: first.token });
    received.push(r);
    again.disconnect();
    return r;
  };
  const atOne = await reload();
  expect(atOne.history.baseline.total).toHaveLength(2);
  expect(atOne.history.baseline.calm).toHaveLength(2);
  for (let m = 1; m < 20; m++) await advance(server, 1000);
  const atTwenty = await reload();
  expect(atTwenty.history.baseline.total).toHaveLength(21);

  // The whole round's references, as the teacher's seed gives them: none after minute 20 was sent to the student.
  const full = roundBaseline(getModel('payment-switch'), {
    scenario: 'sale-day',
    seed: 4242,
    minutes: 60,
    noise: true,
  });
  expect(full.series.total).toHaveLength(61);
  const future = new Set(
    [...full.series.total.slice(21), ...full.series.calm.slice(21)].filter((x) => Math.abs(x) > 1),
  );
  expect(future.size).toBeGreaterThan(30);
  const sent = numbers(received);
  expect(sent.length).toBeGreaterThan(1000);
  expect(sent.filter((x) => future.has(x))).toEqual([]);
  // What was sent matches the references up to minute 20.
  expect(atTwenty.history.baseline.total).toEqual(full.series.total.slice(0, 21));

  // Once the round is over, the whole series is theirs (the debrief draws it).
  await ok(teacher, 'teacher:clock', { action: 'end' });
  const after = await reload();
  expect(after.history.baseline.total).toEqual(full.series.total.slice(0, 61));
});
