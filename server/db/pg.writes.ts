// How each Write reaches PostgreSQL inside a transaction of pg-store.ts, and the fences: a room's token is stored
// only if no higher one is, or nothing of the transaction is (FencedError).
import { and, eq, sql } from 'drizzle-orm';
import type { PgDb } from './pg.ts';
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
  snapshots,
  teachers,
  teams,
} from './schema.pg.ts';
import { FencedError, type Write } from './writes.ts';

export type Tx = Parameters<Parameters<PgDb['transaction']>[0]>[0];

/** Rows in one INSERT of snapshots (4 parameters each: PostgreSQL takes at most 65,535 a statement). */
export const SNAPSHOTS_PER_INSERT = 4000;
/** Parameters of one statement, with room to spare under PostgreSQL's 65,535. */
export const MAX_PARAMETERS = 60_000;

/** FencedError for the first room whose fence was not stored (the rows are the rooms it was stored for). */
export function refuseStale(
  fences: readonly Extract<Write, { op: 'fence' }>[],
  stored: readonly { id: number }[],
): void {
  if (stored.length === fences.length) return;
  const ok = new Set(stored.map((r) => Number(r.id)));
  const stale = fences.find((f) => !ok.has(f.roomId));
  if (stale) throw new FencedError(stale.roomId, stale.token);
}

/** Stores each room's token unless a higher one is stored: then nothing of the transaction is (FencedError). */
export async function fence(tx: Tx, fences: readonly Extract<Write, { op: 'fence' }>[]): Promise<void> {
  if (fences.length === 0) return;
  const values = sql.join(
    fences.map((f) => sql`(${f.roomId}::int, ${f.token}::int, ${f.at}::bigint)`),
    sql`, `,
  );
  // The row locks taken here also order this commit against a takeover's claim of the same room.
  const done = await tx.execute<{ id: number }>(
    sql`UPDATE rooms SET fence = v.token, fenced_at = v.at FROM (VALUES ${values}) AS v(id, token, at) WHERE rooms.id = v.id AND rooms.fence <= v.token RETURNING rooms.id`,
  );
  refuseStale(fences, done.rows);
}

/** One write that is not a minute's (commit() merges those), in the transaction. */
export async function applyWrite(tx: Tx, w: Write): Promise<void> {
  switch (w.op) {
    case 'insertTeacher':
      await tx.insert(teachers).values({ id: w.id, keyHash: w.keyHash, createdAt: w.createdAt });
      return;
    case 'insertRoom':
      await tx.insert(rooms).values(roomRow(w));
      return;
    case 'setRoomConfig':
      await tx
        .update(rooms)
        .set({ config: JSON.stringify(w.config) })
        .where(eq(rooms.id, w.roomId));
      return;
    case 'setRoomFlags':
      await tx.update(rooms).set(w.set).where(eq(rooms.id, w.roomId));
      return;
    case 'insertTeam':
      await tx.insert(teams).values(teamRow(w));
      return;
    case 'renameTeam':
      await tx.update(teams).set({ name: w.name }).where(eq(teams.id, w.teamId));
      return;
    case 'insertPlayer':
      await tx.insert(players).values(playerRow(w));
      return;
    case 'updatePlayer':
      await tx.update(players).set(playerPatch(w.set)).where(eq(players.id, w.id));
      return;
    case 'insertRound':
      await tx.insert(rounds).values(roundRow(w.round));
      return;
    case 'updateRound':
      await tx.update(rounds).set(w.set).where(eq(rounds.id, w.id));
      return;
    case 'insertRoundTeams':
      if (w.teams.length) await tx.insert(roundTeams).values(w.teams.map((t) => ({ roundId: w.roundId, ...t })));
      return;
    case 'renameRoundTeam':
      await tx
        .update(roundTeams)
        .set({ name: w.name })
        .where(and(eq(roundTeams.roundId, w.roundId), eq(roundTeams.teamId, w.teamId)));
      return;
    case 'insertChanges':
      if (w.changes.length) await tx.insert(changes).values(w.changes.map(changeRow));
      return;
    case 'insertSnapshots':
      if (w.rows.length) await tx.insert(snapshots).values(w.rows.map((r) => ({ roundId: w.roundId, ...r })));
      return;
    case 'insertResults':
      if (w.results.length)
        await tx
          .insert(scores)
          .values(w.results.map((r) => ({ roundId: w.roundId, teamId: r.teamId, score: r.score })));
      {
        const goals = w.results.flatMap((r) =>
          r.goals.map((g) => ({
            roundId: w.roundId,
            teamId: r.teamId,
            goalId: g.id,
            indicator: g.indicator,
            op: g.op,
            value: g.value,
            target: g.target,
            met: g.met,
          })),
        );
        if (goals.length) await tx.insert(goalResults).values(goals);
      }
      return;
    case 'insertRoleChanges':
      if (w.changes.length) await tx.insert(roleChanges).values(w.changes.map(roleChangeRow));
      return;
    case 'upsertRoundMembers':
      if (w.members.length) {
        const rows = w.members.map((m) => ({
          roundId: w.roundId,
          teamId: m.teamId,
          playerId: m.playerId,
          seq: m.seq,
          name: m.name,
          roles: JSON.stringify(m.roles),
        }));
        // One statement: a member listed twice keeps the last name and roles, as one upsert after another would.
        const last = [...new Map(rows.map((r) => [`${r.teamId}:${r.playerId}`, r])).values()];
        await tx
          .insert(roundMembers)
          .values(last)
          .onConflictDoUpdate({
            target: [roundMembers.roundId, roundMembers.teamId, roundMembers.playerId],
            set: { name: sql`excluded.name`, roles: sql`excluded.roles` },
          });
      }
      return;
    case 'insertMessage': {
      const { id, roundId, teamId, text, at } = w.message;
      await tx.insert(messages).values({ id, roundId, teamId, text, at });
      return;
    }
    case 'fence':
      await fence(tx, [w]);
      return;
  }
}
