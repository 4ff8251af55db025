// The documented play of each web-service scenario, as `npm run sim` arguments after
// `--model web-service --scenario ID`. The model page (docs/models/web-service.md) quotes them and
// test/sim/web-service.plays.test.ts runs them through the CLI for seeds 1–20. Every play reacts to
// what the desk shows (events, indicators crossing a value), never to known minutes.
import { shellLine } from '../../design/play.ts';

export const PLAYS: Readonly<Record<string, readonly string[]>> = {
  // Run lean; roll back the moment the build goes live; switch the feature off just before the
  // switch back (the old build cannot read the new build's cache entries), warm the cache, then
  // bring the feature back.
  'bad-deploy': [
    '--set',
    'minInstances=7',
    '--set',
    'targetUtilization=0.85',
    '--on',
    'deploy',
    'rollback=press',
    '--on',
    'deploy+4',
    'heavyFeature=off',
    '--on',
    'rollback-done',
    'warmUp=press',
    '--on',
    'warmup-done',
    'heavyFeature=on',
  ],
  // Bridge the 8-minute boot (shed, feature off), order the fleet, warm the cooling cache, shed the
  // crawler that follows the link, roll back the release that lands in the middle of it.
  'traffic-surge': [
    '--on',
    'surge-start',
    'shedLowPriority=1',
    'heavyFeature=off',
    'minInstances=20',
    'targetUtilization=0.85',
    '--on',
    'surge-start+1',
    'warmUp=press',
    '--on',
    'warmup-done',
    'heavyFeature=on',
    '--on',
    'instancesServing>18',
    'shedLowPriority=0',
    'minInstances=10',
    '--on',
    'crawler-start',
    'shedLowPriority=1',
    '--on',
    'crawler-end',
    'shedLowPriority=0',
    '--on',
    'deploy',
    'rollback=press',
  ],
  // The flush comes with a release: degrade at once and roll the release back before its script runs
  // again; warm the cache once the old build is back, then restore the feature.
  'cache-flush': [
    '--set',
    'minInstances=7',
    '--set',
    'targetUtilization=0.85',
    '--on',
    'cache-flush',
    'heavyFeature=off',
    'rollback=press',
    '--on',
    'rollback-done',
    'warmUp=press',
    '--on',
    'warmup-done',
    'heavyFeature=on',
  ],
  'launch-day': [
    '--on',
    'surge-start',
    'minInstances=16',
    '--on',
    'crawler-start',
    'shedLowPriority=1',
    '--on',
    'crawler-end',
    'shedLowPriority=0',
    '--on',
    'deploy',
    'rollback=press',
    '--on',
    'cache-flush',
    'heavyFeature=off',
    '--on',
    'cache-flush+1',
    'warmUp=press',
    '--on',
    'warmup-done',
    'heavyFeature=on',
  ],
  failover: [
    '--on',
    'db-failover',
    'cacheTtlS=200',
    '--on',
    'db-restored',
    'cacheTtlS=60',
    '--on',
    'crawler-start',
    'shedLowPriority=1',
    '--on',
    'crawler-end',
    'shedLowPriority=0',
    '--on',
    'deploy',
    'rollback=press',
    '--on',
    'surge-start',
    'minInstances=18',
    '--on',
    'surge-end',
    'minInstances=10',
  ],
};

/** The documented play as the model page prints it: seed 1, as a table. */
export function playCommand(scenario: string): string {
  return `npm run sim -- --model web-service --scenario ${scenario} --seed 1 ${shellLine(PLAYS[scenario] ?? [])} --format table`;
}
