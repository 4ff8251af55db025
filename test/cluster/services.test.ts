// The throwaway services: a PostgreSQL and a Redis that answer on loopback, hand out separate databases, and
// leave nothing behind when stopped.
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startServices } from '../../server/cluster/services.ts';

/** Whether something accepts TCP connections on the port now. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

describe('throwaway PostgreSQL and Redis', () => {
  it('serve on loopback, give each caller its own database, and leave nothing behind', async () => {
    const { postgres, redis, stop } = await startServices();
    try {
      const [a, b] = [await postgres.createDatabase(), await postgres.createDatabase()];
      expect(a).not.toBe(b);
      const client = new pg.Client({ connectionString: a });
      await client.connect();
      await client.query('CREATE TABLE t (x int)');
      await client.end();
      const other = new pg.Client({ connectionString: b });
      await other.connect();
      const { rows } = await other.query(
        `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 't'`,
      );
      await other.end();
      expect(rows[0].n).toBe(0);
      await expect(postgres.createDatabase('Robert"; DROP')).rejects.toThrow(/lower-case letters/);

      const r = new Redis(redis.url);
      expect(await r.set('k', 'v')).toBe('OK');
      expect(await r.get('k')).toBe('v');
      r.disconnect();
    } finally {
      await stop();
    }
    expect(existsSync(postgres.dir)).toBe(false);
    expect(existsSync(redis.dir)).toBe(false);
    expect(await listening(postgres.port)).toBe(false);
    expect(await listening(redis.port)).toBe(false);
  });
});
