// `npm ci`'s last step (the `prepare` script): generates the web app's messages and SvelteKit's types, builds the web
// app into build/ and compiles the server into dist/, so that `npm start` only runs it. Quiet: one line, or the
// builders' whole output if one of them fails. An install without the development tools (`npm ci --omit=dev`) builds
// nothing: it runs the build/ and dist/ already there.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const has = (name) => {
  try {
    require.resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
};

if (!has('vite') || !has('typescript')) {
  if (!existsSync('dist/server/main.js') || !existsSync('build/index.html'))
    console.log(
      'opsroom: the development tools are not installed and there is no build to run: npm ci, then npm start',
    );
  process.exit(0);
}

const started = Date.now();
for (const step of ['gen', 'build']) {
  const run = spawnSync('npm', ['run', '--silent', step], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (run.status !== 0) {
    process.stdout.write(run.stdout ?? '');
    process.stderr.write(run.stderr ?? '');
    console.error(`opsroom: npm run ${step} failed`);
    process.exit(run.status ?? 1);
  }
}
console.log(`opsroom: web app and server built in ${Math.round((Date.now() - started) / 1000)} s`);
