// Every read and write the classroom makes, synchronous (better-sqlite3). Rooms reach the database
// only through this class, so a room runs the same against a file or ':memory:'.
import { and, asc, desc, eq, gt, inArray, lte } from 'drizzle-orm';
import type { GoalResult } from '../../shared/sim/types.ts';
import type { ChangeRecord, RoundConfig, RoundState, Tempo } from '../../shared/protocol/types.ts';
import type { Db } from './index.ts';
import { noMetrics, type Metrics } from '../ops/metrics.ts';
import { changes, goalResults, players, rooms, roundTeams, rounds, scores, snapshots, teachers, teams } from './schema.ts';

export type RoomRow = typeof rooms.$inferSelect;
export type TeamRow = typeof teams.$inferSelect;
export type PlayerRow = typeof players.$inferSelect;
export type RoundRow = typeof rounds.$inferSelect;
export type RoundTeamRow = typeof roundTeams.$inferSelect;

export interface NewRound {
  roomId: number;
  number: number;
  simulator: string;
  scenario: string;
  seed: number | null;
  minutes: number;
  tempo: Tempo;
  state: RoundState;
  createdAt: number;
  forkOf?: { roundId: number; teamId: number; minute: number } | null;
}

export interface MinuteRecord {
  teamId: number;
  minute: number;
  /** The snapshot, already serialised (the same text is broadcast). */
  data: string;
}

export interface TeamResultRecord {
  teamId: number;
  goals: GoalResult[];
  score: number | null;
}

export function changeFromRow(row: typeof changes.$inferSelect): ChangeRecord {
  return {
    id: row.id,
    roundId: row.roundId,
    teamId: row.teamId,
    minute: row.minute,
    key: row.key,
    value: JSON.parse(row.value),
    author: { playerId: row.playerId, name: row.authorName },
    at: row.at,
  };
}

export class Store {
  constructor(
    readonly db: Db,
    private readonly metrics: Metrics = noMetrics,
  ) {}

  transaction<T>(fn: () => T): T {
    return this.db.transaction(() => fn());
  }

  // ── teachers and rooms ───────────────────────────────────────────────
  createTeacher(keyHash: string, now: number): number {
    return this.db.insert(teachers).values({ keyHash, createdAt: now }).returning({ id: teachers.id }).get().id;
  }
  teacherByKeyHash(keyHash: string): number | undefined {
    return this.db.select({ id: teachers.id }).from(teachers).where(eq(teachers.keyHash, keyHash)).get()?.id;
  }
  codeExists(code: string): boolean {
    return !!this.db.select({ id: rooms.id }).from(rooms).where(eq(rooms.code, code)).get();
  }
  createRoom(code: string, teacherId: number, config: RoundConfig, now: number): RoomRow {
    return this.db.insert(rooms).values({ code, teacherId, config: JSON.stringify(config), createdAt: now }).returning().get();
  }
  roomByCode(code: string): RoomRow | undefined {
    return this.db.select().from(rooms).where(eq(rooms.code, code)).get();
  }
  roomById(id: number): RoomRow | undefined {
    return this.db.select().from(rooms).where(eq(rooms.id, id)).get();
  }
  roomsOfTeacher(teacherId: number): RoomRow[] {
    return this.db.select().from(rooms).where(eq(rooms.teacherId, teacherId)).orderBy(desc(rooms.createdAt), desc(rooms.id)).all();
  }
  setRoomConfig(roomId: number, config: RoundConfig): void {
    this.db.update(rooms).set({ config: JSON.stringify(config) }).where(eq(rooms.id, roomId)).run();
  }

