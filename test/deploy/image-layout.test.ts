// The image's runtime, on this machine (no Docker engine here): the files the Dockerfile's runtime stage copies —
// read from the Dockerfile itself — put in a folder owned by root, node_modules pruned to the production
// dependencies as its build stage prunes them, the server started with `node` as its CMD says, as a non-root user
// (uid 1000, the image's `node`) with the image's ENV, the database in a folder only that user may write. It
// answers its health checks (the script the HEALTHCHECK runs), makes an online backup, and on SIGTERM pauses and stores its running round
// and exits 0.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { io as ioClient } from 'socket.io-client';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openSqlite } from '../../server/db/open.ts';
import { freePort } from '../../server/cluster/services.ts';
import { compiledServer } from '../server/compiled.ts';
import { createRoomAt, ok, type Client } from '../server/helpers.ts';
import { copiedFromBuild, envOf, execForm, root, stages } from './dockerfile.ts';

const UID = 1000;
const runtime = stages().at(-1)!;
const dir = mkdtempSync(join(tmpdir(), 'opsroom-image-'));
const app = join(dir, 'app');
const data = join(dir, 'data');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A command as the image's user: uid and gid 1000, no supplementary groups. */
const asNode = (argv: string[]): [string, string[]] => [
  'setpriv',
  [`--reuid=${UID}`, `--regid=${UID}`, '--clear-groups', '--', ...argv],
];

beforeAll(() => {
  compiledServer();
  if (!existsSync(join(root, 'build', 'index.html'))) throw new Error('build/ is missing: npm run build first');
  chmodSync(dir, 0o755);
  mkdirSync(app);
  // The build stage's /app is this worktree, built; the runtime stage copies from it.
  for (const { source, target } of copiedFromBuild(runtime)) {
    const from = join(root, source.replace(/^\/app\/?/, ''));
    const to = join(app, target);
    if (source.endsWith('/node_modules')) {
      // Hard links where the file system allows (fast); files npm rewrites are real copies.
      try {
        execFileSync('cp', ['-al', from, to]);
      } catch {
        cpSync(from, to, { recursive: true, verbatimSymlinks: true });
      }
      rmSync(join(to, '.package-lock.json'), { force: true });
      copyFileSync(join(from, '.package-lock.json'), join(to, '.package-lock.json'));
    } else {
      mkdirSync(dirname(to), { recursive: true });
      cpSync(from, to, { recursive: true });
    }
  }
  // The build stage's last step: production dependencies only, the native build kept, nothing fetched.
  execFileSync('npm', ['prune', '--omit=dev', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], {
    cwd: app,
    stdio: 'pipe',
  });
  mkdirSync(data);
  chownSync(data, UID, UID);
}, 120_000);

test('the runtime holds the built output and production dependencies only', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  for (const dep of Object.keys(pkg.dependencies)) expect(existsSync(join(app, 'node_modules', dep)), dep).toBe(true);
  for (const dev of ['vite', 'typescript', 'vitest', 'svelte', '@biomejs/biome', 'playwright-core'])
    expect(existsSync(join(app, 'node_modules', dev)), dev).toBe(false);
  // Its better-sqlite3 is the build's, compiled: nothing to rebuild in the runtime.
  expect(existsSync(join(app, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))).toBe(true);
  for (const absent of ['server', 'shared', 'test', 'web/routes', 'web/lib', 'docs'])
    expect(existsSync(join(app, absent)), absent).toBe(false);
  // The worktree's own node_modules is untouched by the prune of its copy.
  expect(existsSync(join(root, 'node_modules', 'vite', 'package.json'))).toBe(true);
});

