// Child processes of the benchmarks: TypeScript entry points run with tsx, JSON lines on stdout.
// BENCH_STDOUT_LOG=FILE keeps the children's other stdout lines (V8's traces, e.g. SERVER_NODE_FLAGS with
// --trace-opt --trace-deopt) in FILE, appended as they come, instead of dropping them.
import { createWriteStream, type WriteStream } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface Child {
  proc: ChildProcess;
  /** Resolves with the next JSON line printed by the child that satisfies `pred`. */
  next<T = any>(pred?: (msg: any) => boolean): Promise<T>;
  /** Writes one JSON line to the child's stdin. */
  send(msg: object): void;
  stop(): Promise<void>;
}

/** The file of BENCH_STDOUT_LOG, opened once for every child (appended to, not written synchronously per line). */
let stdoutLog: WriteStream | null = null;
const logLine = (file: string, line: string) => {
  stdoutLog ??= createWriteStream(file, { flags: 'a' });
  stdoutLog.write(`${line}\n`);
};

/** Where a child runs: on these CPUs only (`cpus`, taskset's list), at this niceness (`nice`, 1–19: lower priority). */
export interface Placement {
  cpus?: string;
  nice?: number;
}

export function startChild(
  relativeToBench: string,
  args: string[] = [],
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  place: Placement = {},
): Child {
  const file = fileURLToPath(new URL(relativeToBench, import.meta.url));
  const node = [process.execPath, '--import', 'tsx', ...nodeArgs, file, ...args];
  // nice and taskset each exec the next in place: the child's pid stays Node's, which procstat.ts reads.
  const [command, ...argv] = [
    ...(place.nice ? ['nice', '-n', String(place.nice)] : []),
    ...(place.cpus ? ['taskset', '--cpu-list', place.cpus] : []),
    ...node,
  ];
  const proc = spawn(command, argv, {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting: { pred: (m: any) => boolean; resolve: (m: any) => void }[] = [];
  const backlog: any[] = [];
  createInterface({ input: proc.stdout! }).on('line', (line) => {
    let msg: any;
    try {
      msg = JSON.parse(line);
    } catch {
      if (process.env.BENCH_STDOUT_LOG) logLine(process.env.BENCH_STDOUT_LOG, line);
      return;
    }
    const i = waiting.findIndex((w) => w.pred(msg));
    if (i >= 0) waiting.splice(i, 1)[0].resolve(msg);
    else backlog.push(msg);
  });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  return {
    proc,
    next(pred = () => true) {
      const i = backlog.findIndex(pred);
      if (i >= 0) return Promise.resolve(backlog.splice(i, 1)[0]);
      return new Promise((resolve, reject) => {
        waiting.push({ pred, resolve });
        void exited.then(() => reject(new Error(`${relativeToBench} exited`)));
      });
    },
    send(msg) {
      proc.stdin!.write(`${JSON.stringify(msg)}\n`);
    },
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    },
  };
}