  // ── teams and players ────────────────────────────────────────────────
  createTeam(roomId: number, idx: number, name: string): TeamRow {
    return this.db.insert(teams).values({ roomId, idx, name }).returning().get();
  }
  teamsOfRoom(roomId: number): TeamRow[] {
    return this.db.select().from(teams).where(eq(teams.roomId, roomId)).orderBy(asc(teams.idx)).all();
  }
  renameTeam(teamId: number, name: string): void {
    this.db.update(teams).set({ name }).where(eq(teams.id, teamId)).run();
  }
  createPlayer(p: { roomId: number; teamId: number | null; name: string; tokenHash: string; seq: number; roles: string[]; joinedAt: number }): PlayerRow {
    return this.db.insert(players).values({ ...p, roles: JSON.stringify(p.roles) }).returning().get();
  }
  playersOfRoom(roomId: number): PlayerRow[] {
    return this.db.select().from(players).where(eq(players.roomId, roomId)).orderBy(asc(players.id)).all();
  }
  playerByTokenHash(tokenHash: string): PlayerRow | undefined {
    return this.db.select().from(players).where(eq(players.tokenHash, tokenHash)).get();
  }
  updatePlayer(id: number, set: { teamId?: number | null; seq?: number; roles?: string[]; removed?: boolean }): void {
    const { roles, ...rest } = set;
    this.db
      .update(players)
      .set({ ...rest, ...(roles ? { roles: JSON.stringify(roles) } : {}) })
      .where(eq(players.id, id))
      .run();
  }

  // ── rounds ───────────────────────────────────────────────────────────
  createRound(r: NewRound): RoundRow {
    const { forkOf, ...rest } = r;
    return this.db
      .insert(rounds)
      .values({ ...rest, forkOfRoundId: forkOf?.roundId ?? null, forkOfTeamId: forkOf?.teamId ?? null, forkMinute: forkOf?.minute ?? null })
      .returning()
      .get();
  }
  updateRound(id: number, set: Partial<Pick<RoundRow, 'simulator' | 'scenario' | 'seed' | 'minutes' | 'tempo' | 'state' | 'minute' | 'startedAt' | 'finishedAt'>>): void {
    this.db.update(rounds).set(set).where(eq(rounds.id, id)).run();
  }
  roundById(id: number): RoundRow | undefined {
    return this.db.select().from(rounds).where(eq(rounds.id, id)).get();
  }
  latestRound(roomId: number): RoundRow | undefined {
    return this.db.select().from(rounds).where(eq(rounds.roomId, roomId)).orderBy(desc(rounds.number)).limit(1).get();
  }
  roundsOfRoom(roomId: number): RoundRow[] {
    return this.db.select().from(rounds).where(eq(rounds.roomId, roomId)).orderBy(desc(rounds.number)).all();
  }
  roundsInState(states: RoundState[]): RoundRow[] {
    return this.db.select().from(rounds).where(inArray(rounds.state, states)).all();
  }
  setRoundTeams(roundId: number, list: { teamId: number; idx: number; name: string }[]): void {
    if (list.length) this.db.insert(roundTeams).values(list.map((t) => ({ roundId, ...t }))).run();
  }
  roundTeams(roundId: number): RoundTeamRow[] {
    return this.db.select().from(roundTeams).where(eq(roundTeams.roundId, roundId)).orderBy(asc(roundTeams.idx)).all();
  }

  // ── changes, minutes, scores ─────────────────────────────────────────
  recordChange(c: Omit<ChangeRecord, 'id'>): ChangeRecord {
    const row = this.db
      .insert(changes)
      .values({ roundId: c.roundId, teamId: c.teamId, minute: c.minute, key: c.key, value: JSON.stringify(c.value), playerId: c.author.playerId, authorName: c.author.name, at: c.at })
      .returning()
      .get();
    return changeFromRow(row);
  }
  changesOfRound(roundId: number, upToMinute?: number): ChangeRecord[] {
    const where = upToMinute === undefined ? eq(changes.roundId, roundId) : and(eq(changes.roundId, roundId), lte(changes.minute, upToMinute));
    return this.db.select().from(changes).where(where).orderBy(asc(changes.id)).all().map(changeFromRow);
  }
  pendingChanges(roundId: number, afterMinute: number): ChangeRecord[] {
    return this.db
      .select()
      .from(changes)
      .where(and(eq(changes.roundId, roundId), gt(changes.minute, afterMinute)))
      .orderBy(asc(changes.id))
      .all()
      .map(changeFromRow);
  }

