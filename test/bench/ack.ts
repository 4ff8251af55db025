// `npm run bench -- --only ack [--students 0,2000]`: how long a student waits for a control change to be
// acknowledged (stored, then answered), from the moment the page sends it. A probe class of 12 students in one room
// (3 teams of 4, a minute a second) sends changes as a class does: each student one every few seconds, and every
// 10 s all twelve at once (a class reacting to the same event). Measured on a quiet server and beside N other
// students playing (the fan-out's load generators: rooms of 10 teams × 4, a minute a second).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { io as ioClient, type Socket } from 'socket.io-client';
import { getModel } from '../../shared/sim/registry.ts';
import { loadgenFlags, loadgenNice, procsFor, serverFlags } from './fanout.ts';
import type { LoadgenConfig } from './fanout/loadgen.ts';
import { receiverForRun } from './fanout/native.ts';
import { type Child, startChild } from './spawn.ts';
import { fmt, Histogram } from './stats.ts';

export interface AckOptions {
  /** Students playing beside the probe class (0: a quiet server). */
  students: number;
  /** Seconds measured, after `warmupSeconds` of play. */
  seconds: number;
  warmupSeconds: number;
}

const PROBE_TEAMS = 3;
const PER_TEAM = 4;
/** Seconds between one student's changes (staggered over the class), and between two bursts of the whole class. */
const EACH_S = 3;
const BURST_S = 10;

interface Probe {
  socket: Socket;
  key: string;
  values: (i: number) => number | boolean | string;
}

// An acknowledgement's fields depend on the event.
const emitAck = (s: Socket, event: string, payload: object) =>
  new Promise<any>((resolve) => s.emit(event, payload, resolve));

async function connect(url: string): Promise<Socket> {
  const s = ioClient(url, { transports: ['websocket'], forceNew: true, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    s.once('connect', () => resolve());
    s.once('connect_error', reject);
  });
  return s;
}

/** The probe class: a room of 12, started; each student with one of their own number or switch controls. */
async function probeClass(url: string): Promise<{ students: Probe[]; sockets: Socket[] }> {
  const res = await fetch(`${url}/api/rooms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ teamCount: PROBE_TEAMS, tempo: 1, minutes: 240, seed: 11 }),
  });
  const { code, teacherKey } = (await res.json()) as { code: string; teacherKey: string };
  const teacher = await connect(url);
  await emitAck(teacher, 'teacher:join', { code, key: teacherKey });
  const model = getModel('payment-switch');
  const sockets: Socket[] = [teacher];
  const joined: { socket: Socket; playerId: number }[] = [];
  for (let i = 0; i < PROBE_TEAMS * PER_TEAM; i++) {
    const socket = await connect(url);
    sockets.push(socket);
    const j = (await emitAck(socket, 'student:join', { code, name: `Probe ${i}` })) as {
      ok: boolean;
      playerId: number;
    };
    joined.push({ socket, playerId: j.playerId });
  }
  const started = (await emitAck(teacher, 'teacher:clock', { action: 'start' })) as {
    room: { players: { id: number; roles: string[] }[] };
  };
  const students = joined.map(({ socket, playerId }) => {
    const roles = started.room.players.find((p) => p.id === playerId)?.roles ?? [];
    const def = model.controls.find((c) => roles.includes(c.role) && c.kind !== 'action');
    if (!def) throw new Error(`probe student ${playerId} has no control`);
    const values = (i: number): number | boolean | string =>
      def.kind === 'bool'
        ? i % 2 === 0
        : def.kind === 'enum'
          ? def.options[i % def.options.length]
          : def.kind === 'number'
            ? Math.min(def.max, def.min + (i % 5) * def.step)
            : 0;
    return { socket, key: def.key, values };
  });
  return { students, sockets };
}

/** Sends the class's changes for `seconds`, each timed from send to acknowledgement. */
async function probe(students: Probe[], seconds: number, measure: boolean) {
  const each = new Histogram();
  const burst = new Histogram();
  let refused = 0;
  let n = 0;
  const send = async (p: Probe, into: Histogram) => {
    const t0 = performance.now();
    const r = await emitAck(p.socket, 'student:control', { key: p.key, value: p.values(n++) });
    if (!r.ok) refused++;
    else if (measure) into.add(performance.now() - t0);
  };
  const pending: Promise<void>[] = [];
  const end = Date.now() + seconds * 1000;
  const timers: NodeJS.Timeout[] = [];
  students.forEach((p, i) => {
    const start = setTimeout(
      () => {
        timers.push(setInterval(() => pending.push(send(p, each)), EACH_S * 1000));
      },
      (i * EACH_S * 1000) / students.length,
    );
    timers.push(start);
  });
  timers.push(
    setInterval(() => {
      for (const p of students) pending.push(send(p, burst));
    }, BURST_S * 1000),
  );
  await new Promise((r) => setTimeout(r, Math.max(0, end - Date.now())));
  for (const t of timers) clearInterval(t);
  await Promise.all(pending);
  return { each, burst, refused };
}

export async function benchAck(opts: AckOptions) {
  const dir = mkdtempSync(join(tmpdir(), 'opsroom-ack-'));
  const server = startChild('./fanout/opsroom-server.ts', [], { DATABASE_PATH: join(dir, 'ack.db') }, serverFlags());
  const gens: Child[] = [];
  let sockets: Socket[] = [];
  try {
    const { port } = await server.next((m) => 'port' in m);
    const url = `http://127.0.0.1:${port}`;
    if (opts.students > 0) {
      const rooms = Math.max(1, Math.round(opts.students / 40));
      const procs = procsFor(opts.students);
      for (let part = 0; part < procs; part++) {
        const cfg: LoadgenConfig = {
          url,
          mode: 'opsroom',
          rooms,
          teams: 10,
          perTeam: 4,
          part,
          procs,
          changeProbability: 0.01,
          receiver: receiverForRun().path,
        };
        gens.push(
          startChild('./fanout/loadgen.ts', [JSON.stringify(cfg)], {}, loadgenFlags(), { nice: loadgenNice() }),
        );
      }
      await Promise.all(gens.map((g) => g.next((m) => m.event === 'ready')));
      for (const g of gens) g.send({ do: 'start' });
      await Promise.all(gens.map((g) => g.next((m) => m.event === 'started')));
    }
    const cls = await probeClass(url);
    sockets = cls.sockets;
    await probe(cls.students, opts.warmupSeconds, false);
    const load = [loadavg()[0]];
    const measured = await probe(cls.students, opts.seconds, true);
    load.push(loadavg()[0]);
    return { ...opts, ...measured, load };
  } finally {
    for (const s of sockets) s.disconnect();
    await Promise.all(gens.map((g) => g.stop()));
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function reportAck(r: Awaited<ReturnType<typeof benchAck>>): string {
  const line = (h: Histogram) => {
    const s = h.summary();
    return `${h.n} changes: p50 ${s.p50} ms, p99 ${s.p99} ms, max ${s.max} ms`;
  };
  const all = new Histogram().merge(r.each).merge(r.burst);
  const target = r.students > 0 ? 100 : 50;
  return [
    `${String(r.students).padStart(6)} students playing beside the class, ${r.seconds} s measured: all ${line(all)} (target p99 ≤ ${target} ms)`,
    `        one at a time ${line(r.each)}; twelve at once ${line(r.burst)}; refused ${r.refused}; machine load ${r.load.map((l) => fmt(l, 1)).join(' → ')}`,
  ].join('\n');
}
