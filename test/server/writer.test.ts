// SQLite's writes on their own thread (server/db/writer.ts): a commit is readable on the main connection once
// it resolves, a refused list stores nothing and fails alone, what was asked before close is stored, and a
// writer thread that dies fails only what it held. The log's checkpoints run on a thread of their own.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test, vi } from 'vitest';
import { Committer } from '../../server/db/commit.ts';
import { SqliteStore } from '../../server/db/sqlite.ts';
import { THREAD_NAMES } from '../../server/db/thread-name.mjs';
import type { Write } from '../../server/db/writes.ts';
import type { WriterThread } from '../../server/db/writer.ts';

const dir = mkdtempSync(join(tmpdir(), 'opsroom-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const fresh = () => join(dir, `w${++files}.db`);

const teacher = (id: number, keyHash: string): Write[] => [{ op: 'insertTeacher', id, keyHash, createdAt: id }];
const teachers = (store: SqliteStore) =>
  store.db.$client.prepare('select id, key_hash from teachers order by id').all();

test('a commit made on the writer thread is read on the main connection as soon as it resolves', async () => {
  const store = SqliteStore.open(fresh(), { writerThread: true });
  try {
    for (let i = 1; i <= 20; i++) {
      await store.commit([teacher(i, `k${i}`)]);
      expect(await store.teacherByKeyHash(`k${i}`)).toBe(i);
    }
    // Several lists in one transaction.
    await store.commit([teacher(21, 'k21'), teacher(22, 'k22')]);
    expect(teachers(store)).toHaveLength(22);
  } finally {
    await store.close();
  }
});

test('a refused transaction stores nothing, says why, and the group committer fails only the bad list', async () => {
  const store = SqliteStore.open(fresh(), { writerThread: true });
  try {
    await expect(store.commit([teacher(1, 'a'), teacher(2, 'a')])).rejects.toMatchObject({
      code: 'SQLITE_CONSTRAINT_UNIQUE',
    });
    expect(teachers(store)).toEqual([]);
    const committer = new Committer(store);
    const results = await Promise.allSettled([
      committer.commit(teacher(1, 'k1')),
      committer.commit(teacher(2, 'k1')),
      committer.commit(teacher(3, 'k3')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(teachers(store)).toEqual([
      { id: 1, key_hash: 'k1' },
      { id: 3, key_hash: 'k3' },
    ]);
  } finally {
    await store.close();
  }
});

test('close stores everything asked before it, and the file holds it when opened again', async () => {
  const path = fresh();
  const store = SqliteStore.open(path, { writerThread: true });
  const asked = Array.from({ length: 50 }, (_, i) => store.commit([teacher(i + 1, `k${i + 1}`)]));
  await store.close();
  await Promise.all(asked);
  await expect(store.commit([teacher(99, 'late')])).rejects.toThrow('closed');
  const again = SqliteStore.open(path);
  try {
    expect(teachers(again)).toHaveLength(50);
  } finally {
    await again.close();
  }
});

test('a writer thread that dies: what it held is stored or failed as the file says, what waited fails and is not stored', async () => {
  for (let run = 0; run < 4; run++) {
    const store = SqliteStore.open(fresh(), { writerThread: true });
    try {
      await store.commit([teacher(1, 'k1')]);
      const writer = (store as unknown as { writer: WriterThread }).writer;
      const worker = (writer as unknown as { worker: { terminate(): Promise<number> } }).worker;
      const held = store.commit([teacher(2, 'k2')]);
      const waiting = store.commit([teacher(3, 'k3')]);
      // Now or a moment later: the thread dies before, during or after the transaction it holds.
      if (run % 2) await new Promise((r) => setImmediate(r));
      await worker.terminate();
      const outcome = (p: Promise<void>) =>
        p.then(
          () => 'stored',
          (e: Error) => e.message,
        );
      // Either way, never acknowledged and lost, nor refused and stored.
      const [first, second] = [await outcome(held), await outcome(waiting)];
      if (first === 'stored') expect(await store.teacherByKeyHash('k2')).toBe(2);
      else {
        expect(first).toMatch(/writer thread stopped/);
        expect(await store.teacherByKeyHash('k2')).toBeUndefined();
      }
      if (second === 'stored') expect(await store.teacherByKeyHash('k3')).toBe(3);
      else {
        expect(second).toMatch(/writer thread stopped/);
        expect(await store.teacherByKeyHash('k3')).toBeUndefined();
      }
      await store.commit([teacher(4, 'k4')]);
      expect(await store.teacherByKeyHash('k4')).toBe(4);
    } finally {
      await store.close();
    }
  }
});

test('a transaction stored whose answer never came is acknowledged when the thread dies; the one after it is not', async () => {
  const store = SqliteStore.open(fresh(), { writerThread: true });
  try {
    await store.commit([teacher(1, 'k1')]);
    const writer = (store as unknown as { writer: WriterThread }).writer;
    const worker = (
      writer as unknown as { worker: { terminate(): Promise<number>; removeAllListeners(e: string): void } }
    ).worker;
    // The answers are lost on the way (as when the thread dies between its commit and its answer).
    worker.removeAllListeners('message');
    const held = store.commit([teacher(2, 'k2')]);
    const waiting = store.commit([teacher(3, 'k3')]);
    for (let i = 0; i < 500 && (await store.teacherByKeyHash('k2')) === undefined; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(await store.teacherByKeyHash('k2')).toBe(2);
    await worker.terminate();
    await expect(held).resolves.toBeUndefined();
    await expect(waiting).rejects.toThrow(/writer thread stopped/);
    expect(await store.teacherByKeyHash('k3')).toBeUndefined();
  } finally {
    await store.close();
  }
});

// The log's checkpoints (server/db/checkpointer.ts): on a thread of their own, not inside the writer's commits.
const HOUR = 3_600_000;
/** Teachers with 3,900-character keys: about one 4 KB page each. */
const bulky = (from: number, n: number): Write[] =>
  Array.from({ length: n }, (_, i) => teacher(from + i, `${from + i}`.padStart(3900, 'k'))[0]);
const fileSize = (path: string) => statSync(path).size;

/** The names of this process's threads now (Linux). */
const threadNames = () =>
  readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      return [readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()];
    } catch {
      return []; // The thread ended meanwhile.
    }
  });

test('the writer and checkpoint threads name themselves, as top -H and the benchmark show them, and go with the store', async () => {
  const store = SqliteStore.open(fresh(), { writerThread: true, checkpointEveryMs: HOUR });
  try {
    // Each has answered once: it is running and has named itself.
    await store.commit([teacher(1, 'k1')]);
    await store.checkpointer!.checkpoint();
    expect(threadNames()).toEqual(expect.arrayContaining([THREAD_NAMES.writer, THREAD_NAMES.checkpoints]));
  } finally {
    await store.close();
  }
  await vi.waitFor(() => expect(threadNames()).not.toContain(THREAD_NAMES.writer), { timeout: 5_000, interval: 10 });
});

test("the writer's commits leave the log to the checkpoint thread, which copies all of it into the file", async () => {
  const path = fresh();
  // No periodic checkpoint in this test: only the one asked for below.
  const store = SqliteStore.open(path, { writerThread: true, checkpointEveryMs: HOUR });
  try {
    const before = fileSize(path);
    // ~2,500 pages in 25 commits: SQLite's own automatic checkpoint would have run at 1,000 and restarted the log.
    for (let i = 0; i < 25; i++) await store.commit([bulky(1 + 100 * i, 100)]);
    expect(fileSize(path)).toBe(before);
    const done = await store.checkpointer!.checkpoint();
    expect(done.log).toBeGreaterThan(2_500);
    expect(done.checkpointed).toBe(done.log);
    expect(fileSize(path)).toBeGreaterThan(before + 2_500 * 4096);
    expect(teachers(store)).toHaveLength(2_500);
  } finally {
    await store.close();
  }
});

test('the checkpoint thread checkpoints on its own, every few ms, and stops with the store', async () => {
  const path = fresh();
  const store = SqliteStore.open(path, { writerThread: true, checkpointEveryMs: 10 });
  const before = fileSize(path);
  await store.commit([bulky(1, 50)]);
  // Waits for the thread's own timer (real time: it runs on that thread, not on a clock of this test).
  await vi.waitFor(() => expect(fileSize(path)).toBeGreaterThan(before + 50 * 4096), { timeout: 10_000, interval: 10 });
  const checkpointer = store.checkpointer!;
  await store.close();
  await expect(checkpointer.checkpoint()).rejects.toThrow(/checkpoint thread stopped/);
  expect(checkpointer.lastFailure).toBeNull();
});

test('a process with nothing else to do waits for the store to close, writer and checkpoint threads both', () => {
  const fixture = new URL('./fixtures/close-store.ts', import.meta.url).pathname;
  const out = spawnSync(process.execPath, ['--import', 'tsx', fixture, fresh()], { encoding: 'utf8' });
  // 13 would be a top-level await left unsettled: the process ended while a thread it waited for was still closing.
  expect({ code: out.status, stdout: out.stdout }).toEqual({ code: 0, stdout: 'closed\n' });
});
