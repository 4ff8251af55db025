// schema.ts in PostgreSQL's column kinds, for drizzle-kit (drizzle.pg.config.ts): `npm run db:generate` writes
// migrations/pg/.
import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { type SchemaKit, tables } from './schema.ts';

const kit = {
  table: pgTable,
  id: () => integer('id').primaryKey().generatedByDefaultAsIdentity(),
  int: (name: string) => integer(name),
  int64: (name: string) => bigint(name, { mode: 'number' }),
  real: (name: string) => doublePrecision(name),
  bool: (name: string) => boolean(name),
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
