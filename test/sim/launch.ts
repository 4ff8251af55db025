// The product launch's round as a list of states (the engine's, so the release train and the drawn builds can be
// read beside each minute's snapshot), for the tests of the shift's shocks and of its role policies.
import { createRound, stepRound } from '../../shared/sim/engine.ts';
import type { ScheduledChange, Snapshot } from '../../shared/sim/types.ts';
import type { Episodes, Train } from '../../shared/sim/web-service/episodes.ts';
import { webService } from '../../shared/sim/web-service/index.ts';

export interface LaunchState {
  train: Train;
  episodes: Episodes;
  snapshot: Snapshot;
}

/** Minutes 0–60 of the product launch on `seed` (noise on) with `changes` applied at their minutes. */
export function launchStates(seed: number, changes: readonly ScheduledChange[] = []): LaunchState[] {
  let s = createRound(webService, { scenario: 'product-launch', seed, noise: true });
  const states = [s];
  for (let m = 1; m <= 60; m++) {
    s = stepRound(
      webService,
      s,
      changes.filter((c) => c.minute === m).map(({ key, value }) => ({ key, value })),
    );
    states.push(s);
  }
  return states as unknown as LaunchState[];
}

/** The minutes a build went out. */
export const deploys = (states: readonly LaunchState[]): number[] =>
  states.filter((s) => s.snapshot.events.some((e) => e.kind === 'deploy')).map((s) => s.snapshot.minute);
