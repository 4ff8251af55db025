// `npm run verify-replays [-- --db FILE]`: re-simulates every finished round in the database and
// reports any minute that differs from the stored snapshot. Exit code 1 when one does.
import { existsSync } from 'node:fs';
import { SqliteStore } from '../db/sqlite.ts';
import { verifyRounds } from '../replay/verify.ts';

const args = process.argv.slice(2);
const at = args.indexOf('--db');
const path = at >= 0 ? args[at + 1] : (process.env.DATABASE_PATH ?? './data/opsroom.db');
if (!path || !existsSync(path)) {
  console.error(`error: no database at ${path ?? '(missing --db value)'}; use --db FILE or DATABASE_PATH`);
  process.exit(2);
}
const store = SqliteStore.open(path);
const reports = await verifyRounds(store);
let bad = 0;
for (const r of reports) {
  const ok = r.mismatches.length === 0;
  if (!ok) bad++;
  const what = ok ? 'exact' : r.mismatches.map((m) => `team ${m.teamId}: minutes ${m.minutes.join(', ')}`).join('; ');
  console.log(`${ok ? 'ok  ' : 'DIFF'} round ${r.roundId} (room ${r.roomCode}, ${r.simulator}/${r.scenario}, ${r.teams} teams × ${r.minutes + 1} minutes): ${what}`);
}
console.log(`${reports.length} finished rounds re-simulated, ${bad} with differences`);
await store.close();
process.exitCode = bad ? 1 : 0;
