// The minutes' snapshots of one transaction in multi-row INSERTs: at 10,000 students a commit holds a few
// hundred team-minutes, and one statement per row spent more in the statement's setup and drizzle's parameter
// mapping than in SQLite's B-tree. Rows are gathered while the transaction's writes are applied and inserted
// before any other write that could see them, and before the transaction ends: the same rows in the same
// transaction, so "stored before seen" and atomicity are as before.
import type Database from 'better-sqlite3';

/** Rows per statement: 4 parameters each, far under SQLite's 32,766; a few cached statements cover every size. */
const CHUNK = 64;

export class SnapshotBatch {
  private readonly params: (number | string)[] = [];
  private readonly statements = new Map<number, Database.Statement>();

  constructor(private readonly client: Database.Database) {}

  add(roundId: number, teamId: number, minute: number, data: string): void {
    this.params.push(roundId, teamId, minute, data);
    if (this.params.length >= CHUNK * 4) this.flush();
  }

  /** Inserts what was gathered (a no-op when nothing was). */
  flush(): void {
    const rows = this.params.length / 4;
    if (!rows) return;
    let insert = this.statements.get(rows);
    if (!insert) {
      insert = this.client.prepare(
        `INSERT INTO snapshots (round_id, team_id, minute, data) VALUES ${Array(rows).fill('(?, ?, ?, ?)').join(', ')}`,
      );
      this.statements.set(rows, insert);
    }
    try {
      insert.run(this.params);
    } finally {
      // A failed insert fails its transaction, which is rolled back: the rows must not be tried again in the next.
      this.params.length = 0;
    }
  }

  /** Forgets gathered rows (a transaction that failed before its flush). */
  clear(): void {
    this.params.length = 0;
  }
}
