// One schema (server/db/schema.ts) on two engines: the same tables, columns, keys and indexes in each dialect's
// kinds, types that hold the same values and read back as the same JavaScript values; the migrations of both
// dialects are what drizzle-kit would generate now; the pg migrations apply to a real PostgreSQL.
import { getTableConfig as pgTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteTableConfig, type SQLiteColumn, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresService } from '../../server/cluster/services.ts';
import { openPostgres } from '../../server/db/open.ts';
import { PgEngine } from '../../server/db/pg.ts';
import * as pgSchema from '../../server/db/schema.pg.ts';
import * as sqliteSchema from '../../server/db/schema.sqlite.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** SQLite column type → the PostgreSQL types that hold every value it may hold. */
const PG_TYPES: Record<string, string[]> = {
  SQLiteInteger: ['PgInteger', 'PgBigInt53'],
  SQLiteBoolean: ['PgBoolean'],
  SQLiteReal: ['PgDoublePrecision'],
  SQLiteText: ['PgText'],
};

type AnyColumn = SQLiteColumn | PgColumn;

function describeColumn(c: AnyColumn, autoIncrement: boolean) {
  return {
    name: c.name,
    dataType: c.dataType,
    notNull: c.notNull,
    primary: c.primary,
    unique: c.isUnique,
    default: c.default,
    autoIncrement,
  };
}

