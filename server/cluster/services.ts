// Throwaway PostgreSQL and Redis on loopback, and Caddy in front of the processes, from Debian's packages
// (test/setup/ensure-services.sh installs them): data in a temporary folder, a free port, stopped on exit. For the
// cluster tests and `npm run cluster`; a real deployment points DATABASE_URL and REDIS_URL at its own servers.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { projectPath } from '../lib/paths.ts';

/** A service that can be taken down and brought back on the same port (tests of outages). */
interface Restartable {
  /** Stops the service (PostgreSQL keeps its data; Redis keeps nothing, as without persistence). */
  down(): Promise<void>;
  /** Starts it again on the same port. */
  up(): Promise<void>;
}

export interface PostgresService extends Restartable {
  /** postgres://postgres@127.0.0.1:PORT/postgres — the superuser, trusted on loopback. */
  readonly url: string;
  readonly port: number;
  /** The postmaster's process id (its backends are its children). */
  readonly pid: number;
  /** The temporary folder: data/, the unix socket and the log. */
  readonly dir: string;
  /** Creates an empty database and returns its URL (one per test keeps tests apart). */
  createDatabase(name?: string): Promise<string>;
  stop(): Promise<void>;
}

export interface RedisService extends Restartable {
  /** redis://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly dir: string;
  stop(): Promise<void>;
}

export interface PostgresOptions {
  /**
   * false (the default, for tests): fsync, full-page writes and synchronous commit off — fast, and the data
   * does not outlive the folder anyway. true: PostgreSQL's durable defaults, for `npm run cluster`.
   */
  durable?: boolean;
  /** Most connections the server accepts (default 100). */
  maxConnections?: number;
}

const STARTUP_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
const OWNER_FILE = 'owner.pid';

/** Children still running, killed when this process exits whatever the way (see `onExit`). */
const running = new Set<{ proc: ChildProcess; dir: string }>();
let exitHookInstalled = false;

function onExit(): void {
  for (const r of running) {
    r.proc.kill('SIGKILL');
    rmSync(r.dir, { recursive: true, force: true });
  }
  running.clear();
}

/** A port nobody listens on right now (the service binds it a moment later; a clash is retried). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** PostgreSQL's server binaries: Debian keeps them out of PATH, in /usr/lib/postgresql/<major>/bin. */
export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors.length) return join(root, majors[0], 'bin');
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return join(which.stdout.trim(), '..');
  throw new Error('PostgreSQL is not installed: run `sh test/setup/ensure-services.sh` (Debian package postgresql)');
}

function redisBinary(): string {
  const which = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  throw new Error('Redis is not installed: run `sh test/setup/ensure-services.sh` (Debian package redis-server)');
}

/** PostgreSQL refuses to run as root: then it runs as the `postgres` user that Debian's package creates. */
function serviceUser(): { uid: number; gid: number; name: string } | null {
  if (process.getuid?.() !== 0) return null;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line)
    throw new Error(
      'running as root, but there is no `postgres` user to run PostgreSQL as (install the postgresql package)',
    );
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid), name: 'postgres' };
}

/**
 * The command line of a service. setpriv (util-linux) switches to the service's user when asked and sets the
 * parent-death signal, so the service dies with this process even after a SIGKILL.
 */
function command(bin: string, args: string[], user: { name: string } | null): [string, string[]] {
  const priv = user ? [`--reuid=${user.name}`, `--regid=${user.name}`, '--init-groups'] : [];
  return ['setpriv', [...priv, '--pdeathsig', 'KILL', '--', bin, ...args]];
}

/** Removes folders left by earlier runs that were killed before they could clean up. */
function sweepStale(prefix: string): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(prefix)) continue;
    const dir = join(tmpdir(), name);
    let pid = NaN;
    try {
      pid = Number(readFileSync(join(dir, OWNER_FILE), 'utf8'));
    } catch {
      continue; // Not ours, or still being created.
    }
    if (Number.isInteger(pid) && !isAlive(pid)) rmSync(dir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function makeDir(prefix: string, user: { uid: number; gid: number } | null): string {
  sweepStale(prefix);
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(dir, OWNER_FILE), String(process.pid));
  if (user) chownSync(dir, user.uid, user.gid);
  return dir;
}

