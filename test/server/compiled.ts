// The server as `npm start` runs it: compiled into dist/ (`npm run build:server`), compiled again here when a source
// file is newer than the build, so that a test of the production start never runs stale code.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const compiledMain = join(root, 'dist', 'server', 'main.js');

function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : e.name.endsWith('.ts') ? statSync(p).mtimeMs : 0);
  }
  return t;
}

/** The path of dist/server/main.js, built if missing or older than a source of server/ or shared/. */
export function compiledServer(): string {
  const built = existsSync(compiledMain) ? statSync(compiledMain).mtimeMs : 0;
  if (built < Math.max(newest(join(root, 'server')), newest(join(root, 'shared'))))
    execFileSync(
      process.execPath,
      [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
      {
        cwd: root,
        stdio: 'inherit',
      },
    );
  return compiledMain;
}