/** A table as plain data, comparable across dialects. */
function shape(
  cfg: ReturnType<typeof sqliteTableConfig> | ReturnType<typeof pgTableConfig>,
  auto: (c: AnyColumn) => boolean,
  tableName: (t: never) => string,
) {
  const names = (cols: { name: string }[]) => cols.map((c) => c.name);
  return {
    name: cfg.name,
    columns: (cfg.columns as AnyColumn[])
      .map((c) => describeColumn(c, auto(c)))
      .sort((a, b) => a.name.localeCompare(b.name)),
    primaryKeys: cfg.primaryKeys.map((k) => names(k.columns)),
    indexes: cfg.indexes
      .map((i) => ({
        name: String(i.config.name),
        unique: i.config.unique,
        columns: names(i.config.columns as { name: string }[]),
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    foreignKeys: cfg.foreignKeys
      .map((f) => f.reference())
      .map((r) => ({
        columns: names(r.columns),
        table: tableName(r.foreignTable as never),
        foreignColumns: names(r.foreignColumns),
      }))
      .sort((a, b) => a.columns.join().localeCompare(b.columns.join())),
  };
}

// Every export of either schema module is a table, looked up by its export name.
const sqliteByName = new Map(Object.entries(sqliteSchema) as unknown as [string, SQLiteTable][]);
const pgByName = new Map(Object.entries(pgSchema) as unknown as [string, PgTable][]);
const sqliteTables = [...sqliteByName.values()];
const pgTables = [...pgByName.values()];
const sqliteShape = (t: SQLiteTable) =>
  shape(
    sqliteTableConfig(t),
    (c) => (c as SQLiteColumn & { autoIncrement?: boolean }).autoIncrement === true,
    (f: SQLiteTable) => sqliteTableConfig(f).name,
  );
const pgShape = (t: PgTable) =>
  shape(
    pgTableConfig(t),
    (c) => (c as PgColumn).generatedIdentity !== undefined,
    (f: PgTable) => pgTableConfig(f).name,
  );

describe('the schema is the same on both engines', () => {
  it('has the same tables under the same export names', () => {
    expect(Object.keys(pgSchema).sort()).toEqual(Object.keys(sqliteSchema).sort());
    expect(pgTables.map((t) => pgTableConfig(t).name).sort()).toEqual(
      sqliteTables.map((t) => sqliteTableConfig(t).name).sort(),
    );
  });

  it.each(Object.keys(sqliteSchema))('%s: same columns, keys, indexes, foreign keys and defaults', (name) => {
    const lite = sqliteByName.get(name)!;
    const pg = pgByName.get(name)!;
    expect(pgShape(pg)).toEqual(sqliteShape(lite));
  });

  it.each(Object.keys(sqliteSchema))('%s: each PostgreSQL type holds what the SQLite type holds', (name) => {
    const lite = sqliteTableConfig(sqliteByName.get(name)!);
    const pg = pgTableConfig(pgByName.get(name)!);
    for (const c of lite.columns) {
      const twin = pg.columns.find((p) => p.name === c.name)!;
      expect(
        PG_TYPES[c.columnType],
        `${lite.name}.${c.name}: ${c.columnType} has no PostgreSQL twin listed`,
      ).toBeDefined();
      expect(PG_TYPES[c.columnType], `${lite.name}.${c.name}`).toContain(twin.columnType);
      // Millisecond times and 32-bit unsigned seeds pass PostgreSQL's 32-bit integer.
      if (/_at$|^seed$/.test(c.name))
        expect(twin.columnType, `${lite.name}.${c.name} must be 64-bit`).toBe('PgBigInt53');
    }
  });
});

describe('migrations of both dialects are up to date with their schema', () => {
  // drizzle-kit compares the schema with the last migration's snapshot: on a copy, nothing may be generated.
  it.each([
    { dialect: 'sqlite', schema: 'server/db/schema.sqlite.ts', folder: 'migrations', skip: ['pg', 'README.md'] },
    { dialect: 'postgresql', schema: 'server/db/schema.pg.ts', folder: 'migrations/pg', skip: [] },
  ])('$dialect ($folder)', ({ dialect, schema, folder, skip }) => {
    const out = mkdtempSync(join(tmpdir(), 'opsroom-migrations-'));
    try {
      cpSync(join(root, folder), out, {
        recursive: true,
        filter: (src) => !skip.some((s) => src === join(root, folder, s)),
      });
      const before = readdirSync(out).sort();
      const run = spawnSync(
        join(root, 'node_modules/.bin/drizzle-kit'),
        ['generate', `--dialect=${dialect}`, `--schema=${schema}`, `--out=${relative(root, out)}`],
        {
          cwd: root,
          encoding: 'utf8',
        },
      );
      // drizzle-kit may print an error and still exit 0: look for its all-clear too.
      expect(run.status, run.stderr).toBe(0);
      expect(readdirSync(out).sort(), `the schema changed: run npm run db:generate\n${run.stdout}`).toEqual(before);
      expect(run.stdout + run.stderr).toMatch(/No schema changes/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('the pg migrations on a real PostgreSQL', () => {
  let server: PostgresService;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('create every table and column of schema.pg.ts with its SQL type and nullability', async () => {
    const { pool } = await PgEngine.open(await server.createDatabase());
    try {
      const { rows } = await pool.query<{
        table_name: string;
        column_name: string;
        data_type: string;
        is_nullable: string;
      }>(
        `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public'`,
      );
      const all = rows
        .map((r) => `${r.table_name}.${r.column_name} ${r.data_type}${r.is_nullable === 'NO' ? ' not null' : ''}`)
        .sort();
      // The health probe's table is made at opening, outside the migrations, as on SQLite (server/db/sqlite.ts).
      expect(all.filter((c) => c.startsWith('health_probe.'))).toEqual([
        'health_probe.at bigint not null',
        'health_probe.id integer not null',
      ]);
      const actual = all.filter((c) => !c.startsWith('health_probe.'));
      const expected = pgTables
        .flatMap((t) => {
          const cfg = pgTableConfig(t);
          return cfg.columns.map((c) => `${cfg.name}.${c.name} ${c.getSQLType()}${c.notNull ? ' not null' : ''}`);
        })
        .sort();
      expect(actual).toEqual(expected);
      const idx = await pool.query<{ indexname: string }>(
        `SELECT indexname FROM pg_indexes WHERE schemaname = 'public'`,
      );
      const names = idx.rows.map((r) => r.indexname);
      for (const t of pgTables) for (const i of pgTableConfig(t).indexes) expect(names).toContain(i.config.name);
    } finally {
      await pool.end();
    }
  });

  it('apply once when several processes start at the same time, and again as a no-op', async () => {
    const url = await server.createDatabase();
    const opened = await Promise.all([PgEngine.open(url), PgEngine.open(url), PgEngine.open(url)]);
    const again = await PgEngine.open(url);
    try {
      const { rows } = await again.pool.query<{ n: string }>('SELECT count(*) AS n FROM drizzle.__drizzle_migrations');
      expect(Number(rows[0].n)).toBe(readdirSync(join(root, 'migrations/pg')).filter((f) => f.endsWith('.sql')).length);
    } finally {
      await Promise.all([...opened, again].map((o) => o.close()));
    }
  });

  it('store millisecond times and 32-bit seeds, and read them back as numbers', async () => {
    const store = await openPostgres(await server.createDatabase());
    try {
      const now = Date.UTC(2026, 10, 30, 12, 0, 0, 123);
      await store.commit([
        [
          { op: 'insertTeacher', id: 1, keyHash: 'k', createdAt: now },
          { op: 'insertRoom', id: 1, code: 'ABCD', teacherId: 1, config: {} as never, createdAt: now },
          {
            op: 'insertRound',
            round: {
              id: 1,
              roomId: 1,
              number: 1,
              simulator: 'web-service',
              scenario: 's',
              scenarioHash: null,
              seed: 0xffffffff,
              minutes: 60,
              tempo: 1,
              noise: true,
              state: 'lobby',
              minute: -1,
              createdAt: now,
              startedAt: null,
              forkOf: null,
            },
          },
        ],
      ]);
      const round = await store.roundById(1);
      expect(round).toMatchObject({ seed: 0xffffffff, createdAt: now, minute: -1, noise: true, startedAt: null });
      expect(typeof round?.createdAt).toBe('number');
      await expect(
        store.commit([[{ op: 'insertRoom', id: 2, code: 'ABCD', teacherId: 1, config: {} as never, createdAt: now }]]),
      ).rejects.toMatchObject({ code: '23505' }); // unique_violation
    } finally {
      await store.close();
    }
  });
});
