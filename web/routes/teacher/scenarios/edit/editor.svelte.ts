// The editor's state: the draft (deep reactive, the form binds into it), its quick checks on every change, the
// dry run's results (run in a Web Worker when scheduler.ts says), and saving (POST the first time, PUT after).
import { fileText } from '$shared/scenarios/load.ts';
import type { ScenarioFile } from '$shared/scenarios/format.ts';
import type { TeachingReport } from '$shared/scenarios/teaching.ts';
import { getMeta } from '$shared/sim/meta.ts';
import { saveScenario, type Refusal, type ServerFinding } from '$lib/net/scenario-api.ts';
import { checkDraft, type Draft, type DraftCheck } from './draft.ts';
import type { Preview } from './dry-run.ts';
import { DryRunScheduler, type DryRunStatus, type DryRunView, type WorkerLike } from './scheduler.ts';

/** The dry run's state on screen (the scheduler decides when it runs). */
export class DryRun implements DryRunView {
  status = $state<DryRunStatus>('waiting');
  preview = $state.raw<Preview | null>(null);
  report = $state.raw<TeachingReport | null>(null);
  failure = $state<string | null>(null);
  readonly #scheduler: DryRunScheduler;

  constructor(makeWorker: () => WorkerLike) {
    this.#scheduler = new DryRunScheduler(makeWorker, (patch) => Object.assign(this, patch));
  }

  schedule(file: ScenarioFile | null): void {
    this.#scheduler.schedule(file);
  }

  dispose(): void {
    this.#scheduler.dispose();
  }
}

export type SaveState =
  | { kind: 'idle' }
  | { kind: 'saving' }
  | { kind: 'saved'; version: number; findings: ServerFinding[] }
  | { kind: 'refused'; refusal: Refusal };

export class ScenarioEditor {
  draft = $state() as Draft;
  /** The id it is stored under (null: not saved yet), and its version there. */
  storedId = $state<string | null>(null);
  version = $state<number | null>(null);
  /** The text last saved or loaded: the draft differs from it when there is something to save. */
  #savedText = $state('');
  save = $state<SaveState>({ kind: 'idle' });

  readonly check: DraftCheck = $derived(checkDraft(this.draft));
  readonly errors = $derived(this.check.findings.filter((f) => f.level === 'error').length);
  readonly meta = $derived(getMeta(this.draft.simulator));
  readonly text = $derived(fileText(this.draft));
  readonly dirty = $derived(this.text !== this.#savedText);

  constructor(draft: Draft, stored: { id: string; version: number } | null) {
    this.draft = draft;
    this.storedId = stored?.id ?? null;
    this.version = stored?.version ?? null;
    if (stored) this.#savedText = fileText(draft);
  }

  /** Saves the draft: a new scenario, or a new version of this one. Refused while the checks find an error. */
  async store(key: string): Promise<boolean> {
    if (this.errors > 0 || this.save.kind === 'saving') return false;
    const text = this.text;
    this.save = { kind: 'saving' };
    const res = await saveScenario(key, text, this.storedId ?? undefined);
    if (!res.ok) {
      this.save = { kind: 'refused', refusal: res };
      return false;
    }
    this.storedId = res.value.id;
    this.version = res.value.version;
    this.#savedText = text;
    this.save = { kind: 'saved', version: res.value.version, findings: res.value.findings };
    return true;
  }
}
