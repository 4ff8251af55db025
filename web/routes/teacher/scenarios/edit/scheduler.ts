// When the dry run runs: a moment after the draft last changed (typing a number is several changes), in a Web
// Worker; a change while it runs ends that worker and starts another, so what comes back always belongs to the
// draft on screen. Plain TypeScript (node tests drive it with a fake worker); editor.svelte.ts shows its state.
import type { ScenarioFile } from '$shared/scenarios/format.ts';
import type { TeachingReport } from '$shared/scenarios/teaching.ts';
import type { DryRunMessage, DryRunRequest, Preview } from './dry-run.ts';

/** How long the draft must stay unchanged before the dry run starts. */
export const DRY_RUN_DELAY_MS = 700;

export type DryRunStatus = 'waiting' | 'running' | 'done' | 'blocked' | 'failed';

export interface DryRunView {
  status: DryRunStatus;
  preview: Preview | null;
  report: TeachingReport | null;
  failure: string | null;
}

/** What the scheduler needs of a worker (a DOM Worker, or a test's fake). */
export interface WorkerLike {
  onmessage: ((e: MessageEvent<DryRunMessage>) => void) | null;
  onerror: ((e: ErrorEvent) => void) | null;
  postMessage(req: DryRunRequest): void;
  terminate(): void;
}

export class DryRunScheduler {
  #worker: WorkerLike | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #id = 0;
  #busy = false;

  constructor(
    private readonly makeWorker: () => WorkerLike,
    private readonly show: (patch: Partial<DryRunView>) => void,
    private readonly delay = DRY_RUN_DELAY_MS,
  ) {}

  /** A new draft to run (null: it has errors; the last results stay, marked as not of this draft). */
  schedule(file: ScenarioFile | null): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const id = ++this.#id;
    if (!file) {
      this.show({ status: 'blocked' });
      return;
    }
    this.show({ status: 'waiting' });
    const copy = JSON.parse(JSON.stringify(file)) as ScenarioFile;
    this.#timer = setTimeout(() => this.#start(id, copy), this.delay);
  }

  #start(id: number, file: ScenarioFile): void {
    this.#timer = null;
    // A run of an older draft cannot be interrupted inside the worker: end it.
    if (this.#busy) this.#stop();
    if (!this.#worker) {
      const w = this.makeWorker();
      w.onmessage = (e) => this.#receive(e.data);
      w.onerror = (e) => {
        this.#busy = false;
        this.show({ status: 'failed', failure: e.message || 'worker' });
      };
      this.#worker = w;
    }
    this.#busy = true;
    this.show({ status: 'running', report: null, failure: null });
    this.#worker.postMessage({ id, file });
  }

  #receive(msg: DryRunMessage): void {
    if (msg.id !== this.#id) return;
    if (msg.kind === 'preview') this.show({ preview: msg.preview });
    else {
      this.#busy = false;
      if (msg.kind === 'teaching') this.show({ report: msg.report, status: 'done' });
      else this.show({ failure: msg.message, status: 'failed' });
    }
  }

  #stop(): void {
    this.#worker?.terminate();
    this.#worker = null;
    this.#busy = false;
  }

  dispose(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#stop();
  }
}
