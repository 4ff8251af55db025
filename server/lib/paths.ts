// Files of the project (migrations, the web build) found from the project's root: the folder with package.json
// above this module, wherever it runs from — the sources (server/lib/) or their compiled copy (dist/server/lib/).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'migrations'))) return dir;
    if (dirname(dir) === dir) throw new Error('the project folder (package.json, migrations/) was not found');
  }
}

const root = findRoot();

/** A path inside the project folder. */
export const projectPath = (...parts: string[]): string => join(root, ...parts);
