// The same schema for PostgreSQL (cluster mode): the tables, columns, keys and indexes of schema.ts, so that
// every query of the Store reads and writes the same rows on either engine (test/cluster/schema.test.ts holds
// the two in step). `npm run db:generate` writes its migrations into migrations/pg/.
//
// Types where the engines differ: SQLite's INTEGER is 64-bit, so the millisecond times (and seeds up to
// 2³²−1) are bigint here, read as JavaScript numbers; SQLite's REAL is a double, so is double precision;
// boolean columns are real booleans; ids are identity columns.
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
import { ROLE_CHANGE_REASONS, ROUND_STATES, type Tempo } from '../../shared/protocol/types.ts';
import type { SimulatorId } from '../../shared/sim/types.ts';

const id = () => integer('id').primaryKey().generatedByDefaultAsIdentity();
/** Milliseconds since the epoch. */
const millis = (name: string) => bigint(name, { mode: 'number' });

/** A teacher is a secret key (no account); everything they own hangs off it. */
export const teachers = pgTable('teachers', {
  id: id(),
  keyHash: text('key_hash').notNull().unique(),
  createdAt: millis('created_at').notNull(),
});

export const rooms = pgTable(
  'rooms',
  {
    id: id(),
    code: text('code').notNull().unique(),
    teacherId: integer('teacher_id')
      .notNull()
      .references(() => teachers.id),
    /** RoundConfig (JSON) for the next round. */
    config: text('config').notNull(),
    createdAt: millis('created_at').notNull(),
    /** The teacher locked the room to new students. */
    locked: boolean('locked').notNull().default(false),
    /** The teacher shared the room's replays with its students (every team). */
    replayShared: boolean('replay_shared').notNull().default(false),
    /** The highest fencing token a commit of this room carried: a commit with a lower one is refused. */
    fence: integer('fence').notNull().default(0),
    /** When the room's owner last committed under its fence (a takeover soon after is a failover). */
    fencedAt: millis('fenced_at'),
  },
  (t) => [index('rooms_teacher').on(t.teacherId)],
);

export const teams = pgTable(
  'teams',
  {
    id: id(),
    roomId: integer('room_id')
      .notNull()
      .references(() => rooms.id),
    idx: integer('idx').notNull(),
    name: text('name').notNull(),
    /** In a what-if room: WhatIfOrigin (JSON), the original team and minute. */
    whatIf: text('what_if'),
  },
  (t) => [uniqueIndex('teams_room_idx').on(t.roomId, t.idx)],
);

export const players = pgTable(
  'players',
  {
    id: id(),
    roomId: integer('room_id')
      .notNull()
      .references(() => rooms.id),
    teamId: integer('team_id').references(() => teams.id),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    /** Order within the team: the deal of roles follows it. */
    seq: integer('seq').notNull(),
    /** Role ids (JSON array) dealt to this player. */
    roles: text('roles').notNull().default('[]'),
    removed: boolean('removed').notNull().default(false),
    joinedAt: millis('joined_at').notNull(),
  },
  (t) => [index('players_room').on(t.roomId)],
);

export const rounds = pgTable(
  'rounds',
  {
    id: id(),
    roomId: integer('room_id')
      .notNull()
      .references(() => rooms.id),
    number: integer('number').notNull(),
    simulator: text('simulator').$type<SimulatorId>().notNull(),
    scenario: text('scenario').notNull(),
    seed: bigint('seed', { mode: 'number' }),
    minutes: integer('minutes').notNull(),
    /** Real seconds per simulated minute: one of TEMPOS. */
    tempo: integer('tempo').$type<Tempo>().notNull(),
    noise: boolean('noise').notNull().default(true),
    /** lobby | running | paused | finished */
    state: text('state', { enum: ROUND_STATES }).notNull(),
    /** Last stored minute; -1 before the start. */
    minute: integer('minute').notNull().default(-1),
    createdAt: millis('created_at').notNull(),
    startedAt: millis('started_at'),
    finishedAt: millis('finished_at'),
    forkOfRoundId: integer('fork_of_round_id'),
    forkOfTeamId: integer('fork_of_team_id'),
    forkMinute: integer('fork_minute'),
  },
  (t) => [
    uniqueIndex('rounds_room_number').on(t.roomId, t.number),
    index('rounds_state').on(t.state),
    index('rounds_fork_of').on(t.forkOfRoundId),
  ],
);

