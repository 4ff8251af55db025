// The editor's dry run, pure (the Web Worker runs it; node tests call it): the preview — what doing nothing and
// a team of careful bots do on three seeds, minute by minute, for every indicator a goal names — then the
// teaching check (`checkTeaching`: five seeds, the careless team, a quick search of fixed postures).
import { makeBench, resultOf, specOf } from '$shared/design/evaluate.ts';
import { playTeam, teamOf } from '$shared/policies/team.ts';
import { toDef } from '$shared/scenarios/def.ts';
import type { ScenarioFile } from '$shared/scenarios/format.ts';
import { withScenario } from '$shared/scenarios/model.ts';
import { checkTeaching, type TeachingReport } from '$shared/scenarios/teaching.ts';
import { getModel } from '$shared/sim/registry.ts';
import type { Snapshot } from '$shared/sim/types.ts';

export const PREVIEW_SEEDS = [1, 2, 3] as const;

/** One strategy on one seed: each charted indicator's value at every minute, and whether every goal was met. */
export interface PreviewRun {
  seed: number;
  won: boolean;
  series: Record<string, number[]>;
}
export interface Preview {
  minutes: number;
  nothing: PreviewRun[];
  careful: PreviewRun[];
}

/** What the worker sends back: the preview first (fast), then the teaching report; or why it failed. */
export type DryRunMessage =
  | { id: number; kind: 'preview'; preview: Preview }
  | { id: number; kind: 'teaching'; report: TeachingReport }
  | { id: number; kind: 'failed'; message: string };
/** What the page sends: a checked file (schema and meaning passed) and the request's number. */
export interface DryRunRequest {
  id: number;
  file: ScenarioFile;
}

function runOf(snapshots: readonly Snapshot[], keys: readonly string[], seed: number, won: boolean): PreviewRun {
  const series: Record<string, number[]> = {};
  for (const k of keys) series[k] = snapshots.map((s) => s.indicators[k] ?? Number.NaN);
  return { seed, won, series };
}

export function preview(file: ScenarioFile): Preview {
  const def = toDef(file);
  const model = withScenario(getModel(file.simulator), def);
  const bench = makeBench(model, def.id, PREVIEW_SEEDS);
  const keys = [...new Set(def.goals.map((g) => g.indicator))];
  const nothing = bench.nothingRuns.map((run, i) => runOf(run, keys, bench.seeds[i], resultOf(bench, run, i).won));
  const careful = bench.seeds.map((seed, i) => {
    const { snapshots } = playTeam(model, specOf(bench, i), teamOf(model, 'careful', 1, seed));
    return runOf(snapshots, keys, seed, resultOf(bench, snapshots, i).won);
  });
  return { minutes: bench.minutes, nothing, careful };
}

/** The whole dry run of one request, each part posted as soon as it is known. */
export function dryRun(req: DryRunRequest, post: (m: DryRunMessage) => void): void {
  try {
    post({ id: req.id, kind: 'preview', preview: preview(req.file) });
    const report = checkTeaching(getModel(req.file.simulator), toDef(req.file));
    post({ id: req.id, kind: 'teaching', report });
  } catch (e) {
    post({ id: req.id, kind: 'failed', message: e instanceof Error ? e.message : String(e) });
  }
}
