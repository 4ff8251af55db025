// `npx tsx test/bench/caddy-placement.ts [--rooms 6] [--students 8]`: where Caddy puts a class (docs/deploy.md).
// Runs `npm run cluster`'s launcher (built: `npm run build` first) — Caddy on one address in front of two processes —
// creates rooms through Caddy as teachers do, joins each room's students through Caddy over WebSocket, all from one
// source address, and counts, from each process's own /metrics, how many students landed on the room's owner (read
// from its lease in Redis) and how many on the other process, whose every ask is forwarded; with the join's round
// trip for each.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { io as ioClient, type Socket } from 'socket.io-client';
import { freePort } from '../../server/cluster/services.ts';
import { sample } from '../server/helpers.ts';

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const ROOMS = arg('rooms', 6);
const STUDENTS = arg('students', 8);
const ask = (s: Socket, event: string, payload: unknown): Promise<any> => new Promise((r) => s.emit(event, payload, r));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

let port = await freePort();
while (port > 65000) port = await freePort();
const launcher = fileURLToPath(new URL('../../dist/server/cli/cluster.js', import.meta.url));
const proc = spawn(process.execPath, [launcher], {
  env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const lines: string[] = [];
await new Promise<void>((resolve, reject) => {
  createInterface({ input: proc.stdout! }).on('line', (l) => {
    lines.push(l);
    if (/Opsroom cluster is ready/.test(l)) setTimeout(resolve, 200);
  });
  proc.once('exit', (c) => reject(new Error(`launcher exited ${c}:\n${lines.join('\n')}`)));
});
const members = lines
  .map((l) => / {2}(opsroom-\d) {2}http:\/\/127\.0\.0\.1:(\d+) {2}\(pid (\d+)\)/.exec(l))
  .filter((m) => m !== null)
  .map((m) => ({ name: m[1], url: `http://127.0.0.1:${m[2]}`, pid: Number(m[3]) }));
const redis = new Redis(/Redis {7}(\S+)/.exec(lines.find((l) => /^ {2}Redis /.test(l))!)![1]);
const url = `http://127.0.0.1:${port}`;
const studentsOn = async () =>
  Promise.all(
    members.map(async (m) =>
      sample(await (await fetch(`${m.url}/metrics`)).text(), 'opsroom_sockets', { kind: 'student' }),
    ),
  );

const sockets: Socket[] = [];
const joins = { owner: [] as number[], forwarded: [] as number[] };
const perRoom: string[] = [];
try {
  for (let r = 0; r < ROOMS; r++) {
    const res = await fetch(`${url}/api/rooms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ teamCount: 2, tempo: 20, minutes: 30 }),
    });
    const { code } = await res.json();
    const holder = String(await redis.get(`opsroom:lease:{${code}}`));
    const owner = members.findIndex((m) => holder.includes(`-${m.pid}-`));
    if (owner < 0) throw new Error(`no member holds ${code} (${holder})`);
    let onOwner = 0;
    for (let s = 0; s < STUDENTS; s++) {
      const before = await studentsOn();
      const socket = ioClient(url, { transports: ['websocket'], forceNew: true, reconnection: false });
      sockets.push(socket);
      await new Promise<void>((r) => socket.once('connect', () => r()));
      const t0 = performance.now();
      const j = await ask(socket, 'student:join', { code, name: `S${s}` });
      const ms = performance.now() - t0;
      if (!j.ok) throw new Error(`join refused: ${JSON.stringify(j.error)}`);
      const after = await studentsOn();
      const landed = after.findIndex((n, i) => n === before[i] + 1);
      if (landed === owner) onOwner++;
      (landed === owner ? joins.owner : joins.forwarded).push(ms);
    }
    perRoom.push(`${code}: ${onOwner}/${STUDENTS} on its owner`);
  }
  const total = joins.owner.length + joins.forwarded.length;
  console.log(
    `load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  console.log(perRoom.join('\n'));
  console.log(
    `${total} students in ${ROOMS} rooms: ${joins.owner.length} on their room's owner, ${joins.forwarded.length} forwarded (${Math.round((100 * joins.forwarded.length) / total)} %)`,
  );
  console.log(
    `join round trip, median: on the owner ${median(joins.owner).toFixed(1)} ms, forwarded ${median(joins.forwarded).toFixed(1)} ms`,
  );
} finally {
  for (const s of sockets) s.disconnect();
  redis.disconnect();
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
}
