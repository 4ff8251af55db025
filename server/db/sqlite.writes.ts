// How each Write reaches SQLite, inside the transaction sqlite.ts opens: the writes every minute and every
// change bring through statements prepared once, snapshots gathered into multi-row inserts (writer.batch.ts).
import { and, eq, lte, sql, type Placeholder } from 'drizzle-orm';
import type { Db } from './index.ts';
import { changeRow, playerPatch, playerRow, roleChangeRow, roomRow, roundRow, teamRow } from './rows.ts';
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
  teachers,
  teams,
} from './schema.ts';
import type { SnapshotBatch } from './writer.batch.ts';
import { FencedError, minuteMove, type Write } from './writes.ts';

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

/** Applies writes on one connection; its statements are prepared at the first write that needs them. */
export class SqliteWrites {
  private prepared: ReturnType<typeof prepareWrites> | null = null;

  constructor(private readonly db: Db) {}

  /**
   * One write; snapshots are gathered in `batch`. Only the round's minute may pass gathered snapshots (another
   * table, no reader in between); every other write inserts them first, so each sees what precedes it.
   */
  apply(w: Write, batch: SnapshotBatch): void {
    const { db } = this;
    if (w.op === 'insertSnapshots') {
      for (const r of w.rows) batch.add(w.roundId, r.teamId, r.minute, r.data);
      return;
    }
    this.prepared ??= prepareWrites(db);
    const { prepared } = this;
    const moved = minuteMove(w);
    if (moved) {
      prepared.roundMinute.run(moved);
      return;
    }
    batch.flush();
    switch (w.op) {
      case 'insertTeacher':
        db.insert(teachers).values({ id: w.id, keyHash: w.keyHash, createdAt: w.createdAt }).run();
        return;
      case 'insertRoom':
        db.insert(rooms).values(roomRow(w)).run();
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
        db.insert(teams).values(teamRow(w)).run();
        return;
      case 'renameTeam':
        db.update(teams).set({ name: w.name }).where(eq(teams.id, w.teamId)).run();
        return;
      case 'insertPlayer':
        db.insert(players).values(playerRow(w)).run();
        return;
      case 'updatePlayer':
        db.update(players).set(playerPatch(w.set)).where(eq(players.id, w.id)).run();
        return;
      case 'insertRound':
        db.insert(rounds).values(roundRow(w.round)).run();
        return;
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
}
