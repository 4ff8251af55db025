// The database schema, once for both engines: every table, column, key and index, written against a small kit of
// column kinds that each engine's file (schema.sqlite.ts, schema.pg.ts) fills with drizzle's builders of its
// dialect. `npm run db:generate` turns a change here into a migration for each engine (migrations/, migrations/pg/);
// the queries themselves are SQL in store.ts and writes.ts, also written once.
//
// Where the engines differ, the kit decides: ids are SQLite's autoincrement or PostgreSQL's identity; millisecond
// times and seeds are 64-bit (SQLite's INTEGER, PostgreSQL's bigint); booleans are SQLite's 0/1 or PostgreSQL's
// boolean; REAL is a double on both.
import { ROLE_CHANGE_REASONS, ROUND_STATES } from '../../shared/protocol/types.ts';

/** A column being declared: drizzle's builders of either dialect have these. */
export interface Col {
  notNull(): Col;
  default(value: unknown): Col;
  unique(): Col;
  references(ref: () => unknown): Col;
}
/** An index or key being declared (drizzle's `index('x').on(...)`, `primaryKey({ columns })`). */
type Extra = unknown;
type Columns = Record<string, Col>;
type Table<C extends Columns> = { [K in keyof C]: unknown };

/** The column kinds of one engine. */
export interface SchemaKit {
  table<C extends Columns>(name: string, columns: C, extra?: (t: Table<C>) => Extra[]): Table<C>;
  /** The row id, given by the database when not given by the insert. */
  id(): Col;
  int(name: string): Col;
  /** Milliseconds since the epoch, or any other 64-bit whole number (a seed). */
  int64(name: string): Col;
  real(name: string): Col;
  bool(name: string): Col;
  text(name: string, opts?: { enum: readonly [string, ...string[]] }): Col;
  index(name: string): { on(...cols: unknown[]): Extra };
  uniqueIndex(name: string): { on(...cols: unknown[]): Extra };
  primaryKey(opts: { columns: unknown[] }): Extra;
}