/** Runs a service until `ready` matches its output; rejects with the output's tail if it exits first. */
/** A started service: it has a process id (spawn leaves it undefined only when the start failed). */
type Launched = ChildProcess & { pid: number };

function launch(
  bin: string,
  args: string[],
  user: { name: string } | null,
  dir: string,
  ready: RegExp,
  env: Record<string, string> = {},
): Promise<Launched> {
  const [cmd, argv] = command(bin, args, user);
  // Its own process group: a Ctrl-C in the terminal reaches whoever started it, which stops it in its turn
  // (`npm run cluster` stops the Opsroom processes before their database and Redis).
  const proc = spawn(cmd, argv, {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const entry = { proc, dir };
  running.add(entry);
  proc.once('exit', () => running.delete(entry));
  if (!exitHookInstalled) {
    process.once('exit', onExit);
    exitHookInstalled = true;
  }
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => fail(new Error(`${bin} did not start within ${STARTUP_TIMEOUT_MS / 1000} s`)),
      STARTUP_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      out = (out + chunk.toString()).slice(-8000);
      if (ready.test(out)) {
        clearTimeout(timer);
        proc.stdout.off('data', onData);
        proc.stderr.off('data', onData);
        // Keep draining the pipes so that a chatty service never blocks on a full pipe.
        proc.stdout.resume();
        proc.stderr.resume();
        proc.off('exit', onEarlyExit);
        const { pid } = proc;
        if (pid === undefined) return fail(new Error(`${bin} has no process id`));
        resolve(Object.assign(proc, { pid }));
      }
    };
    const onEarlyExit = (code: number | null, signal: string | null) =>
      fail(new Error(`${bin} exited (${code ?? signal}) before it was ready:\n${out.trim()}`));
    const fail = (err: Error) => {
      clearTimeout(timer);
      proc.kill('SIGKILL');
      reject(err);
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', onEarlyExit);
    proc.once('error', (err) => fail(err));
  });
}

/** Sends `signal`, waits for the exit (SIGKILL after a while), then removes the folder (when given). */
async function halt(proc: ChildProcess, signal: NodeJS.Signals, dir: string | null): Promise<void> {
  if (proc.exitCode === null && proc.signalCode === null) {
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
}

/** Tries a few free ports: another process may take the one we picked before the service binds it. */
async function onFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    try {
      return await start(port);
    } catch (e) {
      last = e;
      if (!/address already in use/i.test(String((e as Error).message))) throw e;
    }
  }
  throw last;
}

export async function startPostgres(opts: PostgresOptions = {}): Promise<PostgresService> {
  const bin = postgresBinDir();
  const user = serviceUser();
  const dir = makeDir('opsroom-pg-', user);
  const data = join(dir, 'data');
  const [cmd, argv] = command(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'],
    user,
  );
  const init = spawnSync(cmd, argv, { cwd: dir, encoding: 'utf8' });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (${init.status ?? init.error?.message}):\n${init.stdout}${init.stderr}`);
  }
  const fast = opts.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
  try {
    return await onFreePort(async (port) => {
      const args = [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `max_connections=${opts.maxConnections ?? 100}`,
        ...fast,
      ];
      const start = () =>
        launch(join(bin, 'postgres'), args, user, dir, /database system is ready to accept connections/);
      let proc = await start();
      const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
      let n = 0;
      return {
        url,
        port,
        get pid() {
          return proc.pid;
        },
        dir,
        async createDatabase(name = `opsroom_${process.pid}_${++n}`) {
          if (!/^[a-z_][a-z0-9_]*$/.test(name))
            throw new Error(`database name ${JSON.stringify(name)}: lower-case letters, digits and _ only`);
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          try {
            await client.query(`CREATE DATABASE ${name}`);
          } finally {
            await client.end();
          }
          return `postgres://postgres@127.0.0.1:${port}/${name}`;
        },
        // SIGINT is PostgreSQL's fast shutdown: open sessions are ended, nothing waits for clients.
        stop: () => halt(proc, 'SIGINT', dir),
        down: () => halt(proc, 'SIGINT', null),
        async up() {
          proc = await start();
        },
      };
    });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

