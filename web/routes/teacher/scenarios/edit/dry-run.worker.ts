// The dry run off the page's thread: seconds of simulation would freeze the editor. One request at a time;
// the page ends this worker and starts another when the draft changes while it runs.
import { dryRun, type DryRunMessage, type DryRunRequest } from './dry-run.ts';

self.onmessage = (e: MessageEvent<DryRunRequest>) => {
  dryRun(e.data, (m: DryRunMessage) => self.postMessage(m));
};
