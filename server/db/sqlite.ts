// The Store on SQLite (better-sqlite3, synchronous inside). This process is the database's only
// writer, so fresh ids are counted on from each table's max(id) read at open. Its writes may run on a
// thread of their own (writer.ts): reads stay on this connection, and see each commit once it resolves (WAL).
// How each write is applied: sqlite.writes.ts.
import { and, asc, desc, eq, inArray, lt, lte, max, sql, type SQL } from 'drizzle-orm';
import type { ChangeRecord, RoleChange, RoundState, TeacherMessage } from '../../shared/protocol/types.ts';
import { Checkpointer, type CheckpointStatus, leaveCheckpointsToThread } from './checkpointer.ts';
import { PROBE_WRITE } from './health.ts';
import { openDatabase, type Db } from './index.ts';
import { changeRecord, memberRecord, playerRecord, roleChangeRecord, roomRecord, roundRecord, whatIf } from './rows.ts';
import {
  changes,
  goalResults,
  messages,
  players,
  roleChanges,
  rooms,
  roundMembers,
  roundTeams,
  rounds,
  scores,
  snapshots,
  teachers,
  teams,
} from './schema.ts';
import type { PlayerRecord, RoomRecord, RoundRecord, RoundTeamRecord, Store, TeamRecord } from './store.ts';
import { MARK_READ, MARK_TABLE, WriterThread, type WriterMark } from './writer.ts';
import { SqliteWrites } from './sqlite.writes.ts';
import { SnapshotBatch } from './writer.batch.ts';
import type { IdSource, IdTable, MinuteRecord, RoundMemberRecord, TeamResultRecord, Write } from './writes.ts';

const ID_TABLES = { teachers, rooms, teams, players, rounds, changes, messages } as const;

class CountingIds implements IdSource {
  private readonly last: Record<IdTable, number>;
  constructor(db: Db) {
    const top = (table: (typeof ID_TABLES)[IdTable]) =>
      db
        .select({ n: max(table.id) })
        .from(table)
        .get()?.n ?? 0;
    this.last = {
      ...{ teachers: top(teachers), rooms: top(rooms), teams: top(teams), players: top(players) },
      ...{ rounds: top(rounds), changes: top(changes), messages: top(messages) },
    };
  }
  next(table: IdTable): number {
    return ++this.last[table];
  }
  ready(): Promise<void> {
    return Promise.resolve();
  }
}

export class SqliteStore implements Store {
  readonly ids: IdSource;
  private readonly writes: SqliteWrites;
  private snapshotRows: SnapshotBatch | null = null;

  constructor(
    readonly db: Db,
    /** `PRAGMA quick_check` at opening (openDatabase). */
    readonly integrity: readonly string[] = ['ok'],
    /** Commits on a thread of its own (writer.ts); without, on this thread's connection. */
    private readonly writer: WriterThread | null = null,
    /** With the writer thread, the log's checkpoints on a thread of their own too (checkpointer.ts). */
    readonly checkpointer: Checkpointer | null = null,
  ) {
    this.ids = new CountingIds(db);
    this.writes = new SqliteWrites(db);
  }

  /**
   * Opens (and migrates) the file, or ':memory:', after SQLite's quick check; a path that cannot hold a
   * database throws DatabaseOpenError. `writerThread`: the file's writes go through a thread of their own,
   * so that waiting for the disk never holds up this thread (the server does this), and the log is checkpointed
   * on another (checkpointer.ts).
   */
  static open(path: string, opts: { writerThread?: boolean; checkpointEveryMs?: number } = {}): SqliteStore {
    const { db, integrity } = openDatabase(path);
    if (!opts.writerThread || path === ':memory:') return new SqliteStore(db, integrity);
    db.$client.exec(MARK_TABLE);
    // This connection writes only the health probe; its checkpoint too is left to the checkpoint thread.
    leaveCheckpointsToThread(db.$client);
    const mark = db.$client.prepare(MARK_READ);
    return new SqliteStore(
      db,
      integrity,
      new WriterThread(path, () => mark.get() as WriterMark | undefined),
      new Checkpointer(path, opts.checkpointEveryMs),
    );
  }

  /**
   * On this thread's connection even with a writer thread: it says whether the file can be written. It may wait
   * for the writer's transaction under way (a few ms, busy_timeout), at most once per PROBE_EVERY_MS.
   */
  async probe(at: number): Promise<void> {
    this.db.$client.prepare(PROBE_WRITE).run(at);
  }