export async function startRedis(): Promise<RedisService> {
  const bin = redisBinary();
  const dir = makeDir('opsroom-redis-', null);
  mkdirSync(join(dir, 'data'));
  try {
    return await onFreePort(async (port) => {
      // No persistence: leases live for seconds, and fencing tokens are floored by what PostgreSQL stored.
      const args = [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        join(dir, 'data'),
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
      ];
      const start = () => launch(bin, args, null, dir, /Ready to accept connections/);
      let proc = await start();
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        get pid() {
          return proc.pid;
        },
        dir,
        stop: () => halt(proc, 'SIGTERM', dir),
        // SIGKILL: the connections drop at once, as when Redis's machine goes away.
        down: () => halt(proc, 'SIGKILL', null),
        async up() {
          proc = await start();
        },
      };
    });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** Both services, started side by side; `stop()` stops both. */
export async function startServices(
  opts: PostgresOptions = {},
): Promise<{ postgres: PostgresService; redis: RedisService; stop(): Promise<void> }> {
  const [pgResult, redisResult] = await Promise.allSettled([startPostgres(opts), startRedis()]);
  if (pgResult.status === 'rejected' || redisResult.status === 'rejected') {
    if (pgResult.status === 'fulfilled') await pgResult.value.stop();
    if (redisResult.status === 'fulfilled') await redisResult.value.stop();
    throw pgResult.status === 'rejected' ? pgResult.reason : (redisResult as PromiseRejectedResult).reason;
  }
  const postgres = pgResult.value;
  const redis = redisResult.value;
  return { postgres, redis, stop: async () => void (await Promise.all([postgres.stop(), redis.stop()])) };
}

export interface CaddyService {
  /** http://127.0.0.1:PORT — the one address of every Opsroom process behind it. */
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly dir: string;
  /** Resolves when Caddy exits, however (its exit code or signal). */
  readonly exited: Promise<number | string | null>;
  stop(): Promise<void>;
}

function caddyBinary(): string {
  const which = spawnSync('sh', ['-c', 'command -v caddy'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  throw new Error('Caddy is not installed: run `sh test/setup/ensure-services.sh` (Debian package caddy)');
}

/**
 * Caddy (Debian's package) in front of Opsroom processes on this machine, with deploy/Caddyfile — the file the
 * compose template uses — filled in by its environment: plain HTTP on `port` (every interface; a free one when not
 * given), `upstreams` as host:port, no admin endpoint. Its state goes to a temporary folder removed by `stop()`.
 */
export async function startCaddy(upstreams: string[], port?: number): Promise<CaddyService> {
  const bin = caddyBinary();
  const dir = makeDir('opsroom-caddy-', null);
  const start = async (p: number): Promise<CaddyService> => {
    const env = {
      SITE_ADDRESS: `:${p}`,
      OPSROOM_UPSTREAMS: upstreams.join(' '),
      CADDY_ADMIN: 'off',
      XDG_DATA_HOME: join(dir, 'data'),
      XDG_CONFIG_HOME: join(dir, 'config'),
      HOME: dir,
    };
    const args = ['run', '--adapter', 'caddyfile', '--config', projectPath('deploy', 'Caddyfile')];
    const proc = await launch(bin, args, null, dir, /serving initial configuration/, env);
    // Its folder holds nothing worth keeping once it has stopped, however it stopped.
    const exited = new Promise<number | string | null>((r) =>
      proc.once('exit', (code, signal) => {
        rmSync(dir, { recursive: true, force: true });
        r(code ?? signal);
      }),
    );
    return {
      url: `http://127.0.0.1:${p}`,
      port: p,
      pid: proc.pid,
      dir,
      exited,
      stop: () => halt(proc, 'SIGTERM', dir),
    };
  };
  try {
    return port === undefined ? await onFreePort(start) : await start(port);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
