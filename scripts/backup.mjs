// An online backup of the SQLite database while the server runs (SQLite's backup API through better-sqlite3, a
// production dependency: it is in the image). Reads DATABASE_PATH (default ./data/opsroom.db), writes a consistent
// copy to the path given, checks the copy, and says so in one line:
//   node scripts/backup.mjs /data/backups/opsroom-2026-12-07.db
//   docker compose exec opsroom node scripts/backup.mjs /data/backups/opsroom-$(date +%F).db
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';

const source = resolve(process.env.DATABASE_PATH || './data/opsroom.db');
const target = process.argv[2] && resolve(process.argv[2]);
const fail = (message) => {
  console.error(`backup: ${message}`);
  process.exit(1);
};
if (!target) fail('usage: node scripts/backup.mjs <backup file>');
if (!existsSync(source)) fail(`${source}: no database there (set DATABASE_PATH)`);
if (existsSync(target)) fail(`${target} exists already: choose a new name`);
if (target === source) fail('the backup must be another file than the database');
mkdirSync(dirname(target), { recursive: true });
const db = new Database(source, { readonly: true, fileMustExist: true });
try {
  await db.backup(target);
} catch (e) {
  fail(`${e.message}`);
} finally {
  db.close();
}
const copy = new Database(target, { readonly: true });
const check = copy.pragma('quick_check', { simple: true });
const rounds = copy.prepare('SELECT count(*) AS n FROM rounds').get().n;
copy.close();
if (check !== 'ok') fail(`the copy failed its check: ${check}`);
console.log(`backup: ${source} → ${target} (${rounds} rounds, checked)`);
