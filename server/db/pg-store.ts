// The Store on PostgreSQL (cluster mode): the same reads and writes as sqlite.ts through drizzle's node-postgres
// driver. Several processes write the same database, so fresh ids come from the tables' identity sequences
// (pg.ids.ts); each write's statement is in pg.writes.ts, and commit() here merges the minutes' into a few.
import { and, asc, desc, eq, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import type { ChangeRecord, RoleChange, RoundState, TeacherMessage } from '../../shared/protocol/types.ts';
import { withoutCredentials } from '../net/service-url.ts';
import { PG_PROBE_WRITE } from './health.ts';
import { openPostgres, type PgDb, type PgOptions } from './pg.ts';
import { SequenceIds } from './pg.ids.ts';
import { applyWrite, fence, MAX_PARAMETERS, refuseStale, SNAPSHOTS_PER_INSERT } from './pg.writes.ts';
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
} from './schema.pg.ts';
import type { PlayerRecord, RoomRecord, RoundRecord, RoundTeamRecord, Store, TeamRecord } from './store.ts';
import { minuteMove, type MinuteRecord, type RoundMemberRecord, type TeamResultRecord, type Write } from './writes.ts';

export class PgStore implements Store {
  readonly ids: SequenceIds;
  /**
   * PostgreSQL checks its own pages as it reads them (and refuses to start on a damaged cluster): there is no
   * quick check to run at opening as on SQLite, so a store that opened is intact.
   */
  readonly integrity: readonly string[] = ['ok'];

  constructor(readonly db: PgDb) {
    this.ids = new SequenceIds(db);
  }

  /** Connects (and migrates, one process at a time). */
  static async open(url: string, opts: PgOptions = {}): Promise<PgStore> {
    try {
      const { db } = await openPostgres(url, opts);
      return new PgStore(db);
    } catch (e) {
      throw new Error(`PostgreSQL at ${withoutCredentials(url)} cannot be used: ${(e as Error).message}`, { cause: e });
    }
  }

  async close(): Promise<void> {
    await this.db.$client.end();
  }

  async probe(at: number): Promise<void> {
    await this.db.$client.query(PG_PROBE_WRITE, [at]);
  }

  /** PostgreSQL checkpoints its own log. */
  checkpoints(): null {
    return null;
  }

  /**
   * One transaction for every list. Each statement is a round trip to the server, so the writes every minute
   * brings are merged over all the lists: one statement checks and stores every room's fence (first, so that a
   * stale owner fails at once, in room order so that two batches never wait on each other), one inserts every
   * snapshot, one moves every round's minute; the rest go one by one, in order, between them. A batch of
   * minutes and nothing else — what the clocks bring, nearly every commit — is one statement (minutes()).
   */
  async commit(lists: readonly (readonly Write[])[]): Promise<void> {
    const fences: Extract<Write, { op: 'fence' }>[] = [];
    const snapshotRows: (typeof snapshots.$inferInsert)[] = [];
    const minutes: { id: number; minute: number }[] = [];
    const rest: Write[] = [];
    const created = new Set<number>();
    for (const list of lists) {
      for (const w of list) {
        const moved = minuteMove(w);
        if (w.op === 'fence') fences.push(w);
        else if (w.op === 'insertSnapshots') for (const r of w.rows) snapshotRows.push({ roundId: w.roundId, ...r });
        else if (moved) minutes.push(moved);
        else {
          if (w.op === 'insertRoom') created.add(w.id);
          rest.push(w);
        }
      }
    }
    fences.sort((x, y) => x.roomId - y.roomId);
    if (
      rest.length === 0 &&
      fences.length > 0 &&
      3 * fences.length + 4 * snapshotRows.length + 2 * minutes.length <= MAX_PARAMETERS
    ) {
      return this.minutes(fences, snapshotRows, minutes);
    }
    await this.db.transaction(async (tx) => {
      await fence(
        tx,
        fences.filter((f) => !created.has(f.roomId)),
      );
      for (const w of rest) await applyWrite(tx, w);
      // A room created in this transaction is fenced once its row exists.
      await fence(
        tx,
        fences.filter((f) => created.has(f.roomId)),
      );
      for (let i = 0; i < snapshotRows.length; i += SNAPSHOTS_PER_INSERT)
        await tx.insert(snapshots).values(snapshotRows.slice(i, i + SNAPSHOTS_PER_INSERT));
      if (minutes.length) {
        const values = sql.join(
          minutes.map((m) => sql`(${m.id}::int, ${m.minute}::int)`),
          sql`, `,
        );
        await tx.execute(
          sql`UPDATE rounds SET minute = v.minute FROM (VALUES ${values}) AS v(id, minute) WHERE rounds.id = v.id`,
        );
      }
    });
  }

