// The cluster's settings: DATABASE_URL and REDIS_URL together or not at all, each checked, neither echoed.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';

const message = (env: Record<string, string>) => {
  try {
    loadConfig(env);
    return 'accepted';
  } catch (e) {
    return (e as Error).message;
  }
};

describe('cluster settings', () => {
  it('are both given (cluster mode) or neither (one process on SQLite)', () => {
    expect(loadConfig({}).cluster).toBeNull();
    const both = { DATABASE_URL: 'postgres://opsroom:s3cret@db:5432/opsroom', REDIS_URL: 'redis://cache:6379' };
    expect(loadConfig(both).cluster).toEqual({ databaseUrl: both.DATABASE_URL, redisUrl: both.REDIS_URL });
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/opsroom', REDIS_URL: 'rediss://cache' }).cluster).not.toBeNull();
    expect(message({ DATABASE_URL: both.DATABASE_URL })).toBe(
      'DATABASE_URL is set but REDIS_URL is not: cluster mode needs both (PostgreSQL and Redis); one process on SQLite needs neither',
    );
    expect(message({ REDIS_URL: both.REDIS_URL })).toBe(
      'REDIS_URL is set but DATABASE_URL is not: cluster mode needs both (PostgreSQL and Redis); one process on SQLite needs neither',
    );
    // Blank counts as unset, as for every other variable.
    expect(loadConfig({ DATABASE_URL: ' ', REDIS_URL: '' }).cluster).toBeNull();
  });

  it('refuse a wrong address without showing it (it may hold a password), and a DATABASE_PATH that would be ignored', () => {
    expect(message({ DATABASE_URL: 'mysql://root:hunter2@db/opsroom', REDIS_URL: 'redis://cache' })).toBe(
      'DATABASE_URL=(hidden): must be a postgres:// or postgresql:// address, e.g. postgres://opsroom:secret@db.example.org:5432/opsroom',
    );
    expect(message({ DATABASE_URL: 'postgres://db/opsroom', REDIS_URL: 'cache:6379' })).toMatch(
      /^REDIS_URL=\(hidden\): must be a redis:\/\/ or rediss:\/\/ address/,
    );
    expect(
      message({ DATABASE_URL: 'postgres://db/opsroom', REDIS_URL: 'redis://cache', DATABASE_PATH: './data/x.db' }),
    ).toBe('DATABASE_PATH=./data/x.db: not used in cluster mode (DATABASE_URL): unset one of them');
  });
});
