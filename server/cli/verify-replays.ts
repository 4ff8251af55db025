// `npm run verify-replays [-- --db FILE]`: re-simulates every finished round in the database and
// reports any minute that differs from the stored snapshot. Exit code 1 when one does. With DATABASE_URL
// (cluster mode) it reads the PostgreSQL database instead.
import { existsSync } from 'node:fs';
import { openPostgres, openSqlite } from '../db/open.ts';
import type { Store } from '../db/store.ts';
import { verifyRounds } from '../replay/verify.ts';

const args = process.argv.slice(2);
const at = args.indexOf('--db');
const url = at < 0 ? process.env.DATABASE_URL?.trim() : undefined;
const path = at >= 0 ? args[at + 1] : (process.env.DATABASE_PATH ?? './data/opsroom.db');
if (!url && (!path || !existsSync(path))) {
  console.error(
    `error: no database at ${path ?? '(missing --db value)'}; use --db FILE, DATABASE_PATH or DATABASE_URL`,
  );
  process.exit(2);
}
let store: Store;
try {
  store = url ? await openPostgres(url) : openSqlite(path ?? '');
} catch (e) {
  console.error(`error: ${(e as Error).message}`);
  process.exit(2);
}
const reports = await verifyRounds(store);
let bad = 0;
for (const r of reports) {
  const ok = r.mismatches.length === 0;
  if (!ok) bad++;
  const what = ok ? 'exact' : r.mismatches.map((m) => `team ${m.teamId}: minutes ${m.minutes.join(', ')}`).join('; ');
  console.log(
    `${ok ? 'ok  ' : 'DIFF'} round ${r.roundId} (room ${r.roomCode}, ${r.simulator}/${r.scenario}, ${r.teams} teams × ${r.minutes + 1} minutes): ${what}`,
  );
}
console.log(`${reports.length} finished rounds re-simulated, ${bad} with differences`);
await store.close();
process.exitCode = bad ? 1 : 0;