test('started with node as a non-root user: healthy, ready, and SIGTERM pauses and stores the running round', async () => {
  const cmd = execForm(runtime, 'CMD')!;
  expect(cmd[0]).toBe('node');
  const port = await freePort();
  const env = {
    PATH: process.env.PATH!,
    HOME: data,
    ...envOf(runtime),
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_PATH: join(data, 'opsroom.db'),
  };
  const proc = spawn(...asNode([process.execPath, ...cmd.slice(1)]), {
    cwd: app,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Record<string, any>[] = [];
  const err: string[] = [];
  createInterface({ input: proc.stdout! }).on('line', (l) => out.push(JSON.parse(l)));
  createInterface({ input: proc.stderr! }).on('line', (l) => err.push(l));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const health = execForm(runtime, 'HEALTHCHECK')!;
  expect(health).toEqual(['node', 'scripts/healthcheck.mjs', '/api/health']);
  /** The image's health check, run as the image runs it (same user, same folder, same environment). */
  const check = (path = health[2]) =>
    spawnSync(...asNode([process.execPath, health[1], path]), { cwd: app, env, encoding: 'utf8' });
  const clients: Client[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (!out.some((l) => l.msg === 'Opsroom is ready')) return;
        clearInterval(timer);
        resolve();
      }, 50);
      exited.then((c) => {
        clearInterval(timer);
        reject(new Error(`exited ${c}: ${err.join('\n')}`));
      });
    });
    // The process runs as uid 1000, and cannot write its own code.
    const status = readFileSync(`/proc/${proc.pid}/status`, 'utf8');
    expect(/^Uid:\s+(\d+)\s+(\d+)/m.exec(status)!.slice(1)).toEqual([String(UID), String(UID)]);
    expect(spawnSync(...asNode(['touch', join(app, 'dist', 'x')])).status).not.toBe(0);
    expect(check().status).toBe(0);
    expect(check('/api/ready').status).toBe(0);
    expect(check('/api/nothing-here').status).toBe(1);

    const url = `http://127.0.0.1:${port}`;
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    const { code, teacherKey } = await createRoomAt(url, { teamCount: 1, tempo: 20, minutes: 30 });
    const connect = async () => {
      const c: Client = ioClient(url, { transports: ['websocket'], reconnection: false, forceNew: true });
      clients.push(c);
      await new Promise<void>((r) => c.once('connect', () => r()));
      return c;
    };
    const teacher = await connect();
    await ok(teacher, 'teacher:join', { code, key: teacherKey });
    await ok(await connect(), 'student:join', { code, name: 'Ann' });
    const started = await ok(teacher, 'teacher:clock', { action: 'start' });
    const roundId = started.room.round.id;
    // The CSV export speaks the reader's language from the web app's messages, read at run time.
    const csv = await fetch(`${url}/api/rounds/${roundId}/export/minutes.csv?lang=it`, {
      headers: { authorization: `Bearer ${teacherKey}` },
    });
    expect(csv.status).toBe(200);
    const header = (await csv.text()).split('\r\n')[0];
    expect(header).toContain('Minuto');
    expect(header).not.toMatch(/\bps_[a-z]+_/);

    // An online backup while the round runs, with the script the image carries, as the image's user.
    const backup = join(data, 'backups', 'opsroom-copy.db');
    const backedUp = spawnSync(...asNode([process.execPath, 'scripts/backup.mjs', backup]), {
      cwd: app,
      env,
      encoding: 'utf8',
    });
    expect(backedUp.stderr).toBe('');
    expect(backedUp.stdout).toMatch(/→ .*opsroom-copy\.db \(1 rounds, checked\)/);
    const copy = openSqlite(backup);
    expect(await copy.roundById(roundId)).toMatchObject({ state: 'running' });
    await copy.close();
    const again = spawnSync(...asNode([process.execPath, 'scripts/backup.mjs', backup]), {
      cwd: app,
      env,
      encoding: 'utf8',
    });
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/exists already/);

    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    const stopped = out.find((l) => l.msg?.startsWith('stopped'));
    expect(stopped).toMatchObject({ roundsPaused: 1, pauseFailed: 0, socketsTold: 2 });
    expect(err).toEqual([]);
    expect(check().status).toBe(1);
    // What the non-root process stored, read back: the round paused, not lost.
    const store = openSqlite(join(data, 'opsroom.db'));
    expect(await store.roundById(roundId)).toMatchObject({ state: 'paused', minute: 0 });
    await store.close();
  } finally {
    for (const c of clients) c.disconnect();
    if (proc.exitCode === null) proc.kill('SIGKILL');
  }
}, 60_000);
