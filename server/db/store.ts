// Every read and write the classroom makes, once, for both engines: `SqlStore` runs the same SQL on SQLite (one
// process, sqlite.ts) or PostgreSQL (cluster mode, pg.ts) through a small `Engine`. Writes are data (writes.ts),
// applied by `commit` in one transaction.
import type {
  Actor,
  ChangeRecord,
  RoleChange,
  RosterEntry,
  RoundState,
  SeatPilot,
  SeatTurn,
  TeacherMessage,
} from '../../shared/protocol/types.ts';
import type {
  AuthoredRecord,
  MinuteRecord,
  PlayerRecord,
  RoomRecord,
  RoundMemberRecord,
  RoundRecord,
  RoundTeamRecord,
  ScenarioContentRecord,
  TeamRecord,
  TeamResultRecord,
} from './records.ts';
import { type IdSource, type Statement, statements, type Write } from './writes.ts';

/** What differs between SQLite and PostgreSQL, behind the one Store. */
export interface Engine {
  readonly ids: IdSource;
  /** The database's own check of its pages at opening: ['ok'], or what it found wrong (health.ts). */
  readonly integrity: readonly string[];
  /** The rows of one query (SQL with `?` placeholders). */
  query<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** The statements in one transaction: all of them or none. */
  transaction(statements: readonly Statement[]): Promise<void>;
  /** Writes and commits one row that holds no classroom data; rejects when the database cannot be written. */
  probe(at: number): Promise<void>;
  close(): Promise<void>;
}

export interface Store {
  readonly ids: IdSource;
  /** Applies every list in one transaction: all of them or none. */
  commit(lists: readonly (readonly Write[])[]): Promise<void>;
  close(): Promise<void>;
  /** The database's own check of its pages at opening: ['ok'], or what it found wrong (db/health.ts). */
  readonly integrity: readonly string[];
  /** Writes and commits one row that holds no classroom data; rejects when the database cannot be written. */
  probe(at: number): Promise<void>;

  /**
   * Cluster mode: stores `token` as the room's fence if it is higher than the stored one, so that from now on
   * only commits with `token` or higher are accepted. Returns the room as it stood (`fencedAt` of the previous
   * owner's last commit), or undefined when the room is missing or a token at least as high is stored.
   */
  claimRoom(roomId: number, token: number): Promise<RoomRecord | undefined>;
  /**
   * Cluster mode: moves the room's fence from `from` to `to` only if `from` is still the stored one (the owner takes
   * its lease again after an outage of Redis); false when another process has stored its own meanwhile.
   */
  retakeRoom(roomId: number, from: number, to: number): Promise<boolean>;
  /** Rooms whose latest round is running (cluster mode: the rooms a process must take when nobody holds them). */
  roomsInPlay(): Promise<RoomRecord[]>;

  teacherByKeyHash(keyHash: string): Promise<number | undefined>;
  codeExists(code: string): Promise<boolean>;
  roomByCode(code: string): Promise<RoomRecord | undefined>;
  roomById(id: number): Promise<RoomRecord | undefined>;
  /** Newest first. */
  roomsOfTeacher(teacherId: number): Promise<RoomRecord[]>;

  /** By index. */
  teamsOfRoom(roomId: number): Promise<TeamRecord[]>;
  /** By id, removed ones included. */
  playersOfRoom(roomId: number): Promise<PlayerRecord[]>;
  playerByTokenHash(tokenHash: string): Promise<PlayerRecord | undefined>;

  roundById(id: number): Promise<RoundRecord | undefined>;
  latestRound(roomId: number): Promise<RoundRecord | undefined>;
  /** Newest first. */
  roundsOfRoom(roomId: number): Promise<RoundRecord[]>;
  roundsInState(states: readonly RoundState[]): Promise<RoundRecord[]>;
  /** Rounds forked from this one, oldest first. */
  forksOf(roundId: number): Promise<RoundRecord[]>;
  /** The teams that play a round, by index. */
  roundTeams(roundId: number): Promise<RoundTeamRecord[]>;

  /** In the order the room took them (by `seq`). */
  changesOfRound(roundId: number, only?: { teamId: number; upToMinute: number }): Promise<ChangeRecord[]>;
  /** By team, then minute. */
  snapshotsOfRound(roundId: number, only?: { teamId: number; upToMinute?: number }): Promise<MinuteRecord[]>;
  resultsOfRound(roundId: number): Promise<TeamResultRecord[]>;

