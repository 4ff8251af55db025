// schema.ts in SQLite's column kinds, for drizzle-kit (drizzle.config.ts): `npm run db:generate` writes migrations/.
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { type SchemaKit, tables } from './schema.ts';

const kit = {
  table: sqliteTable,
  id: () => integer('id').primaryKey({ autoIncrement: true }),
  int: (name: string) => integer(name),
  // SQLite's INTEGER holds 64 bits.
  int64: (name: string) => integer(name),
  real: (name: string) => real(name),
  bool: (name: string) => integer(name, { mode: 'boolean' }),
  text: (name: string, opts?: { enum: readonly [string, ...string[]] }) =>
    opts ? text(name, { enum: opts.enum as [string, ...string[]] }) : text(name),
  index,
  uniqueIndex,
  primaryKey,
} as unknown as SchemaKit;

export const {
  teachers,
  rooms,
  teams,
  players,
  rounds,
  roundTeams,
  changes,
  snapshots,
  scores,
  goalResults,
  roleChanges,
  roundMembers,
  seatTurns,
  messages,
  rosterIds,
  scenarioContents,
  scenarios,
} = tables(kit);
