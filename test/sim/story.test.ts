// The story holds: a control the scenario's story takes away is refused — with the reason — by the engine,
// the CLI and the classroom's shared check (the server's control transition calls it; test/server/
// transitions.test.ts), from the opening screen until the story gives it back.
import { describe, expect, it } from 'vitest';
import { runCli } from '../../server/cli/sim-cli.ts';
import { refuseUnavailable } from '../../shared/classroom/story.ts';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { ControlError, ControlErrorCode } from '../../shared/sim/controls.ts';
import { createRound, stepRound } from '../../shared/sim/engine.ts';
import { drawEpisodes, unavailableAt } from '../../shared/sim/web-service/episodes.ts';
import { webService } from '../../shared/sim/web-service/index.ts';
import type { Draw } from '../../shared/sim/web-service/shocks.ts';

const open = () => createRound(webService, { scenario: 'product-launch', seed: 3, noise: true });

describe('the product launch: the autoscaler is being migrated', () => {
  it('the opening screen and every minute say autoscaling is unavailable, and why', () => {
    let s = open();
    expect(s.snapshot.unavailable).toEqual({ autoscaling: 'autoscaler-away' });
    expect(s.snapshot.controls.autoscaling).toBe(false);
    // Each minute says what a change made now would meet (the minute after it); the last minute has none.
    for (let m = 1; m < 60; m++) {
      s = stepRound(webService, s, []);
      expect(s.snapshot.unavailable?.autoscaling, `minute ${m}`).toBe('autoscaler-away');
      expect(s.snapshot.controls.autoscaling).toBe(false);
    }
  });

  it('the engine refuses to turn it on — before the opening and during the round — and changes nothing', () => {
    expect(() =>
      createRound(webService, {
        scenario: 'product-launch',
        seed: 3,
        noise: true,
        changes: [{ key: 'autoscaling', value: true }],
      }),
    ).toThrow(ControlError);
    const s = stepRound(webService, open(), []);
    const before = JSON.stringify(s);
    try {
      stepRound(webService, s, [{ key: 'autoscaling', value: true }]);
      expect.unreachable('an unavailable control was accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(ControlError);
      expect((e as ControlError).code).toBe(ControlErrorCode.UNAVAILABLE);
      expect((e as Error).message).toContain('autoscaler-away');
    }
    expect(JSON.stringify(s)).toBe(before);
    // Its other controls still work.
    expect(stepRound(webService, s, [{ key: 'minInstances', value: 20 }]).snapshot.controls.minInstances).toBe(20);
  });

  it('the CLI refuses it with the reason and exit code 2; a retired scenario without the story accepts it', () => {
    for (const args of [
      ['--set', 'autoscaling=on'],
      ['--set', 'autoscaling=on@5'],
      ['--on', 'surge-start', 'autoscaling=on'],
    ]) {
      const out = runCli(['--model', 'web-service', '--scenario', 'product-launch', '--seed', '1', ...args]);
      expect(out.code, args.join(' ')).toBe(2);
      expect(out.stderr).toMatch(/autoscaling is unavailable.*autoscaler-away/);
    }
    expect(
      runCli(['--model', 'web-service', '--scenario', 'launch-day', '--seed', '1', '--set', 'autoscaling=on']).code,
    ).toBe(0);
  });

  it('the classroom check refuses it as CONTROL_UNAVAILABLE, naming the control and the reason', () => {
    const s = open().snapshot;
    try {
      refuseUnavailable(s, 'autoscaling');
      expect.unreachable('an unavailable control was accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(ClassroomError);
      expect((e as ClassroomError).code).toBe(ErrorCode.CONTROL_UNAVAILABLE);
      expect((e as ClassroomError).extra).toMatchObject({ key: 'autoscaling', allowed: 'autoscaler-away' });
    }
    expect(() => refuseUnavailable(s, 'minInstances')).not.toThrow();
  });
});

it('a migration that ends gives the control back from the minute the story says', () => {
  const draw: Draw = { int: (lo) => lo, real: (lo) => lo };
  const ep = drawEpisodes([{ kind: 'no-autoscaler', start: [10, 10], length: [15, 15] }], draw, false);
  expect(unavailableAt(ep, 9)).toEqual({});
  expect(unavailableAt(ep, 10)).toEqual({ autoscaling: { reason: 'autoscaler-away', value: false } });
  expect(unavailableAt(ep, 24)).toEqual({ autoscaling: { reason: 'autoscaler-away', value: false } });
  expect(unavailableAt(ep, 25)).toEqual({});
});
