// The native receiver (receiver.c): built once per version of its source, then given a generator's student
// sockets, which it reads from then on in place of the generator's JavaScript. LOADGEN_RECEIVER=js keeps them in JavaScript, as before.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SOURCE = fileURLToPath(new URL('./receiver.c', import.meta.url));
/** Everything the build reads: the source and the header it includes. */
const INPUTS = [SOURCE, fileURLToPath(new URL('./histogram.h', import.meta.url))];

/** Which reader the generators' students get: the native receiver unless LOADGEN_RECEIVER=js. */
export function receiverWanted(): 'native' | 'js' {
  const v = process.env.LOADGEN_RECEIVER ?? 'native';
  if (v !== 'native' && v !== 'js') throw new Error(`LOADGEN_RECEIVER must be native or js, got ${v}`);
  return v;
}

/**
 * The receiver's binary, compiled with the machine's C compiler ($CC, or cc) into the temporary folder under a name
 * that is the hash of its source and header, so that a changed source is built again and an unchanged one once.
 */
export function buildReceiver(): { path: string } | { error: string } {
  const hash = createHash('sha256');
  for (const file of INPUTS) hash.update(readFileSync(file));
  const name = `receiver-${hash.digest('hex').slice(0, 16)}`;
  const dir = join(tmpdir(), 'opsroom-bench');
  const path = join(dir, name);
  if (existsSync(path)) return { path };
  mkdirSync(dir, { recursive: true });
  const cc = process.env.CC || 'cc';
  const tmp = `${path}.${process.pid}`;
  const r = spawnSync(cc, ['-O2', '-Wall', '-o', tmp, SOURCE, '-lm'], { encoding: 'utf8' });
  if (r.error) return { error: `${cc}: ${r.error.message}` };
  if (r.status !== 0) return { error: `${cc} failed: ${r.stderr.trim().split('\n').slice(0, 3).join(' ')}` };
  renameSync(tmp, path);
  return { path };
}

let chosen: { path?: string; how: string } | undefined;

/**
 * The receiver this bench run's generators use, decided once: its binary's path (built if need be), or none, and in
 * words which reader the students have (each limit and fan-out report prints it).
 */
export function receiverForRun(): { path?: string; how: string } {
  if (chosen) return chosen;
  if (receiverWanted() === 'js') chosen = { how: "the students' sockets read in JavaScript (LOADGEN_RECEIVER=js)" };
  else {
    const built = buildReceiver();
    chosen =
      'path' in built
        ? { path: built.path, how: "the students' sockets read by the native receiver (test/bench/fanout/receiver.c)" }
        : { how: `the students' sockets read in JavaScript: the native receiver could not be built (${built.error})` };
  }
  return chosen;
}

export interface HandedOver {
  /** The student's TCP socket, no longer read by this process (WireSocket.handOver). */
  socket: Socket;
  /** The packets of the changes it may send (`["student:control",{…}]`); one is picked at random each time. */
  changes: string[];
}

export interface ReceiverReport {
  seconds: number;
  student: [number, number][];
  studentSinceTick: [number, number][];
  studentBytes: number;
  wireFrames: number;
  wireBytes: number;
  missed: number;
  outOfOrder: number;
  repeated: number;
  stalled: number;
  changesSent: number;
  changeErrors: number;
  maxGapMs: number;
  /** The longest stretches the receiver was busy between two waits for its sockets (its own loop delay). */
  busyMs: { p99: number; max: number };
}

/** What the receiver read of a minute, for the generator to check against its own parse of the packet. */
export type CheckMinute = (read: [round: number, minute: number, sentAt: number], packet: string) => void;

export class NativeReceiver {
  private waiting: { event: string; resolve: (m: any) => void }[] = [];
  private exited: Promise<number | null>;

  private constructor(private readonly proc: ChildProcess) {
    this.exited = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
  }

  get pid(): number {
    return this.proc.pid!;
  }

  /**
   * Starts the receiver with the sockets as its file descriptors 3, 4, … (in order) and resolves once it reads
   * them. The receiver inherits this process's CPUs and niceness.
   */
  static async start(
    path: string,
    sockets: HandedOver[],
    opts: { changeProbability: number; seed: number; mode: 'opsroom' | 'baseline'; check: CheckMinute },
  ): Promise<NativeReceiver> {
    const proc = spawn(path, [], { stdio: ['pipe', 'pipe', 'inherit', ...sockets.map((s) => s.socket)] });
    const r = new NativeReceiver(proc);
    createInterface({ input: proc.stdout! }).on('line', (line) => r.line(line, opts.check));
    const lines = [`config ${sockets.length} ${opts.changeProbability} ${opts.seed} ${opts.mode}`];
    sockets.forEach((s, i) => {
      lines.push(`sock ${i} ${s.changes.length}`, ...s.changes);
    });
    lines.push('go');
    proc.stdin!.write(`${lines.join('\n')}\n`);
    await r.next('receiving');
    return r;
  }

  private line(line: string, check: CheckMinute): void {
    const c = /^check (-?\d+) (-?\d+) (-?\d+) (.*)$/s.exec(line);
    if (c) {
      check([Number(c[1]), Number(c[2]), Number(c[3])], c[4]);
      return;
    }
    const msg = JSON.parse(line) as { event: string };
    const i = this.waiting.findIndex((w) => w.event === msg.event);
    if (i >= 0) this.waiting.splice(i, 1)[0].resolve(msg);
  }

  private next<T>(event: string): Promise<T> {
    const answer = new Promise<T>((resolve) => this.waiting.push({ event, resolve }));
    const died = this.exited.then((code) => {
      throw new Error(`the native receiver exited (${code}) before "${event}"`);
    });
    return Promise.race([answer, died]);
  }

  async measure(): Promise<void> {
    this.proc.stdin!.write('measure\n');
    await this.next('measuring');
  }

  /** Its figures of the measured window; it exits after. */
  async report(): Promise<ReceiverReport> {
    this.proc.stdin!.write('report\n');
    return this.next<ReceiverReport>('receiver-report');
  }
}