  /**
   * Minutes of fenced rooms in one statement (one round trip, atomic like any statement): the fences are stored,
   * and only if every room's was accepted are the snapshots inserted and the minutes moved. When one was refused
   * nothing else is written — the fences of the others, stored all the same, are the tokens they already had.
   */
  private async minutes(
    fences: readonly Extract<Write, { op: 'fence' }>[],
    rows: readonly (typeof snapshots.$inferInsert)[],
    minutes: readonly { id: number; minute: number }[],
  ): Promise<void> {
    const list = <T>(xs: readonly T[], row: (x: T) => SQL) => sql.join(xs.map(row), sql`, `);
    const all = fences.length;
    const parts = [
      sql`f AS (UPDATE rooms SET fence = v.token, fenced_at = v.at FROM (VALUES ${list(fences, (f) => sql`(${f.roomId}::int, ${f.token}::int, ${f.at}::bigint)`)}) AS v(id, token, at) WHERE rooms.id = v.id AND rooms.fence <= v.token RETURNING rooms.id)`,
      sql`n AS (SELECT count(*) AS n FROM f)`,
    ];
    if (rows.length) {
      const values = list(rows, (r) => sql`(${r.roundId}::int, ${r.teamId}::int, ${r.minute}::int, ${r.data}::text)`);
      parts.push(
        sql`s AS (INSERT INTO snapshots (round_id, team_id, minute, data) SELECT v.* FROM (VALUES ${values}) AS v(round_id, team_id, minute, data), n WHERE n.n = ${all})`,
      );
    }
    if (minutes.length) {
      const values = list(minutes, (m) => sql`(${m.id}::int, ${m.minute}::int)`);
      parts.push(
        sql`m AS (UPDATE rounds SET minute = v.minute FROM (VALUES ${values}) AS v(id, minute), n WHERE rounds.id = v.id AND n.n = ${all})`,
      );
    }
    const done = await this.db.execute<{ id: number }>(sql`WITH ${sql.join(parts, sql`, `)} SELECT id FROM f`);
    refuseStale(fences, done.rows);
  }

  async claimRoom(roomId: number, token: number): Promise<RoomRecord | undefined> {
    const [r] = await this.db
      .update(rooms)
      .set({ fence: token })
      .where(and(eq(rooms.id, roomId), lt(rooms.fence, token)))
      .returning();
    return r && roomRecord(r);
  }

  async roomsInPlay(): Promise<RoomRecord[]> {
    // A running round is its room's latest: the next round is only opened once this one is finished.
    const rows = await this.db
      .select({ room: rooms })
      .from(rooms)
      .innerJoin(rounds, eq(rounds.roomId, rooms.id))
      .where(eq(rounds.state, 'running'))
      .orderBy(asc(rooms.id));
    return rows.map((r) => roomRecord(r.room));
  }

  // ── reads ────────────────────────────────────────────────────────────
  async teacherByKeyHash(keyHash: string): Promise<number | undefined> {
    const [t] = await this.db.select({ id: teachers.id }).from(teachers).where(eq(teachers.keyHash, keyHash));
    return t?.id;
  }
  async codeExists(code: string): Promise<boolean> {
    const [r] = await this.db.select({ id: rooms.id }).from(rooms).where(eq(rooms.code, code));
    return !!r;
  }
  async roomByCode(code: string): Promise<RoomRecord | undefined> {
    const [r] = await this.db.select().from(rooms).where(eq(rooms.code, code));
    return r && roomRecord(r);
  }
  async roomById(id: number): Promise<RoomRecord | undefined> {
    const [r] = await this.db.select().from(rooms).where(eq(rooms.id, id));
    return r && roomRecord(r);
  }
  async roomsOfTeacher(teacherId: number): Promise<RoomRecord[]> {
    return (
      await this.db
        .select()
        .from(rooms)
        .where(eq(rooms.teacherId, teacherId))
        .orderBy(desc(rooms.createdAt), desc(rooms.id))
    ).map(roomRecord);
  }

  async teamsOfRoom(roomId: number): Promise<TeamRecord[]> {
    return (await this.db.select().from(teams).where(eq(teams.roomId, roomId)).orderBy(asc(teams.idx))).map((t) => ({
      ...t,
      whatIf: whatIf(t.whatIf),
    }));
  }
  async playersOfRoom(roomId: number): Promise<PlayerRecord[]> {
    return (await this.db.select().from(players).where(eq(players.roomId, roomId)).orderBy(asc(players.id))).map(
      playerRecord,
    );
  }
  async playerByTokenHash(tokenHash: string): Promise<PlayerRecord | undefined> {
    const [p] = await this.db.select().from(players).where(eq(players.tokenHash, tokenHash));
    return p && playerRecord(p);
  }