  /**
   * One minute of a round in one transaction: every team's snapshot, the round's minute, and at the
   * end of the round its scores and state. Nothing is broadcast before this returns.
   */
  saveMinute(roundId: number, minute: number, records: MinuteRecord[], finish?: { finishedAt: number; results: TeamResultRecord[] }): void {
    const t0 = performance.now();
    this.transaction(() => {
      if (records.length) this.db.insert(snapshots).values(records.map((r) => ({ roundId, teamId: r.teamId, minute: r.minute, data: r.data }))).run();
      this.db
        .update(rounds)
        .set(finish ? { minute, state: 'finished', finishedAt: finish.finishedAt } : { minute })
        .where(eq(rounds.id, roundId))
        .run();
      if (finish) this.saveResults(roundId, finish.results);
    });
    this.metrics.minuteCommitted(performance.now() - t0);
  }
  private saveResults(roundId: number, results: TeamResultRecord[]): void {
    for (const r of results) {
      this.db.insert(scores).values({ roundId, teamId: r.teamId, score: r.score }).run();
      if (r.goals.length) {
        this.db
          .insert(goalResults)
          .values(r.goals.map((g) => ({ roundId, teamId: r.teamId, goalId: g.id, indicator: g.indicator, op: g.op, value: g.value, target: g.target, met: g.met })))
          .run();
      }
    }
  }
  /** Ends a round early at its last stored minute. */
  finishRound(roundId: number, finishedAt: number, results: TeamResultRecord[]): void {
    this.transaction(() => {
      this.db.update(rounds).set({ state: 'finished', finishedAt }).where(eq(rounds.id, roundId)).run();
      this.saveResults(roundId, results);
    });
  }
  /** Rounds forked from this one. */
  forksOf(roundId: number): RoundRow[] {
    return this.db.select().from(rounds).where(eq(rounds.forkOfRoundId, roundId)).orderBy(asc(rounds.id)).all();
  }
  /** Copies a team's changes and snapshots up to a minute into another round and team (a what-if fork). */
  copyTeamRecords(from: { roundId: number; teamId: number }, to: { roundId: number; teamId: number }, upToMinute: number): void {
    const client = this.db.$client;
    client
      .prepare(
        `insert into changes (round_id, team_id, minute, key, value, player_id, author_name, at)
         select ?, ?, minute, key, value, null, author_name, at from changes
         where round_id = ? and team_id = ? and minute <= ? order by id`,
      )
      .run(to.roundId, to.teamId, from.roundId, from.teamId, upToMinute);
    client
      .prepare(
        `insert into snapshots (round_id, team_id, minute, data)
         select ?, ?, minute, data from snapshots where round_id = ? and team_id = ? and minute <= ?`,
      )
      .run(to.roundId, to.teamId, from.roundId, from.teamId, upToMinute);
  }

  snapshotsOfRound(roundId: number, teamId?: number): { teamId: number; minute: number; data: string }[] {
    const where = teamId === undefined ? eq(snapshots.roundId, roundId) : and(eq(snapshots.roundId, roundId), eq(snapshots.teamId, teamId));
    return this.db
      .select({ teamId: snapshots.teamId, minute: snapshots.minute, data: snapshots.data })
      .from(snapshots)
      .where(where)
      .orderBy(asc(snapshots.teamId), asc(snapshots.minute))
      .all();
  }
  resultsOfRound(roundId: number): TeamResultRecord[] {
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
          .map((g) => ({ id: g.goalId, indicator: g.indicator, op: g.op as '>=' | '<=', value: g.value, target: g.target, met: g.met })),
      }));
  }
}
