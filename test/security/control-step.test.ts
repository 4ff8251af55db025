// Control values off the step (issue 13 item 11): floating-point noise is snapped onto the step, anything
// further off is refused — the same rule in the engine, the CLI and the server, where the snapped value is
// the one answered, stored and applied.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../../server/cli/sim-cli.ts';
import { ControlError, parseControlValue, validateChange } from '../../shared/sim/controls.ts';
import { getModel } from '../../shared/sim/registry.ts';
import {
  advance,
  collect,
  connect,
  createRoom,
  ok,
  request,
  startServer,
  until,
  type TestServer,
} from '../server/helpers.ts';

const ps = getModel('payment-switch');

describe('validateChange', () => {
  test('a value a typo or a float32 away from the step is refused', () => {
    for (const [key, value] of [
      ['servers', 8.9999999],
      ['servers', 9.000001],
      ['fraudThreshold', 2.5000001],
      ['standInLimit', 10.0000001],
    ] as const) {
      expect(() => validateChange(ps, { key, value }), `${key}=${value}`).toThrow(ControlError);
      try {
        validateChange(ps, { key, value });
      } catch (e) {
        expect((e as ControlError).code).toBe('OFF_STEP');
      }
    }
  });

  test('floating-point noise is snapped exactly onto the step', () => {
    expect(validateChange(ps, { key: 'fraudThreshold', value: 0.5 + 7 * 0.1 })).toEqual({
      key: 'fraudThreshold',
      value: 1.2,
    });
    expect(validateChange(ps, { key: 'stepUpBand', value: 0.1 + 0.2 })).toEqual({ key: 'stepUpBand', value: 0.3 });
    expect(validateChange(ps, { key: 'servers', value: 9 + 4e-15 }).value).toBe(9);
    expect(parseControlValue(ps, 'stepUpBand', String(0.1 + 0.2))).toBe(0.3);
  });
});

test('the CLI refuses servers=8.9999999 with exit code 2', () => {
  const out = runCli([
    '--model',
    'payment-switch',
    '--scenario',
    'sale-surge',
    '--minutes',
    '2',
    '--set',
    'servers=8.9999999',
  ]);
  expect(out.code).toBe(2);
  expect(out.stderr).toMatch(/servers: 8\.9999999 is not a multiple of the step 1/);
  const noisy = runCli([
    '--model',
    'payment-switch',
    '--scenario',
    'sale-surge',
    '--minutes',
    '0',
    '--noise',
    'off',
    '--set',
    `stepUpBand=${0.1 + 0.2}`,
  ]);
  expect(noisy.code, noisy.stderr).toBe(0);
  expect(JSON.parse(noisy.stdout.split('\n')[0]).controls.stepUpBand).toBe(0.3);
});

describe('the server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  test('servers = 8.9999999 is refused and never reaches the simulation', async () => {
    const { code, teacherKey } = await createRoom(server, { teamCount: 1, minutes: 5 });
    const teacher = await connect(server);
    await ok(teacher, 'teacher:join', { code, key: teacherKey });
    const student = await connect(server);
    await ok(student, 'student:join', { code, name: 'Ann' });
    await ok(teacher, 'teacher:clock', { action: 'start' });
    const r = await request(student, 'student:control', { key: 'servers', value: 8.9999999 });
    expect(r).toMatchObject({ ok: false, error: { code: 'OUT_OF_RANGE', key: 'servers' } });
    const roundId = (await server.app.rooms.get(code)).round.id;
    expect(await server.app.store.changesOfRound(roundId)).toHaveLength(0);
    await ok(student, 'student:control', { key: 'servers', value: 9 });
    await advance(server, 5000);
    expect((await server.app.store.changesOfRound(roundId)).map((c) => c.value)).toEqual([9]);
  });

  test('floating-point noise is answered, stored and applied as the value on the step', async () => {
    const { code, teacherKey } = await createRoom(server, { teamCount: 1, minutes: 5 });
    const teacher = await connect(server);
    await ok(teacher, 'teacher:join', { code, key: teacherKey });
    const student = await connect(server);
    await ok(student, 'student:join', { code, name: 'Bea' });
    await ok(teacher, 'teacher:clock', { action: 'start' });
    const minutes = collect(student, 'minute');
    const noisy = 0.1 + 0.2;
    expect(noisy).not.toBe(0.3);
    const r = await ok(student, 'student:control', { key: 'stepUpBand', value: noisy });
    expect(r.change.value).toBe(0.3);
    const room = await server.app.rooms.get(code);
    expect((await server.app.store.changesOfRound(room.round.id)).map((c) => c.value)).toEqual([0.3]);
    await advance(server, 5000);
    const first = () => minutes.find((m) => m.snapshot.minute === 1);
    await until(() => first() !== undefined, 'minute 1');
    expect(first()!.snapshot.controls.stepUpBand).toBe(0.3);
    expect((await room.historyOf(first()!.teamId))!.snapshots.at(-1)!.controls.stepUpBand).toBe(0.3);
  });
});