  /** Null without the checkpoint thread: a store on this thread's connection alone keeps SQLite's own checkpoints. */
  checkpoints(): CheckpointStatus | null {
    return this.checkpointer?.status() ?? null;
  }

  async close(): Promise<void> {
    await this.writer?.close();
    await this.checkpointer?.close();
    this.db.$client.close();
  }

  async commit(lists: readonly (readonly Write[])[]): Promise<void> {
    if (this.writer) return this.writer.commit(lists);
    this.commitNow(lists);
  }

  /** Applies every list in one transaction on this connection, now; `also` runs inside it too (the writer thread's mark). */
  commitNow(lists: readonly (readonly Write[])[], also?: () => void): void {
    this.snapshotRows ??= new SnapshotBatch(this.db.$client);
    const batch = this.snapshotRows;
    try {
      this.db.transaction(() => {
        for (const list of lists) for (const w of list) this.writes.apply(w, batch);
        batch.flush();
        also?.();
      });
    } finally {
      batch.clear();
    }
  }

  async claimRoom(roomId: number, token: number): Promise<RoomRecord | undefined> {
    const r = this.db
      .update(rooms)
      .set({ fence: token })
      .where(and(eq(rooms.id, roomId), lt(rooms.fence, token)))
      .returning()
      .get();
    return r && roomRecord(r);
  }

  async roomsInPlay(): Promise<RoomRecord[]> {
    // A running round is its room's latest: the next round is only opened once this one is finished.
    const rows = this.db
      .select({ room: rooms })
      .from(rooms)
      .innerJoin(rounds, eq(rounds.roomId, rooms.id))
      .where(eq(rounds.state, 'running'))
      .orderBy(asc(rooms.id))
      .all();
    return rows.map((r) => roomRecord(r.room));
  }

  // ── reads ────────────────────────────────────────────────────────────
  async teacherByKeyHash(keyHash: string): Promise<number | undefined> {
    return this.db.select({ id: teachers.id }).from(teachers).where(eq(teachers.keyHash, keyHash)).get()?.id;
  }
  async codeExists(code: string): Promise<boolean> {
    return !!this.db.select({ id: rooms.id }).from(rooms).where(eq(rooms.code, code)).get();
  }
  async roomByCode(code: string): Promise<RoomRecord | undefined> {
    const r = this.db.select().from(rooms).where(eq(rooms.code, code)).get();
    return r && roomRecord(r);
  }
  async roomById(id: number): Promise<RoomRecord | undefined> {
    const r = this.db.select().from(rooms).where(eq(rooms.id, id)).get();
    return r && roomRecord(r);
  }
  async roomsOfTeacher(teacherId: number): Promise<RoomRecord[]> {
    return this.db
      .select()
      .from(rooms)
      .where(eq(rooms.teacherId, teacherId))
      .orderBy(desc(rooms.createdAt), desc(rooms.id))
      .all()
      .map(roomRecord);
  }

  async teamsOfRoom(roomId: number): Promise<TeamRecord[]> {
    return this.db
      .select()
      .from(teams)
      .where(eq(teams.roomId, roomId))
      .orderBy(asc(teams.idx))
      .all()
      .map((t) => ({ ...t, whatIf: whatIf(t.whatIf) }));
  }
  async playersOfRoom(roomId: number): Promise<PlayerRecord[]> {
    return this.db
      .select()
      .from(players)
      .where(eq(players.roomId, roomId))
      .orderBy(asc(players.id))
      .all()
      .map(playerRecord);
  }
  async playerByTokenHash(tokenHash: string): Promise<PlayerRecord | undefined> {
    const p = this.db.select().from(players).where(eq(players.tokenHash, tokenHash)).get();
    return p && playerRecord(p);
  }