  /** Oldest first. */
  roleChangesOfRound(roundId: number): Promise<RoleChange[]>;
  /** Oldest first. */
  seatTurnsOfRound(roundId: number): Promise<SeatTurn[]>;
  /** By team, then order of arrival. */
  roundMembers(roundId: number): Promise<RoundMemberRecord[]>;
  /** The rounds a player was a member of, with the team: newest round first. */
  roundsOfPlayer(playerId: number): Promise<{ roundId: number; teamId: number }[]>;
  /** Oldest first. */
  messagesOfRound(roundId: number): Promise<TeacherMessage[]>;
  /** The school's ids the teacher mapped to the room's students (docs/gradebook.md). */
  rosterOfRoom(roomId: number): Promise<RosterEntry[]>;
  /** Rooms of the teacher created since `since` (epoch ms) whose latest round is not finished. */
  liveRoomCount(teacherId: number, since: number): Promise<number>;
  /**
   * Team-minutes the teacher's rooms keep: each started round's teams × its minutes (a round not finished counts
   * its whole length, which it may still reach).
   */
  teacherMinutes(teacherId: number): Promise<number>;
  /** Up to `limit` rooms of the teacher, newest first, older than `before` (a room's creation time and id). */
  roomsOfTeacherPage(teacherId: number, limit: number, before?: RoomCursor): Promise<RoomRecord[]>;
  /** The rounds of these rooms, each room's newest first. */
  roundsOfRooms(roomIds: readonly number[]): Promise<RoundRecord[]>;
  /** The teams of these rounds, by round then index. */
  teamsOfRounds(roundIds: readonly number[]): Promise<RoundTeamRecord[]>;
  /** Each team's score and goals met of these rounds (finished teams only). */
  standingsOfRounds(roundIds: readonly number[]): Promise<TeamStanding[]>;

  /** A scenario's content by its hash. */
  scenarioContent(hash: string): Promise<ScenarioContentRecord | undefined>;
  /** The teacher's own scenarios, the latest saved first. */
  scenariosOfTeacher(teacherId: number): Promise<AuthoredRecord[]>;
  /** One of the teacher's own scenarios, with its current content's text. */
  scenarioOfTeacher(teacherId: number, id: string): Promise<(AuthoredRecord & { text: string }) | undefined>;
  /** A shared scenario by its token, with its current content's text. */
  sharedScenario(token: string): Promise<(AuthoredRecord & { text: string }) | undefined>;
}

/** Where a page of rooms starts: rooms created before this (or at the same time with a lower id). */
export interface RoomCursor {
  createdAt: number;
  id: number;
}

/** A team's result in a round, counted: its score and how many of its goals it met. */
export interface TeamStanding {
  roundId: number;
  teamId: number;
  score: number | null;
  goals: number;
  met: number;
}

// Rows as the engines return them: snake_case columns; SQLite's booleans as 0/1.
type Row = Record<string, unknown>;
const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string => v as string;
const parse = <T>(v: unknown): T => JSON.parse(v as string) as T;

function roomRecord(r: Row): RoomRecord {
  return {
    id: num(r.id),
    code: str(r.code),
    teacherId: num(r.teacher_id),
    config: parse(r.config),
    createdAt: num(r.created_at),
    locked: Boolean(r.locked),
    replayShared: Boolean(r.replay_shared),
    fence: num(r.fence),
    fencedAt: numOrNull(r.fenced_at),
  };
}

function roundRecord(r: Row): RoundRecord {
  const forkOf = r.fork_of_round_id === null ? null : num(r.fork_of_round_id);
  return {
    id: num(r.id),
    roomId: num(r.room_id),
    number: num(r.number),
    simulator: str(r.simulator) as RoundRecord['simulator'],
    scenario: str(r.scenario),
    scenarioHash: r.scenario_hash === null || r.scenario_hash === undefined ? null : str(r.scenario_hash),
    seed: numOrNull(r.seed),
    minutes: num(r.minutes),
    tempo: num(r.tempo) as RoundRecord['tempo'],
    noise: Boolean(r.noise),
    state: str(r.state) as RoundState,
    minute: num(r.minute),
    createdAt: num(r.created_at),
    startedAt: numOrNull(r.started_at),
    finishedAt: numOrNull(r.finished_at),
    forkOf:
      forkOf === null || r.fork_of_team_id === null || r.fork_minute === null
        ? null
        : { roundId: forkOf, teamId: num(r.fork_of_team_id), minute: num(r.fork_minute) },
  };
}

