// SQLite's log is flushed to the disk off the event loop: a write is stored — its promise resolves — only after the
// flush of the log that holds it, and writes committed while a flush is under way wait for a flush of their own.
import { fstatSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { PROBE_WRITE, SqliteEngine } from '../../server/db/sqlite.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** An engine whose flushes wait until the test lets each one go; each flush records the log's size when asked. */
function heldEngine() {
  const dir = mkdtempSync(join(tmpdir(), 'opsroom-wal-'));
  dirs.push(dir);
  const path = join(dir, 'db.sqlite');
  const flushes: { logBytes: number; release: () => void }[] = [];
  const engine = new SqliteEngine(path, (fd) => {
    // The descriptor is the log's: its size is what the commits wrote.
    const logBytes = fstatSync(fd).size;
    return new Promise<void>((release) => flushes.push({ logBytes, release }));
  });
  return { engine, flushes, path };
}

const settled = async (p: Promise<unknown>) => {
  let done = false;
  void p.then(() => (done = true));
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return done;
};

test('a transaction resolves only after the flush of the log holding it', async () => {
  const { engine, flushes } = heldEngine();
  const write = engine.transaction([{ sql: PROBE_WRITE, params: [1] }]);
  expect(flushes).toHaveLength(1);
  expect(flushes[0].logBytes).toBeGreaterThan(0);
  expect(await settled(write)).toBe(false);
  // A second commit while the first flush is under way asks for its own flush, after its rows are in the log.
  const second = engine.transaction([{ sql: PROBE_WRITE, params: [2] }]);
  expect(flushes).toHaveLength(2);
  expect(flushes[1].logBytes).toBeGreaterThan(flushes[0].logBytes);
  flushes[0].release();
  expect(await settled(write)).toBe(true);
  expect(await settled(second)).toBe(false);
  flushes[1].release();
  expect(await settled(second)).toBe(true);
  await engine.close();
});

test('a write outside a transaction is flushed too; a read is not', async () => {
  const { engine, flushes } = heldEngine();
  const read = engine.query('SELECT at FROM health_probe');
  expect(await settled(read)).toBe(true);
  expect(flushes).toHaveLength(0);
  const write = engine.query('UPDATE health_probe SET at = ? WHERE id = 1 RETURNING at', [5]);
  expect(flushes).toHaveLength(1);
  expect(await settled(write)).toBe(false);
  flushes[0].release();
  expect(await write).toEqual([{ at: 5 }]);
  const probe = engine.probe(6);
  expect(flushes).toHaveLength(2);
  expect(await settled(probe)).toBe(false);
  flushes[1].release();
  await probe;
  await engine.close();
});

test('with the real flush, a write is stored and read back after the database is opened again', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'opsroom-wal-'));
  dirs.push(dir);
  const path = join(dir, 'db.sqlite');
  const engine = new SqliteEngine(path);
  await engine.transaction([
    { sql: 'CREATE TABLE kept (x INTEGER)', params: [] },
    { sql: 'INSERT INTO kept (x) VALUES (?)', params: [42] },
  ]);
  await engine.close();
  const again = new SqliteEngine(path);
  expect(await again.query('SELECT x FROM kept')).toEqual([{ x: 42 }]);
  await again.close();
});