  async roundById(id: number): Promise<RoundRecord | undefined> {
    const [r] = await this.db.select().from(rounds).where(eq(rounds.id, id));
    return r && roundRecord(r);
  }
  async latestRound(roomId: number): Promise<RoundRecord | undefined> {
    const [r] = await this.db
      .select()
      .from(rounds)
      .where(eq(rounds.roomId, roomId))
      .orderBy(desc(rounds.number))
      .limit(1);
    return r && roundRecord(r);
  }
  async roundsOfRoom(roomId: number): Promise<RoundRecord[]> {
    return (await this.db.select().from(rounds).where(eq(rounds.roomId, roomId)).orderBy(desc(rounds.number))).map(
      roundRecord,
    );
  }
  async roundsInState(states: readonly RoundState[]): Promise<RoundRecord[]> {
    return (
      await this.db
        .select()
        .from(rounds)
        .where(inArray(rounds.state, [...states]))
    ).map(roundRecord);
  }
  async forksOf(roundId: number): Promise<RoundRecord[]> {
    return (await this.db.select().from(rounds).where(eq(rounds.forkOfRoundId, roundId)).orderBy(asc(rounds.id))).map(
      roundRecord,
    );
  }
  async roundTeams(roundId: number): Promise<RoundTeamRecord[]> {
    const rows = await this.db
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
      .orderBy(asc(roundTeams.idx));
    return rows.map((t) => ({ ...t, whatIf: whatIf(t.whatIf) }));
  }

  async changesOfRound(roundId: number, only?: { teamId: number; upToMinute: number }): Promise<ChangeRecord[]> {
    const where: SQL | undefined = only
      ? and(eq(changes.roundId, roundId), eq(changes.teamId, only.teamId), lte(changes.minute, only.upToMinute))
      : eq(changes.roundId, roundId);
    return (await this.db.select().from(changes).where(where).orderBy(asc(changes.id))).map(changeRecord);
  }
  async snapshotsOfRound(roundId: number, only?: { teamId: number; upToMinute?: number }): Promise<MinuteRecord[]> {
    const conditions = [eq(snapshots.roundId, roundId)];
    if (only) conditions.push(eq(snapshots.teamId, only.teamId));
    if (only?.upToMinute !== undefined) conditions.push(lte(snapshots.minute, only.upToMinute));
    return this.db
      .select({ teamId: snapshots.teamId, minute: snapshots.minute, data: snapshots.data })
      .from(snapshots)
      .where(and(...conditions))
      .orderBy(asc(snapshots.teamId), asc(snapshots.minute));
  }
  async resultsOfRound(roundId: number): Promise<TeamResultRecord[]> {
    const [goals, rows] = await Promise.all([
      this.db.select().from(goalResults).where(eq(goalResults.roundId, roundId)),
      this.db.select().from(scores).where(eq(scores.roundId, roundId)).orderBy(asc(scores.teamId)),
    ]);
    return rows.map((s) => ({
      teamId: s.teamId,
      score: s.score,
      goals: goals
        .filter((g) => g.teamId === s.teamId)
        .map((g) => ({ id: g.goalId, indicator: g.indicator, op: g.op, value: g.value, target: g.target, met: g.met })),
    }));
  }

  async roleChangesOfRound(roundId: number): Promise<RoleChange[]> {
    return (
      await this.db.select().from(roleChanges).where(eq(roleChanges.roundId, roundId)).orderBy(asc(roleChanges.id))
    ).map(roleChangeRecord);
  }
  async roundMembers(roundId: number): Promise<RoundMemberRecord[]> {
    const rows = await this.db
      .select()
      .from(roundMembers)
      .where(eq(roundMembers.roundId, roundId))
      .orderBy(asc(roundMembers.teamId), asc(roundMembers.seq));
    return rows.map(memberRecord);
  }
  async roundsOfPlayer(playerId: number): Promise<{ roundId: number; teamId: number }[]> {
    return this.db
      .select({ roundId: roundMembers.roundId, teamId: roundMembers.teamId })
      .from(roundMembers)
      .where(eq(roundMembers.playerId, playerId))
      .orderBy(desc(roundMembers.roundId));
  }
  async messagesOfRound(roundId: number): Promise<TeacherMessage[]> {
    return this.db.select().from(messages).where(eq(messages.roundId, roundId)).orderBy(asc(messages.id));
  }
  async liveRoomCount(teacherId: number, since: number): Promise<number> {
    // The latest round of each room (highest number) decides whether the room is live.
    const { rows } = await this.db.execute<{ n: number }>(sql`
      SELECT count(*)::int AS n FROM ${rooms} r
      WHERE r.teacher_id = ${teacherId} AND r.created_at >= ${since}
        AND (SELECT state FROM ${rounds} WHERE room_id = r.id ORDER BY number DESC LIMIT 1) != 'finished'`);
    return rows[0]?.n ?? 0;
  }
}
