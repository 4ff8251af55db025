// The benchmarks' children (spawn.ts) and `--pin` (fanout.ts, procstat.ts): a child, every thread of it, on the CPUs asked for.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pinning } from './fanout.ts';
import { allowedCpus } from './procstat.ts';
import { startChild } from './spawn.ts';

const dir = mkdtempSync(join(tmpdir(), 'opsroom-spawn-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The CPUs each thread of a process may run on. */
const allowedByThread = (pid: number) =>
  readdirSync(`/proc/${pid}/task`).map((tid) =>
    allowedCpus(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8')).join(','),
  );

/** A process's niceness: field 19 of /proc/PID/stat, counted after the command's closing parenthesis. */
const niceOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
};

describe('--pin', () => {
  it("reads Linux's list of CPUs and gives the server the first, the generators the rest", () => {
    const status = (list: string) => `Name:\tnode\nCpus_allowed:\tff\nCpus_allowed_list:\t${list}\nMems_allowed:\t1\n`;
    expect(allowedCpus(status('0-3,6'))).toEqual([0, 1, 2, 3, 6]);
    expect(allowedCpus(status('1'))).toEqual([1]);
    expect(pinning([0, 1])).toEqual({ server: '0', generators: '1' });
    expect(pinning([2, 3, 5])).toEqual({ server: '2', generators: '3,5' });
    expect(() => pinning([0])).toThrow(/at least 2 CPUs/);
    expect(() => allowedCpus('Name:\tnode\n')).toThrow(/Cpus_allowed_list/);
  });
});

describe('startChild', () => {
  // A child that starts a worker thread (as the server's database writer does), then says so.
  const file = join(dir, 'child.mjs');
  writeFileSync(
    file,
    `import { Worker } from 'node:worker_threads';
new Worker('setInterval(() => {}, 1000)', { eval: true }).on('online', () => console.log(JSON.stringify({ up: true })));`,
  );
  const mine = allowedCpus();

  it.runIf(mine.length >= 2)('pins the child and every thread it starts to the CPUs given', async () => {
    const { generators } = pinning();
    const child = startChild(file, [], {}, [], { cpus: generators });
    try {
      await child.next((m) => m.up);
      const threads = allowedByThread(child.proc.pid!);
      expect(threads.length).toBeGreaterThan(2); // the main thread, V8's helpers, the worker
      expect(new Set(threads)).toEqual(new Set([mine.slice(1).join(',')]));
    } finally {
      await child.stop();
    }
  });

  it('starts the child at the niceness given, as Node itself (its pid is the one procstat.ts reads)', async () => {
    const child = startChild(file, [], {}, [], { nice: 19 });
    try {
      await child.next((m) => m.up);
      expect(readFileSync(`/proc/${child.proc.pid}/comm`, 'utf8').trim()).toBe('node');
      expect(niceOf(child.proc.pid!)).toBe(19);
    } finally {
      await child.stop();
    }
  });

  it('leaves a child on every CPU of its parent without CPUs given', async () => {
    const child = startChild(file);
    try {
      await child.next((m) => m.up);
      expect(new Set(allowedByThread(child.proc.pid!))).toEqual(new Set([mine.join(',')]));
    } finally {
      await child.stop();
    }
  });
});
