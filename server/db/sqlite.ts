// The Store on SQLite (better-sqlite3, synchronous inside). This process is the database's only
// writer, so fresh ids are counted on from each table's max(id) read at open. Its writes may run on a
// thread of their own (writer.ts): reads stay on this connection, and see each commit once it resolves (WAL).
import { and, asc, desc, eq, inArray, lt, lte, max, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { ChangeRecord, RoleChange, RoundState, TeacherMessage } from '../../shared/protocol/types.ts';
import { PROBE_WRITE } from './health.ts';
import { openDatabase, type Db } from './index.ts';
import {
  changeRecord,
  changeRow,
  memberRecord,
  playerRecord,
  roleChangeRecord,
  roleChangeRow,
  roomRecord,
  roundRecord,
  whatIf,
} from './rows.ts';
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
import { SnapshotBatch } from './writer.batch.ts';
import {
  FencedError,
  type IdSource,
  type IdTable,
  type MinuteRecord,
  type RoundMemberRecord,
  type TeamResultRecord,
  type Write,
} from './writes.ts';

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

/**
 * The writes of every minute, of every change, and of every round's start and end, prepared once: for the others
 * drizzle builds the SQL and SQLite prepares it at each call, which cost more than the row itself. At 10,000
 * students a second brings ~100 changes, and ~4 rounds ending and starting with a few dozen rows each.
 */
function prepareWrites(db: Db) {
  const p = sql.placeholder;
  const row = <K extends string>(...keys: K[]) =>
    Object.fromEntries(keys.map((k) => [k, p(k)])) as unknown as Record<K, Placeholder>;
  return {
    roundMinute: db
      .update(rounds)
      .set({ minute: sql`${p('minute')}` })
      .where(eq(rounds.id, p('id')))
      .prepare(),
    change: db
      .insert(changes)
      .values(row('id', 'roundId', 'teamId', 'minute', 'key', 'value', 'playerId', 'authorName', 'at'))
      .prepare(),
    roleChange: db
      .insert(roleChanges)
      .values(
        row('roundId', 'teamId', 'minute', 'role', 'reason', 'at', 'fromPlayerId', 'fromName', 'toPlayerId', 'toName'),
      )
      .prepare(),
    roundTeam: db
      .insert(roundTeams)
      .values(row('roundId', 'teamId', 'idx', 'name'))
      .prepare(),
    score: db
      .insert(scores)
      .values(row('roundId', 'teamId', 'score'))
      .prepare(),
    goalResult: db
      .insert(goalResults)
      .values(row('roundId', 'teamId', 'goalId', 'indicator', 'op', 'value', 'target', 'met'))
      .prepare(),
    roundMember: db
      .insert(roundMembers)
      .values(row('roundId', 'teamId', 'playerId', 'seq', 'name', 'roles'))
      .onConflictDoUpdate({
        target: [roundMembers.roundId, roundMembers.teamId, roundMembers.playerId],
        set: { name: sql`excluded.name`, roles: sql`excluded.roles` },
      })
      .prepare(),
  };
}

const onlyMinute = (set: object) => {
  for (const k in set) if (k !== 'minute') return false;
  return true;
};

export class SqliteStore implements Store {
  readonly ids: IdSource;
  private prepared: ReturnType<typeof prepareWrites> | null = null;
  private snapshotRows: SnapshotBatch | null = null;

  constructor(
    readonly db: Db,
    /** `PRAGMA quick_check` at opening (openDatabase). */
    readonly integrity: readonly string[] = ['ok'],
    /** Commits on a thread of its own (writer.ts); without, on this thread's connection. */
    private readonly writer: WriterThread | null = null,
  ) {
    this.ids = new CountingIds(db);
  }

  /**
   * Opens (and migrates) the file, or ':memory:', after SQLite's quick check; a path that cannot hold a
   * database throws DatabaseOpenError. `writerThread`: the file's writes go through a thread of their own,
   * so that waiting for the disk never holds up this thread (the server does this).
   */
  static open(path: string, opts: { writerThread?: boolean } = {}): SqliteStore {
    const { db, integrity } = openDatabase(path);
    if (!opts.writerThread || path === ':memory:') return new SqliteStore(db, integrity);
    db.$client.exec(MARK_TABLE);
    const mark = db.$client.prepare(MARK_READ);
    return new SqliteStore(db, integrity, new WriterThread(path, () => mark.get() as WriterMark | undefined));
  }

  /**
   * On this thread's connection even with a writer thread: it says whether the file can be written. It may wait
   * for the writer's transaction under way (a few ms, busy_timeout), at most once per PROBE_EVERY_MS.
   */
  async probe(at: number): Promise<void> {
    this.db.$client.prepare(PROBE_WRITE).run(at);
  }

  async close(): Promise<void> {
    await this.writer?.close();
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
        for (const list of lists) for (const w of list) this.apply(w, batch);
        batch.flush();
        also?.();
      });
    } finally {
      batch.clear();
    }
  }

  /**
   * One write; snapshots are gathered in `batch`. Only the round's minute may pass gathered snapshots (another
   * table, no reader in between); every other write inserts them first, so each sees what precedes it.
   */
  private apply(w: Write, batch: SnapshotBatch): void {
    const { db } = this;
    if (w.op === 'insertSnapshots') {
      for (const r of w.rows) batch.add(w.roundId, r.teamId, r.minute, r.data);
      return;
    }
    this.prepared ??= prepareWrites(db);
    const { prepared } = this;
    if (w.op === 'updateRound' && w.set.minute !== undefined && onlyMinute(w.set)) {
      prepared.roundMinute.run({ id: w.id, minute: w.set.minute });
      return;
    }
    batch.flush();
    switch (w.op) {
      case 'insertTeacher':
        db.insert(teachers).values({ id: w.id, keyHash: w.keyHash, createdAt: w.createdAt }).run();
        return;
      case 'insertRoom':
        db.insert(rooms)
          .values({
            id: w.id,
            code: w.code,
            teacherId: w.teacherId,
            config: JSON.stringify(w.config),
            createdAt: w.createdAt,
          })
          .run();
        return;
      case 'setRoomConfig':
        db.update(rooms)
          .set({ config: JSON.stringify(w.config) })
          .where(eq(rooms.id, w.roomId))
          .run();
        return;
      case 'setRoomFlags':
        db.update(rooms).set(w.set).where(eq(rooms.id, w.roomId)).run();
        return;
      case 'insertTeam':
        db.insert(teams)
          .values({
            id: w.id,
            roomId: w.roomId,
            idx: w.idx,
            name: w.name,
            whatIf: w.whatIf ? JSON.stringify(w.whatIf) : null,
          })
          .run();
        return;
      case 'renameTeam':
        db.update(teams).set({ name: w.name }).where(eq(teams.id, w.teamId)).run();
        return;
      case 'insertPlayer':
        db.insert(players)
          .values({
            id: w.id,
            roomId: w.roomId,
            teamId: w.teamId,
            name: w.name,
            tokenHash: w.tokenHash,
            seq: w.seq,
            roles: JSON.stringify(w.roles),
            joinedAt: w.joinedAt,
          })
          .run();
        return;
      case 'updatePlayer': {
        const { roles, ...rest } = w.set;
        db.update(players)
          .set({ ...rest, ...(roles ? { roles: JSON.stringify(roles) } : {}) })
          .where(eq(players.id, w.id))
          .run();
        return;
      }
      case 'insertRound': {
        const { forkOf, ...r } = w.round;
        db.insert(rounds)
          .values({
            ...r,
            forkOfRoundId: forkOf?.roundId ?? null,
            forkOfTeamId: forkOf?.teamId ?? null,
            forkMinute: forkOf?.minute ?? null,
          })
          .run();
        return;
      }
      case 'updateRound':
        db.update(rounds).set(w.set).where(eq(rounds.id, w.id)).run();
        return;
      case 'insertRoundTeams':
        for (const t of w.teams)
          prepared.roundTeam.run({ roundId: w.roundId, teamId: t.teamId, idx: t.idx, name: t.name });
        return;
      case 'renameRoundTeam':
        db.update(roundTeams)
          .set({ name: w.name })
          .where(and(eq(roundTeams.roundId, w.roundId), eq(roundTeams.teamId, w.teamId)))
          .run();
        return;
      case 'insertChanges':
        for (const c of w.changes) prepared.change.run(changeRow(c));
        return;
      case 'insertResults':
        for (const r of w.results) {
          prepared.score.run({ roundId: w.roundId, teamId: r.teamId, score: r.score });
          for (const g of r.goals) {
            const { id: goalId, indicator, op, value, target } = g;
            // A placeholder's value reaches SQLite as is: the boolean column's 0 or 1 is written here.
            prepared.goalResult.run({
              roundId: w.roundId,
              teamId: r.teamId,
              goalId,
              indicator,
              op,
              value,
              target,
              met: g.met ? 1 : 0,
            });
          }
        }
        return;
      case 'insertRoleChanges':
        for (const c of w.changes) prepared.roleChange.run(roleChangeRow(c));
        return;
      case 'upsertRoundMembers':
        for (const m of w.members) {
          const { teamId, playerId, seq, name } = m;
          prepared.roundMember.run({ roundId: w.roundId, teamId, playerId, seq, name, roles: JSON.stringify(m.roles) });
        }
        return;
      case 'insertMessage': {
        const { id, roundId, teamId, text, at } = w.message;
        db.insert(messages).values({ id, roundId, teamId, text, at }).run();
        return;
      }
      case 'fence': {
        const done = db
          .update(rooms)
          .set({ fence: w.token, fencedAt: w.at })
          .where(and(eq(rooms.id, w.roomId), lte(rooms.fence, w.token)))
          .run();
        if (done.changes === 0) throw new FencedError(w.roomId, w.token);
        return;
      }
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