/** The teams that play a round, with their names at the time. */
export const roundTeams = pgTable(
  'round_teams',
  {
    roundId: integer('round_id')
      .notNull()
      .references(() => rounds.id),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id),
    idx: integer('idx').notNull(),
    name: text('name').notNull(),
  },
  (t) => [primaryKey({ columns: [t.roundId, t.teamId] })],
);

/** Every control change, recorded when received; applied at the start of `minute`. */
export const changes = pgTable(
  'changes',
  {
    id: id(),
    roundId: integer('round_id')
      .notNull()
      .references(() => rounds.id),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id),
    minute: integer('minute').notNull(),
    key: text('key').notNull(),
    /** JSON value in base units. */
    value: text('value').notNull(),
    playerId: integer('player_id').references(() => players.id),
    authorName: text('author_name').notNull(),
    at: millis('at').notNull(),
  },
  (t) => [index('changes_round_team').on(t.roundId, t.teamId, t.minute)],
);

/** Every minute snapshot (JSON), stored before it is broadcast. */
export const snapshots = pgTable(
  'snapshots',
  {
    roundId: integer('round_id')
      .notNull()
      .references(() => rounds.id),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id),
    minute: integer('minute').notNull(),
    data: text('data').notNull(),
  },
  (t) => [primaryKey({ columns: [t.roundId, t.teamId, t.minute] })],
);

export const scores = pgTable(
  'scores',
  {
    roundId: integer('round_id')
      .notNull()
      .references(() => rounds.id),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id),
    score: doublePrecision('score'),
  },
  (t) => [primaryKey({ columns: [t.roundId, t.teamId] })],
);

export const goalResults = pgTable(
  'goal_results',
  {
    roundId: integer('round_id')
      .notNull()
      .references(() => rounds.id),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id),
    goalId: text('goal_id').notNull(),
    indicator: text('indicator').notNull(),
    op: text('op', { enum: ['>=', '<='] }).notNull(),
    value: doublePrecision('value').notNull(),
    target: doublePrecision('target').notNull(),
    met: boolean('met').notNull(),
  },
  (t) => [primaryKey({ columns: [t.roundId, t.teamId, t.goalId] })],
);

/** Every time a role changed hands in a round (its lobby included), and who held each at the start. */
export const roleChanges = pgTable(
  'role_changes',
  {
    id: id(),
    roundId: integer('round_id')
      .notNull()
      .references(() => rounds.id),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id),
    minute: integer('minute').notNull(),
    role: text('role').notNull(),
    fromPlayerId: integer('from_player_id').references(() => players.id),
    fromName: text('from_name'),
    toPlayerId: integer('to_player_id').references(() => players.id),
    toName: text('to_name'),
    reason: text('reason', { enum: ROLE_CHANGE_REASONS }).notNull(),
    at: millis('at').notNull(),
  },
  (t) => [index('role_changes_round').on(t.roundId, t.teamId)],
);

/** Everyone who was in a team during a round (from its start), with every role they held in it. */
export const roundMembers = pgTable(
  'round_members',
  {
    roundId: integer('round_id')
      .notNull()
      .references(() => rounds.id),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id),
    playerId: integer('player_id')
      .notNull()
      .references(() => players.id),
    /** Order of arrival in the team during the round. */
    seq: integer('seq').notNull(),
    name: text('name').notNull(),
    /** Role ids (JSON array), in the simulator's order. */
    roles: text('roles').notNull(),
  },
  (t) => [primaryKey({ columns: [t.roundId, t.teamId, t.playerId] }), index('round_members_player').on(t.playerId)],
);

/** The teacher's messages, to one team (team_id) or to all (null). */
export const messages = pgTable(
  'messages',
  {
    id: id(),
    roundId: integer('round_id')
      .notNull()
      .references(() => rounds.id),
    teamId: integer('team_id').references(() => teams.id),
    text: text('text').notNull(),
    at: millis('at').notNull(),
  },
  (t) => [index('messages_round').on(t.roundId)],
);