function authoredRecord(r: Row): AuthoredRecord {
  return {
    teacherId: num(r.teacher_id),
    id: str(r.scenario_id),
    simulator: str(r.simulator) as AuthoredRecord['simulator'],
    title: str(r.title),
    hash: str(r.hash),
    version: num(r.version),
    shareToken: r.share_token === null || r.share_token === undefined ? null : str(r.share_token),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}
const withText = (r: Row) => ({ ...authoredRecord(r), text: str(r.content) });

function playerRecord(p: Row): PlayerRecord {
  return {
    id: num(p.id),
    roomId: num(p.room_id),
    teamId: numOrNull(p.team_id),
    name: str(p.name),
    seq: num(p.seq),
    roles: parse(p.roles),
    removed: Boolean(p.removed),
    joinedAt: num(p.joined_at),
  };
}

const whatIf = (v: unknown) => (v === null || v === undefined ? null : parse<TeamRecord['whatIf']>(v));

function changeRecord(c: Row): ChangeRecord {
  return {
    id: num(c.id),
    seq: num(c.seq),
    roundId: num(c.round_id),
    teamId: num(c.team_id),
    minute: num(c.minute),
    key: str(c.key),
    value: parse(c.value),
    author: { playerId: numOrNull(c.player_id), name: str(c.author_name) },
    at: num(c.at),
    actor: c.actor === null || c.actor === undefined ? { kind: 'student' } : parse<Actor>(c.actor),
  };
}

function seatTurnRecord(r: Row): SeatTurn {
  return {
    roundId: num(r.round_id),
    teamId: num(r.team_id),
    playerId: numOrNull(r.player_id),
    name: str(r.name),
    roles: parse(r.roles),
    minute: num(r.minute),
    pilot: r.pilot === null || r.pilot === undefined ? null : parse<SeatPilot>(r.pilot),
    at: num(r.at),
  };
}

function roleChangeRecord(r: Row): RoleChange {
  return {
    roundId: num(r.round_id),
    teamId: num(r.team_id),
    minute: num(r.minute),
    role: str(r.role),
    reason: str(r.reason) as RoleChange['reason'],
    at: num(r.at),
    from: r.from_player_id === null ? null : { playerId: num(r.from_player_id), name: str(r.from_name ?? '') },
    to: r.to_player_id === null ? null : { playerId: num(r.to_player_id), name: str(r.to_name ?? '') },
  };
}

/** The Store over an engine: the classroom's SQL, once. */
export class SqlStore implements Store {
  constructor(readonly engine: Engine) {}

  get ids(): IdSource {
    return this.engine.ids;
  }
  get integrity(): readonly string[] {
    return this.engine.integrity;
  }
  probe(at: number): Promise<void> {
    return this.engine.probe(at);
  }
  close(): Promise<void> {
    return this.engine.close();
  }

  async commit(lists: readonly (readonly Write[])[]): Promise<void> {
    const list = statements(lists);
    if (list.length) await this.engine.transaction(list);
  }

  private async one<T>(sql: string, params: readonly unknown[], map: (r: Row) => T): Promise<T | undefined> {
    const [row] = await this.engine.query<Row>(sql, params);
    return row === undefined ? undefined : map(row);
  }
  private async many<T>(sql: string, params: readonly unknown[], map: (r: Row) => T): Promise<T[]> {
    return (await this.engine.query<Row>(sql, params)).map(map);
  }

  claimRoom(roomId: number, token: number): Promise<RoomRecord | undefined> {
    return this.one(
      'UPDATE rooms SET fence = ? WHERE id = ? AND fence < ? RETURNING *',
      [token, roomId, token],
      roomRecord,
    );
  }

  async retakeRoom(roomId: number, from: number, to: number): Promise<boolean> {
    const row = await this.one(
      'UPDATE rooms SET fence = ? WHERE id = ? AND fence = ? RETURNING id',
      [to, roomId, from],
      (r) => num(r.id),
    );
    return row !== undefined;
  }

  roomsInPlay(): Promise<RoomRecord[]> {
    // A running round is its room's latest: the next round is only opened once this one is finished.
    return this.many(
      "SELECT rooms.* FROM rooms JOIN rounds ON rounds.room_id = rooms.id WHERE rounds.state = 'running' ORDER BY rooms.id",
      [],
      roomRecord,
    );
  }

  teacherByKeyHash(keyHash: string): Promise<number | undefined> {
    return this.one('SELECT id FROM teachers WHERE key_hash = ?', [keyHash], (r) => num(r.id));
  }
  async codeExists(code: string): Promise<boolean> {
    return (await this.one('SELECT id FROM rooms WHERE code = ?', [code], (r) => r)) !== undefined;
  }
  roomByCode(code: string): Promise<RoomRecord | undefined> {
    return this.one('SELECT * FROM rooms WHERE code = ?', [code], roomRecord);
  }
  roomById(id: number): Promise<RoomRecord | undefined> {
    return this.one('SELECT * FROM rooms WHERE id = ?', [id], roomRecord);
  }
  roomsOfTeacher(teacherId: number): Promise<RoomRecord[]> {
    return this.many(
      'SELECT * FROM rooms WHERE teacher_id = ? ORDER BY created_at DESC, id DESC',
      [teacherId],
      roomRecord,
    );
  }

  teamsOfRoom(roomId: number): Promise<TeamRecord[]> {
    return this.many('SELECT * FROM teams WHERE room_id = ? ORDER BY idx', [roomId], (t) => ({
      id: num(t.id),
      roomId: num(t.room_id),
      idx: num(t.idx),
      name: str(t.name),
      whatIf: whatIf(t.what_if),
    }));
  }
  playersOfRoom(roomId: number): Promise<PlayerRecord[]> {
    return this.many('SELECT * FROM players WHERE room_id = ? ORDER BY id', [roomId], playerRecord);
  }
  playerByTokenHash(tokenHash: string): Promise<PlayerRecord | undefined> {
    return this.one('SELECT * FROM players WHERE token_hash = ?', [tokenHash], playerRecord);
  }

  roundById(id: number): Promise<RoundRecord | undefined> {
    return this.one('SELECT * FROM rounds WHERE id = ?', [id], roundRecord);
  }
  latestRound(roomId: number): Promise<RoundRecord | undefined> {
    return this.one('SELECT * FROM rounds WHERE room_id = ? ORDER BY number DESC LIMIT 1', [roomId], roundRecord);
  }
  roundsOfRoom(roomId: number): Promise<RoundRecord[]> {
    return this.many('SELECT * FROM rounds WHERE room_id = ? ORDER BY number DESC', [roomId], roundRecord);
  }
  roundsInState(states: readonly RoundState[]): Promise<RoundRecord[]> {
    if (states.length === 0) return Promise.resolve([]);
    return this.many(`SELECT * FROM rounds WHERE state IN (${marks(states)}) ORDER BY id`, states, roundRecord);
  }
  forksOf(roundId: number): Promise<RoundRecord[]> {
    return this.many('SELECT * FROM rounds WHERE fork_of_round_id = ? ORDER BY id', [roundId], roundRecord);
  }
  roundTeams(roundId: number): Promise<RoundTeamRecord[]> {
    return this.many(
      `SELECT round_teams.round_id, round_teams.team_id, round_teams.idx, round_teams.name, teams.what_if
       FROM round_teams JOIN teams ON teams.id = round_teams.team_id WHERE round_teams.round_id = ? ORDER BY round_teams.idx`,
      [roundId],
      roundTeamRecord,
    );
  }

  changesOfRound(roundId: number, only?: { teamId: number; upToMinute: number }): Promise<ChangeRecord[]> {
    return only
      ? this.many(
          'SELECT * FROM changes WHERE round_id = ? AND team_id = ? AND minute <= ? ORDER BY seq, id',
          [roundId, only.teamId, only.upToMinute],
          changeRecord,
        )
      : this.many('SELECT * FROM changes WHERE round_id = ? ORDER BY seq, id', [roundId], changeRecord);
  }
  snapshotsOfRound(roundId: number, only?: { teamId: number; upToMinute?: number }): Promise<MinuteRecord[]> {
    let where = 'round_id = ?';
    const params: unknown[] = [roundId];
    if (only) {
      where += ' AND team_id = ?';
      params.push(only.teamId);
      if (only.upToMinute !== undefined) {
        where += ' AND minute <= ?';
        params.push(only.upToMinute);
      }
    }
    return this.many(
      `SELECT team_id, minute, data, at FROM snapshots WHERE ${where} ORDER BY team_id, minute`,
      params,
      (s) => ({ teamId: num(s.team_id), minute: num(s.minute), data: str(s.data), at: numOrNull(s.at) }),
    );
  }
  async resultsOfRound(roundId: number): Promise<TeamResultRecord[]> {
    const [goals, scores] = await Promise.all([
      this.engine.query<Row>('SELECT * FROM goal_results WHERE round_id = ?', [roundId]),
      this.engine.query<Row>('SELECT * FROM scores WHERE round_id = ? ORDER BY team_id', [roundId]),
    ]);
    return scores.map((s) => ({
      teamId: num(s.team_id),
      score: numOrNull(s.score),
      goals: goals
        .filter((g) => num(g.team_id) === num(s.team_id))
        .map((g) => ({
          id: str(g.goal_id),
          indicator: str(g.indicator),
          op: str(g.op) as '>=' | '<=',
          value: num(g.value),
          target: num(g.target),
          met: Boolean(g.met),
        })),
    }));
  }

  roleChangesOfRound(roundId: number): Promise<RoleChange[]> {
    return this.many('SELECT * FROM role_changes WHERE round_id = ? ORDER BY id', [roundId], roleChangeRecord);
  }
  seatTurnsOfRound(roundId: number): Promise<SeatTurn[]> {
    return this.many('SELECT * FROM seat_turns WHERE round_id = ? ORDER BY id', [roundId], seatTurnRecord);
  }
  roundMembers(roundId: number): Promise<RoundMemberRecord[]> {
    return this.many('SELECT * FROM round_members WHERE round_id = ? ORDER BY team_id, seq', [roundId], (m) => ({
      teamId: num(m.team_id),
      playerId: num(m.player_id),
      seq: num(m.seq),
      name: str(m.name),
      roles: parse(m.roles),
    }));
  }
  roundsOfPlayer(playerId: number): Promise<{ roundId: number; teamId: number }[]> {
    return this.many(
      'SELECT round_id, team_id FROM round_members WHERE player_id = ? ORDER BY round_id DESC',
      [playerId],
      (m) => ({ roundId: num(m.round_id), teamId: num(m.team_id) }),
    );
  }
  rosterOfRoom(roomId: number): Promise<RosterEntry[]> {
    return this.many('SELECT * FROM roster_ids WHERE room_id = ? ORDER BY player_id', [roomId], (r) => ({
      playerId: num(r.player_id),
      schoolId: str(r.school_id),
      email: str(r.email),
    }));
  }
  messagesOfRound(roundId: number): Promise<TeacherMessage[]> {
    return this.many('SELECT * FROM messages WHERE round_id = ? ORDER BY at, id', [roundId], (m) => ({
      id: num(m.id),
      roundId: num(m.round_id),
      teamId: numOrNull(m.team_id),
      text: str(m.text),
      at: num(m.at),
    }));
  }
  async liveRoomCount(teacherId: number, since: number): Promise<number> {
    // The latest round of each room (highest number) decides whether the room is live.
    const n = await this.one(
      `SELECT count(*) AS n FROM rooms r WHERE r.teacher_id = ? AND r.created_at >= ?
         AND (SELECT state FROM rounds WHERE room_id = r.id ORDER BY number DESC LIMIT 1) != 'finished'`,
      [teacherId, since],
      (r) => num(r.n),
    );
    return n ?? 0;
  }
  async teacherMinutes(teacherId: number): Promise<number> {
    const n = await this.one(
      `SELECT COALESCE(SUM((CASE WHEN r.state = 'finished' THEN r.minute ELSE r.minutes END + 1)
                * (SELECT count(*) FROM round_teams t WHERE t.round_id = r.id)), 0) AS n
       FROM rounds r JOIN rooms ON rooms.id = r.room_id WHERE rooms.teacher_id = ? AND r.state != 'lobby'`,
      [teacherId],
      (r) => num(r.n),
    );
    return n ?? 0;
  }
  roomsOfTeacherPage(teacherId: number, limit: number, before?: RoomCursor): Promise<RoomRecord[]> {
    return before
      ? this.many(
          `SELECT * FROM rooms WHERE teacher_id = ? AND (created_at < ? OR (created_at = ? AND id < ?))
           ORDER BY created_at DESC, id DESC LIMIT ?`,
          [teacherId, before.createdAt, before.createdAt, before.id, limit],
          roomRecord,
        )
      : this.many(
          'SELECT * FROM rooms WHERE teacher_id = ? ORDER BY created_at DESC, id DESC LIMIT ?',
          [teacherId, limit],
          roomRecord,
        );
  }
  roundsOfRooms(roomIds: readonly number[]): Promise<RoundRecord[]> {
    if (roomIds.length === 0) return Promise.resolve([]);
    return this.many(
      `SELECT * FROM rounds WHERE room_id IN (${marks(roomIds)}) ORDER BY room_id, number DESC`,
      roomIds,
      roundRecord,
    );
  }
  teamsOfRounds(roundIds: readonly number[]): Promise<RoundTeamRecord[]> {
    if (roundIds.length === 0) return Promise.resolve([]);
    return this.many(
      `SELECT round_teams.round_id, round_teams.team_id, round_teams.idx, round_teams.name, teams.what_if
       FROM round_teams JOIN teams ON teams.id = round_teams.team_id
       WHERE round_teams.round_id IN (${marks(roundIds)}) ORDER BY round_teams.round_id, round_teams.idx`,
      roundIds,
      roundTeamRecord,
    );
  }
  standingsOfRounds(roundIds: readonly number[]): Promise<TeamStanding[]> {
    if (roundIds.length === 0) return Promise.resolve([]);
    return this.many(
      `SELECT s.round_id, s.team_id, s.score,
              (SELECT count(*) FROM goal_results g WHERE g.round_id = s.round_id AND g.team_id = s.team_id) AS goals,
              (SELECT count(*) FROM goal_results g WHERE g.round_id = s.round_id AND g.team_id = s.team_id AND g.met) AS met
       FROM scores s WHERE s.round_id IN (${marks(roundIds)})`,
      roundIds,
      (r) => ({
        roundId: num(r.round_id),
        teamId: num(r.team_id),
        score: numOrNull(r.score),
        goals: num(r.goals),
        met: num(r.met),
      }),
    );
  }

  scenarioContent(hash: string): Promise<ScenarioContentRecord | undefined> {
    return this.one('SELECT * FROM scenario_contents WHERE hash = ?', [hash], (r) => ({
      hash: str(r.hash),
      simulator: str(r.simulator) as ScenarioContentRecord['simulator'],
      text: str(r.content),
    }));
  }
  scenariosOfTeacher(teacherId: number): Promise<AuthoredRecord[]> {
    return this.many(
      'SELECT * FROM scenarios WHERE teacher_id = ? ORDER BY updated_at DESC, scenario_id',
      [teacherId],
      authoredRecord,
    );
  }
  scenarioOfTeacher(teacherId: number, id: string): Promise<(AuthoredRecord & { text: string }) | undefined> {
    return this.one(
      `SELECT s.*, c.content FROM scenarios s JOIN scenario_contents c ON c.hash = s.hash
       WHERE s.teacher_id = ? AND s.scenario_id = ?`,
      [teacherId, id],
      withText,
    );
  }
  sharedScenario(token: string): Promise<(AuthoredRecord & { text: string }) | undefined> {
    return this.one(
      'SELECT s.*, c.content FROM scenarios s JOIN scenario_contents c ON c.hash = s.hash WHERE s.share_token = ?',
      [token],
      withText,
    );
  }
}

/** `?, ?, …` for a list of parameters. */
const marks = (list: readonly unknown[]) => list.map(() => '?').join(', ');

function roundTeamRecord(t: Row): RoundTeamRecord {
  return {
    roundId: num(t.round_id),
    teamId: num(t.team_id),
    idx: num(t.idx),
    name: str(t.name),
    whatIf: whatIf(t.what_if),
  };
}
