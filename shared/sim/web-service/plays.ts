// The documented sensible play of each crisis scenario, as `npm run sim` --set flags. The model page
// (docs/models/web-service.md) quotes these lines and the calibration tests replay them for seeds 1–5.
export const SENSIBLE_PLAYS: Readonly<Record<string, readonly string[]>> = {
  // The error rate jumps with the bad build's share at 09:10: roll back at once, do not wait for the page.
  'bad-deploy': ['rollback=press@11'],
  // A surge of up to ×3 is coming within minutes 10–30 and boots take 8 minutes: pre-scale to a
  // fleet that carries ×3 at ~90 % and let the autoscaler track a high target instead of 60 %.
  'traffic-surge': ['minInstances=18@1', 'targetUtilization=0.85@1'],
  // After the flush: degrade gracefully (one query and 20 ms less per request), warm the cache once the
  // database has headroom, and bring the feature back after the job.
  'cache-flush': ['heavyFeature=off@6', 'warmUp=press@7', 'heavyFeature=on@14'],
};

/** The play as a command line, as the model page prints it. */
export function playCommand(scenario: string): string {
  const sets = (SENSIBLE_PLAYS[scenario] ?? []).map((s) => `--set ${s}`).join(' ');
  return `npm run sim -- --model web-service --scenario ${scenario} --seed 1 ${sets}`.trimEnd();
}
