// The database schema, in code. `npx drizzle-kit generate` turns changes here into SQL in migrations/.

import { ROLE_CHANGE_REASONS, ROUND_STATES, type Tempo } from '../../shared/protocol/types.ts';
import type { SimulatorId } from '../../shared/sim/types.ts';
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** A teacher is a secret key (no account); everything they own hangs off it. */
export const teachers = sqliteTable('teachers', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  keyHash: text('key_hash').notNull().unique(),
  createdAt: integer('created_at').notNull(),
});

export const rooms = sqliteTable(
  'rooms',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    code: text('code').notNull().unique(),
    teacherId: integer('teacher_id')
      .notNull()
      .references(() => teachers.id),
    /** RoundConfig (JSON) for the next round. */
    config: text('config').notNull(),
    createdAt: integer('created_at').notNull(),
    /** The teacher locked the room to new students. */
    locked: integer('locked', { mode: 'boolean' }).notNull().default(false),
    /** The teacher shared the room's replays with its students (every team). */
    replayShared: integer('replay_shared', { mode: 'boolean' }).notNull().default(false),
    /**
     * Cluster mode: the highest fencing token a commit of this room carried. A commit with a lower token (from
     * a process that lost the room's lease) is refused; one process on SQLite never writes it.
     */
    fence: integer('fence').notNull().default(0),
    /** Cluster mode: when the room's owner last committed under its fence (a takeover soon after is a failover). */
    fencedAt: integer('fenced_at'),
  },
  (t) => [index('rooms_teacher').on(t.teacherId)],
);

export const teams = sqliteTable(
  'teams',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
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

export const players = sqliteTable(
  'players',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
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
    removed: integer('removed', { mode: 'boolean' }).notNull().default(false),
    joinedAt: integer('joined_at').notNull(),
  },
  (t) => [index('players_room').on(t.roomId)],
);

export const rounds = sqliteTable(
  'rounds',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    roomId: integer('room_id')
      .notNull()
      .references(() => rooms.id),
    number: integer('number').notNull(),
    simulator: text('simulator').$type<SimulatorId>().notNull(),
    scenario: text('scenario').notNull(),
    seed: integer('seed'),
    minutes: integer('minutes').notNull(),
    /** Real seconds per simulated minute: one of TEMPOS. */
    tempo: integer('tempo').$type<Tempo>().notNull(),
    /** Whether the round's simulation draws its random noise; re-simulation reads it from here. */
    noise: integer('noise', { mode: 'boolean' }).notNull().default(true),
    state: text('state', { enum: ROUND_STATES }).notNull(),
    /** Last stored minute; -1 before the start. */
    minute: integer('minute').notNull().default(-1),
    createdAt: integer('created_at').notNull(),
    startedAt: integer('started_at'),
    finishedAt: integer('finished_at'),
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
export const roundTeams = sqliteTable(
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
export const changes = sqliteTable(
  'changes',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
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
    at: integer('at').notNull(),
  },
  (t) => [index('changes_round_team').on(t.roundId, t.teamId, t.minute)],
);

/** Every minute snapshot (JSON), stored before it is broadcast. */
export const snapshots = sqliteTable(
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

export const scores = sqliteTable(
  'scores',
  {
    roundId: integer('round_id')
      .notNull()
      .references(() => rounds.id),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id),
    score: real('score'),
  },
  (t) => [primaryKey({ columns: [t.roundId, t.teamId] })],
);

export const goalResults = sqliteTable(
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
    value: real('value').notNull(),
    target: real('target').notNull(),
    met: integer('met', { mode: 'boolean' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.roundId, t.teamId, t.goalId] })],
);

/** Every time a role changed hands in a round (its lobby included), and who held each at the start. */
export const roleChanges = sqliteTable(
  'role_changes',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
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
    at: integer('at').notNull(),
  },
  (t) => [index('role_changes_round').on(t.roundId, t.teamId)],
);

/** Everyone who was in a team during a round (from its start), with every role they held in it. */
export const roundMembers = sqliteTable(
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
export const messages = sqliteTable(
  'messages',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    roundId: integer('round_id')
      .notNull()
      .references(() => rounds.id),
    teamId: integer('team_id').references(() => teams.id),
    text: text('text').notNull(),
    at: integer('at').notNull(),
  },
  (t) => [index('messages_round').on(t.roundId)],
);