export function tables(k: SchemaKit) {
  /** A row of another table this row belongs to. */
  const ref = (name: string, to: () => unknown) => k.int(name).notNull().references(to);
  /** A teacher is a secret key (no account); everything they own hangs off it. */
  const teachers = k.table('teachers', {
    id: k.id(),
    keyHash: k.text('key_hash').notNull().unique(),
    createdAt: k.int64('created_at').notNull(),
  });

  const rooms = k.table(
    'rooms',
    {
      id: k.id(),
      code: k.text('code').notNull().unique(),
      teacherId: ref('teacher_id', () => teachers.id),
      /** RoundConfig (JSON) for the next round. */
      config: k.text('config').notNull(),
      createdAt: k.int64('created_at').notNull(),
      /** The teacher locked the room to new students. */
      locked: k.bool('locked').notNull().default(false),
      /** The teacher shared the room's replays with its students (every team). */
      replayShared: k.bool('replay_shared').notNull().default(false),
      /**
       * Cluster mode: the highest fencing token a commit of this room carried. A commit with a lower token (from
       * a process that lost the room's lease) is refused; one process on SQLite never writes it.
       */
      fence: k.int('fence').notNull().default(0),
      /** Cluster mode: when the room's owner last committed under its fence (a takeover soon after is a failover). */
      fencedAt: k.int64('fenced_at'),
    },
    (t) => [k.index('rooms_teacher').on(t.teacherId)],
  );

  const teams = k.table(
    'teams',
    {
      id: k.id(),
      roomId: ref('room_id', () => rooms.id),
      idx: k.int('idx').notNull(),
      name: k.text('name').notNull(),
      /** In a what-if room: WhatIfOrigin (JSON), the original team and minute. */
      whatIf: k.text('what_if'),
    },
    (t) => [k.uniqueIndex('teams_room_idx').on(t.roomId, t.idx)],
  );

  const players = k.table(
    'players',
    {
      id: k.id(),
      roomId: ref('room_id', () => rooms.id),
      teamId: k.int('team_id').references(() => teams.id),
      name: k.text('name').notNull(),
      tokenHash: k.text('token_hash').notNull().unique(),
      /** Order within the team: the deal of roles follows it. */
      seq: k.int('seq').notNull(),
      /** Role ids (JSON array) dealt to this player. */
      roles: k.text('roles').notNull().default('[]'),
      removed: k.bool('removed').notNull().default(false),
      joinedAt: k.int64('joined_at').notNull(),
    },
    (t) => [k.index('players_room').on(t.roomId)],
  );

  /**
   * Every scenario a round was played with or a teacher saved, as the file's text, by the SHA-256 of that text: never
   * changed, so that a round's replay re-simulates from exactly what it was played with after the scenario is edited
   * or deleted (a content nothing refers to any more is dropped).
   */
  const scenarioContents = k.table(
    'scenario_contents',
    {
      hash: k.text('hash').notNull(),
      simulator: k.text('simulator').notNull(),
      content: k.text('content').notNull(),
      createdAt: k.int64('created_at').notNull(),
    },
    (t) => [k.primaryKey({ columns: [t.hash] })],
  );

  /** A teacher's own scenarios (docs/scenarios.md): the file's id, scoped to the teacher, and its current content. */
  const scenarios = k.table(
    'scenarios',
    {
      teacherId: ref('teacher_id', () => teachers.id),
      /** The file's `id`. */
      scenarioId: k.text('scenario_id').notNull(),
      simulator: k.text('simulator').notNull(),
      /** The English brief's name, for lists (the file holds it too). */
      title: k.text('title').notNull(),
      hash: k
        .text('hash')
        .notNull()
        .references(() => scenarioContents.hash),
      /** 1 when first saved, one more at each save. */
      version: k.int('version').notNull(),
      /** The link another teacher imports it by; null until the teacher shares it. */
      shareToken: k.text('share_token').unique(),
      createdAt: k.int64('created_at').notNull(),
      updatedAt: k.int64('updated_at').notNull(),
    },
    (t) => [k.primaryKey({ columns: [t.teacherId, t.scenarioId] })],
  );

  const rounds = k.table(
    'rounds',
    {
      id: k.id(),
      roomId: ref('room_id', () => rooms.id),
      number: k.int('number').notNull(),
      simulator: k.text('simulator').notNull(),
      scenario: k.text('scenario').notNull(),
      /** The content played (scenario_contents); null in rounds stored before contents were: the built-in by its id. */
      scenarioHash: k.text('scenario_hash').references(() => scenarioContents.hash),
      seed: k.int64('seed'),
      minutes: k.int('minutes').notNull(),
      /** Real seconds per simulated minute: one of TEMPOS. */
      tempo: k.int('tempo').notNull(),
      /** Whether the round's simulation draws its random noise; re-simulation reads it from here. */
      noise: k.bool('noise').notNull().default(true),
      state: k.text('state', { enum: ROUND_STATES }).notNull(),
      /** Last stored minute; -1 before the start. */
      minute: k.int('minute').notNull().default(-1),
      createdAt: k.int64('created_at').notNull(),
      startedAt: k.int64('started_at'),
      finishedAt: k.int64('finished_at'),
      forkOfRoundId: k.int('fork_of_round_id'),
      forkOfTeamId: k.int('fork_of_team_id'),
      forkMinute: k.int('fork_minute'),
    },
    (t) => [
      k.uniqueIndex('rounds_room_number').on(t.roomId, t.number),
      k.index('rounds_state').on(t.state),
      k.index('rounds_fork_of').on(t.forkOfRoundId),
    ],
  );

  /** The teams that play a round, with their names at the time. */
  const roundTeams = k.table(
    'round_teams',
    {
      roundId: ref('round_id', () => rounds.id),
      teamId: ref('team_id', () => teams.id),
      idx: k.int('idx').notNull(),
      name: k.text('name').notNull(),
    },
    (t) => [k.primaryKey({ columns: [t.roundId, t.teamId] })],
  );

  /** Every control change, recorded when received; applied at the start of `minute`. */
  const changes = k.table(
    'changes',
    {
      id: k.id(),
      roundId: ref('round_id', () => rounds.id),
      teamId: ref('team_id', () => teams.id),
      minute: k.int('minute').notNull(),
      /** Order among the round's changes as the room took them (ChangeRecord.seq): reads order by it, not by id. */
      seq: k.int('seq').notNull().default(0),
      key: k.text('key').notNull(),
      /** JSON value in base units. */
      value: k.text('value').notNull(),
      playerId: k.int('player_id').references(() => players.id),
      authorName: k.text('author_name').notNull(),
      at: k.int64('at').notNull(),
      /** Who made it (Actor as JSON); null in rows stored before actors were: a student (a what-if's: its pending play). */
      actor: k.text('actor'),
    },
    (t) => [k.index('changes_round_team').on(t.roundId, t.teamId, t.minute)],
  );

  /** Every minute snapshot (JSON), stored before it is broadcast. */
  const snapshots = k.table(
    'snapshots',
    {
      roundId: ref('round_id', () => rounds.id),
      teamId: ref('team_id', () => teams.id),
      minute: k.int('minute').notNull(),
      data: k.text('data').notNull(),
      /** When the minute was sent (epoch ms); null in rows stored before it was kept, and in a what-if's copied minutes. */
      at: k.int64('at'),
    },
    (t) => [k.primaryKey({ columns: [t.roundId, t.teamId, t.minute] })],
  );

  const scores = k.table(
    'scores',
    {
      roundId: ref('round_id', () => rounds.id),
      teamId: ref('team_id', () => teams.id),
      score: k.real('score'),
    },
    (t) => [k.primaryKey({ columns: [t.roundId, t.teamId] })],
  );

  const goalResults = k.table(
    'goal_results',
    {
      roundId: ref('round_id', () => rounds.id),
      teamId: ref('team_id', () => teams.id),
      goalId: k.text('goal_id').notNull(),
      indicator: k.text('indicator').notNull(),
      op: k.text('op', { enum: ['>=', '<='] }).notNull(),
      value: k.real('value').notNull(),
      target: k.real('target').notNull(),
      met: k.bool('met').notNull(),
    },
    (t) => [k.primaryKey({ columns: [t.roundId, t.teamId, t.goalId] })],
  );

  /** Every time a role changed hands in a round (its lobby included), and who held each at the start. */
  const roleChanges = k.table(
    'role_changes',
    {
      id: k.id(),
      roundId: ref('round_id', () => rounds.id),
      teamId: ref('team_id', () => teams.id),
      minute: k.int('minute').notNull(),
      role: k.text('role').notNull(),
      fromPlayerId: k.int('from_player_id').references(() => players.id),
      fromName: k.text('from_name'),
      toPlayerId: k.int('to_player_id').references(() => players.id),
      toName: k.text('to_name'),
      reason: k.text('reason', { enum: ROLE_CHANGE_REASONS }).notNull(),
      at: k.int64('at').notNull(),
    },
    (t) => [k.index('role_changes_round').on(t.roundId, t.teamId)],
  );

  /** Everyone who was in a team during a round (from its start), with every role they held in it. */
  const roundMembers = k.table(
    'round_members',
    {
      roundId: ref('round_id', () => rounds.id),
      teamId: ref('team_id', () => teams.id),
      playerId: ref('player_id', () => players.id),
      /** Order of arrival in the team during the round. */
      seq: k.int('seq').notNull(),
      name: k.text('name').notNull(),
      /** Role ids (JSON array), in the simulator's order. */
      roles: k.text('roles').notNull(),
    },
    (t) => [
      k.primaryKey({ columns: [t.roundId, t.teamId, t.playerId] }),
      k.index('round_members_player').on(t.playerId),
    ],
  );

  /** Every seat passed to a pilot (the autopilot, the teacher) or taken back by its student, in a round. */
  const seatTurns = k.table(
    'seat_turns',
    {
      id: k.id(),
      roundId: ref('round_id', () => rounds.id),
      teamId: ref('team_id', () => teams.id),
      playerId: k.int('player_id').references(() => players.id),
      name: k.text('name').notNull(),
      /** Role ids (JSON array) the seat had then. */
      roles: k.text('roles').notNull(),
      minute: k.int('minute').notNull(),
      /** SeatPilot (JSON); null: the student took the seat back. */
      pilot: k.text('pilot'),
      at: k.int64('at').notNull(),
    },
    (t) => [k.index('seat_turns_round').on(t.roundId, t.teamId)],
  );

  /** The teacher's messages, to one team (team_id) or to all (null). */
  const messages = k.table(
    'messages',
    {
      id: k.id(),
      roundId: ref('round_id', () => rounds.id),
      teamId: k.int('team_id').references(() => teams.id),
      text: k.text('text').notNull(),
      at: k.int64('at').notNull(),
    },
    (t) => [k.index('messages_round').on(t.roundId)],
  );

  /** The school's ids of a room's students, as the teacher mapped them for the gradebook (docs/gradebook.md). */
  const rosterIds = k.table(
    'roster_ids',
    {
      roomId: ref('room_id', () => rooms.id),
      playerId: ref('player_id', () => players.id),
      schoolId: k.text('school_id').notNull(),
      email: k.text('email').notNull().default(''),
    },
    (t) => [k.primaryKey({ columns: [t.roomId, t.playerId] })],
  );

  return {
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
  };
}
