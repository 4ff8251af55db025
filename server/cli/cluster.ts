// `npm run cluster`: Opsroom's cluster mode on this machine — a PostgreSQL and a Redis from Debian's packages on
// loopback (durable settings, data in a temporary folder removed at the end), two Opsroom processes sharing them on
// loopback ports PORT+1 and PORT+2, and Caddy in front of both on PORT (default 3000), as a school would run it:
// the teacher and the students use that one address. Stop one process (its pid is printed) and its pages reconnect
// through Caddy to the other, which takes its rooms while it is started again.
// Ctrl-C, SIGTERM or SIGHUP stops everything — through npm too: the script execs this launcher, so npm's signal
// reaches it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { startCaddy, startServices, type CaddyService } from '../cluster/services.ts';
import { projectPath } from '../lib/paths.ts';

const root = projectPath();
const base = Number(process.env.PORT || 3000);
if (!Number.isInteger(base) || base < 1 || base > 65533) {
  process.stderr.write(
    `cluster: PORT=${process.env.PORT}: must be a whole number from 1 to 65533 (Caddy uses PORT, the processes PORT+1 and PORT+2)\n`,
  );
  process.exit(2);
}
const STOP_TIMEOUT_MS = 15_000;

const say = (line: string) => process.stdout.write(`${line}\n`);

say('Starting PostgreSQL and Redis on loopback…');
const services = await startServices({ durable: true });
const databaseUrl = await services.postgres.createDatabase('opsroom');
say(`  PostgreSQL  ${databaseUrl}  (data in ${services.postgres.dir})`);
say(`  Redis       ${services.redis.url}`);

interface Member {
  name: string;
  port: number;
  proc: ChildProcess;
  ready: Promise<void>;
  startedAt: number;
  /** Starts in a row that ended within RESTART_BACKOFF_MS of their start. */
  quickFails: number;
}

/** A member that stops by itself is started again after this (doubled at each quick failure, up to a minute). */
const RESTART_DELAY_MS = 1000;
/** A member that ran this long before it stopped failed "slowly": the next restart waits the shortest delay again. */
const RESTART_BACKOFF_MS = 30_000;
/** A member that fails this many times in a row right after starting is left stopped. */
const MAX_QUICK_FAILS = 5;

function startMember(i: number, quickFails = 0): Member {
  const name = `opsroom-${i + 1}`;
  const port = base + 1 + i;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    // Reached through Caddy only; Caddy's X-Forwarded-For names the student, for the per-address limits.
    HOST: '127.0.0.1',
    TRUST_PROXY: 'loopback',
    DATABASE_URL: databaseUrl,
    REDIS_URL: services.redis.url,
    LOG_FORMAT: 'pretty',
  };
  delete env.DATABASE_PATH;
  // setpriv's parent-death signal: the process stops with this launcher, however the launcher ends.
  // Its own process group: a Ctrl-C reaches this launcher only, which then stops each process once, gracefully.
  // The compiled server, as `npm start` runs it.
  const argv = ['--pdeathsig', 'TERM', '--', process.execPath, projectPath('dist', 'server', 'main.js')];
  const proc = spawn('setpriv', argv, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const member: Member = { name, port, proc, ready: Promise.resolve(), startedAt: Date.now(), quickFails };
  member.ready = new Promise<void>((resolve, reject) => {
    for (const stream of [proc.stdout, proc.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        process.stdout.write(`[${name}] ${line}\n`);
        if (line.includes('Opsroom is ready')) resolve();
      });
    }
    proc.once('exit', (code, signal) => {
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready`));
      if (!stopping) restart(i, member, code ?? signal);
    });
  });
  member.ready.catch(() => undefined);
  return member;
}

/** A member stopped by itself (killed, crashed): the other goes on with its rooms; this one is started again. */
function restart(i: number, old: Member, why: string | number | null): void {
  const quick = Date.now() - old.startedAt < RESTART_BACKOFF_MS ? old.quickFails + 1 : 0;
  if (quick >= MAX_QUICK_FAILS) {
    say(
      `${old.name} (pid ${old.proc.pid}) stopped (${why}) ${quick} times in a row right after starting: left stopped.`,
    );
    if (members.every((m) => m.proc.exitCode !== null || m.proc.signalCode !== null)) void stop(1);
    return;
  }
  const delay = Math.min(60_000, RESTART_DELAY_MS * 2 ** quick);
  say(
    `${old.name} (pid ${old.proc.pid}) stopped (${why}); the other one goes on with its rooms. Restarting it in ${delay / 1000} s.`,
  );
  setTimeout(() => {
    if (stopping) return;
    const m = startMember(i, quick);
    members[i] = m;
    m.ready.then(() => say(`${m.name} is back (pid ${m.proc.pid}): http://127.0.0.1:${m.port}`)).catch(() => undefined);
  }, delay);
}

let stopping = false;
const members: Member[] = [];
let caddy: CaddyService | null = null;
/** Caddy's process id now (it changes when Caddy is started again). */
const caddyPid = () => caddy?.pid;

async function stop(code: number): Promise<never> {
  if (stopping) process.exit(code);
  stopping = true;
  say('Stopping both Opsroom processes, then Caddy, PostgreSQL and Redis…');
  await Promise.all(
    members.map(async (m) => {
      if (m.proc.exitCode !== null || m.proc.signalCode !== null) return;
      const exited = new Promise((r) => m.proc.once('exit', r));
      m.proc.kill('SIGTERM');
      const timer = setTimeout(() => m.proc.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }),
  );
  // After the processes: their last words to the pages (the stop notice) go out through Caddy.
  await caddy?.stop();
  await services.stop();
  say('Stopped; the temporary data folder is removed.');
  process.exit(code);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(0));

// One after the other: the first migrates the database, the second finds it ready.
for (let i = 0; i < 2; i++) {
  const m = startMember(i);
  members.push(m);
  try {
    await m.ready;
  } catch (e) {
    process.stderr.write(`cluster: ${(e as Error).message}\n`);
    await stop(1);
  }
}

/** Caddy in front of both members on PORT; started again if it stops by itself (the members go on meanwhile). */
async function startProxy(): Promise<void> {
  try {
    const c = await startCaddy(
      members.map((m) => `127.0.0.1:${m.port}`),
      base,
    );
    caddy = c;
    void c.exited.then((why) => {
      if (stopping) return;
      say(`Caddy (pid ${c.pid}) stopped (${why}); starting it again.`);
      setTimeout(() => void startProxy().then(() => say(`Caddy is back (pid ${caddyPid()})`)), RESTART_DELAY_MS);
    });
  } catch (e) {
    process.stderr.write(`cluster: Caddy did not start: ${(e as Error).message}\n`);
    await stop(1);
  }
}
await startProxy();

say('');
say('Opsroom cluster is ready: two processes, one set of rooms, Caddy in front.');
say(`  Caddy      http://localhost:${base}  (pid ${caddyPid()}; every address of this machine, port ${base})`);
for (const m of members) say(`  ${m.name}  http://127.0.0.1:${m.port}  (pid ${m.proc.pid})`);
say(`The teacher and the students all use http://localhost:${base} (or this machine's address, port ${base}).`);
say('A process that stops by itself is started again; its pages reconnect through Caddy. Ctrl-C stops everything.');