  async roundById(id: number): Promise<RoundRecord | undefined> {
    const r = this.db.select().from(rounds).where(eq(rounds.id, id)).get();
    return r && roundRecord(r);
  }
  async latestRound(roomId: number): Promise<RoundRecord | undefined> {
    const r = this.db
      .select()
      .from(rounds)
      .where(eq(rounds.roomId, roomId))
      .orderBy(desc(rounds.number))
      .limit(1)
      .get();
    return r && roundRecord(r);
  }
  async roundsOfRoom(roomId: number): Promise<RoundRecord[]> {
    return this.db
      .select()
      .from(rounds)
      .where(eq(rounds.roomId, roomId))
      .orderBy(desc(rounds.number))
      .all()
      .map(roundRecord);
  }
  async roundsInState(states: readonly RoundState[]): Promise<RoundRecord[]> {
    return this.db
      .select()
      .from(rounds)
      .where(inArray(rounds.state, [...states]))
      .all()
      .map(roundRecord);
  }
  async forksOf(roundId: number): Promise<RoundRecord[]> {
    return this.db
      .select()
      .from(rounds)
      .where(eq(rounds.forkOfRoundId, roundId))
      .orderBy(asc(rounds.id))
      .all()
      .map(roundRecord);
  }
  async roundTeams(roundId: number): Promise<RoundTeamRecord[]> {
    return this.db
      .select({
        roundId: roundTeams.roundId,
        teamId: roundTeams.teamId,
        idx: roundTeams.idx,
        name: roundTeams.name,
        whatIf: teams.whatIf,
      })
      .from(roundTeams)
      .innerJoin(teams, eq(teams.id, roundTeams.teamId))
      .where(eq(roundTeams.roundId, roundId))
      .orderBy(asc(roundTeams.idx))
      .all()
      .map((t) => ({ ...t, whatIf: whatIf(t.whatIf) }));
  }

  async changesOfRound(roundId: number, only?: { teamId: number; upToMinute: number }): Promise<ChangeRecord[]> {
    const where: SQL | undefined = only
      ? and(eq(changes.roundId, roundId), eq(changes.teamId, only.teamId), lte(changes.minute, only.upToMinute))
      : eq(changes.roundId, roundId);
    return this.db.select().from(changes).where(where).orderBy(asc(changes.id)).all().map(changeRecord);
  }
  async snapshotsOfRound(roundId: number, only?: { teamId: number; upToMinute?: number }): Promise<MinuteRecord[]> {
    const conditions = [eq(snapshots.roundId, roundId)];
    if (only) conditions.push(eq(snapshots.teamId, only.teamId));
    if (only?.upToMinute !== undefined) conditions.push(lte(snapshots.minute, only.upToMinute));
    return this.db
      .select({ teamId: snapshots.teamId, minute: snapshots.minute, data: snapshots.data })
      .from(snapshots)
      .where(and(...conditions))
      .orderBy(asc(snapshots.teamId), asc(snapshots.minute))
      .all();
  }
  async resultsOfRound(roundId: number): Promise<TeamResultRecord[]> {
    const goals = this.db.select().from(goalResults).where(eq(goalResults.roundId, roundId)).all();
    return this.db
      .select()
      .from(scores)
      .where(eq(scores.roundId, roundId))
      .all()
      .map((s) => ({
        teamId: s.teamId,
        score: s.score,
        goals: goals
          .filter((g) => g.teamId === s.teamId)
          .map((g) => ({
            id: g.goalId,
            indicator: g.indicator,
            op: g.op,
            value: g.value,
            target: g.target,
            met: g.met,
          })),
      }));
  }

  async roleChangesOfRound(roundId: number): Promise<RoleChange[]> {
    return this.db
      .select()
      .from(roleChanges)
      .where(eq(roleChanges.roundId, roundId))
      .orderBy(asc(roleChanges.id))
      .all()
      .map(roleChangeRecord);
  }
  async roundMembers(roundId: number): Promise<RoundMemberRecord[]> {
    return this.db
      .select()
      .from(roundMembers)
      .where(eq(roundMembers.roundId, roundId))
      .orderBy(asc(roundMembers.teamId), asc(roundMembers.seq))
      .all()
      .map(memberRecord);
  }
  async roundsOfPlayer(playerId: number): Promise<{ roundId: number; teamId: number }[]> {
    return this.db
      .select({ roundId: roundMembers.roundId, teamId: roundMembers.teamId })
      .from(roundMembers)
      .where(eq(roundMembers.playerId, playerId))
      .orderBy(desc(roundMembers.roundId))
      .all();
  }
  async messagesOfRound(roundId: number): Promise<TeacherMessage[]> {
    return this.db.select().from(messages).where(eq(messages.roundId, roundId)).orderBy(asc(messages.id)).all();
  }
  async liveRoomCount(teacherId: number, since: number): Promise<number> {
    // The latest round of each room (highest number) decides whether the room is live.
    const row = this.db.get<{ n: number }>(sql`
      SELECT count(*) AS n FROM ${rooms} r
      WHERE r.teacher_id = ${teacherId} AND r.created_at >= ${since}
        AND (SELECT state FROM ${rounds} WHERE room_id = r.id ORDER BY number DESC LIMIT 1) != 'finished'`);
    return row?.n ?? 0;
  }
}
