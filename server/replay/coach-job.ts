// One team's search, wherever it runs (the coach's thread, a bench, a tool): the round's baseline, then
// the search, timed.
import { coachTeam } from '../../shared/design/coach.ts';
import { withScenario } from '../../shared/scenarios/model.ts';
import { getModel } from '../../shared/sim/registry.ts';
import { roundBaseline } from '../rooms/baseline.ts';
import type { CoachDone, CoachJob, CoachRunner } from './coach.ts';

export function runCoachJob(job: CoachJob): CoachDone {
  const t0 = performance.now();
  const model = job.def ? withScenario(getModel(job.simulator), job.def) : getModel(job.simulator);
  const baseline = roundBaseline(model, {
    scenario: job.scenario,
    seed: job.seed,
    minutes: job.minutes,
    noise: job.noise,
  }).run;
  const result = coachTeam(
    {
      model,
      scenario: job.scenario,
      seed: job.seed,
      noise: job.noise,
      minute: job.minute,
      baseline,
      changes: job.changes,
    },
    job.options,
  );
  return { result, ms: performance.now() - t0 };
}

/** Searches on the calling thread (tools and benches; the server uses the coach's thread). */
export const inlineRunner: CoachRunner = {
  run: async (job) => runCoachJob(job),
  close: async () => {},
};
