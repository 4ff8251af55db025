// The load generator (its own process): thousands of socket.io students, one teacher per room. In
// 'opsroom' mode it creates rooms, joins, starts every round and plays on (teachers start the next round
// when one ends; students now and then change one of their own controls). In 'baseline' mode it only
// subscribes to the bare server's channels. It measures delivery latency from the server's tick start
// (sentAt) to receipt, missed and out-of-order minutes, and prints one JSON report.
import { io as ioClient, type Socket } from 'socket.io-client';
import { getModel } from '../../../shared/sim/registry.ts';
import { randomControlValue } from '../../../shared/sim/controls.ts';
import type { ControlDef, SimulatorId } from '../../../shared/sim/types.ts';

const cfg = JSON.parse(process.argv[2]) as {
  url: string;
  mode: 'opsroom' | 'baseline';
  rooms: number;
  teams: number;
  perTeam: number;
  warmupSeconds: number;
  seconds: number;
  changeProbability: number;
  /** Round length in simulated minutes (teachers start the next round when one ends). */
  roundMinutes?: number;
};

interface Track {
  round: number;
  minute: number;
}
const latencies: number[] = [];
const teacherLatencies: number[] = [];
let delivered = 0;
let deliveredBytesSample = 0;
let sampled = 0;
let teacherBytesSample = 0;
let teacherSampled = 0;
let missed = 0;
let outOfOrder = 0;
let changesSent = 0;
let changeErrors = 0;
let measuring = false;
const sockets: Socket[] = [];

function track(t: Track, round: number, minute: number): void {
  if (round > t.round) {
    missed += minute; // minutes 0..minute−1 of the new round never arrived
  } else if (round === t.round) {
    if (minute <= t.minute) outOfOrder++;
    else missed += minute - t.minute - 1;
  } else {
    outOfOrder++;
    return;
  }
  t.round = round;
  t.minute = minute;
}

function connect(): Promise<Socket> {
  const s = ioClient(cfg.url, { transports: ['websocket'], forceNew: true, reconnection: false, timeout: 60_000 });
  sockets.push(s);
  return new Promise((resolve, reject) => {
    s.once('connect', () => resolve(s));
    s.once('connect_error', reject);
  });
}
const ask = <T = any>(s: Socket, event: string, payload: unknown): Promise<T> => new Promise((resolve) => s.emit(event, payload, resolve));

/** One delivered student snapshot: order tracking, then latency and size while measuring. */
function received(t: Track, round: number, minute: number, sentAt: number, payload: unknown): boolean {
  const now = Date.now();
  track(t, round, minute);
  if (!measuring) return false;
  delivered++;
  latencies.push(now - sentAt);
  if (delivered % 97 === 0) {
    deliveredBytesSample += JSON.stringify(payload).length;
    sampled++;
  }
  return true;
}

function onStudentMinute(s: Socket, t: Track, controls: () => ControlDef[]) {
  s.on('minute', (m: { roundId: number; sentAt: number; snapshot: { minute: number } }) => {
    if (!received(t, m.roundId, m.snapshot.minute, m.sentAt, m)) return;
    const own = controls();
    if (own.length && Math.random() < cfg.changeProbability) {
      const def = own[Math.floor(Math.random() * own.length)];
      changesSent++;
      s.emit('student:control', { key: def.key, value: randomControlValue(def, Math.random) }, (r: { ok: boolean; error?: { code: string } }) => {
        if (!r.ok && r.error?.code !== 'ROUND_FINISHED' && r.error?.code !== 'BAD_STATE') {
          changeErrors++;
          if (changeErrors <= 3) process.stderr.write(`change refused: ${JSON.stringify(r.error)}\n`);
        }
      });
    }
  });
}

function onTeacherMinute(s: Socket, event: string, t: Track) {
  s.on(event, (m: { roundId: number; minute: number; sentAt: number }) => {
    const now = Date.now();
    track(t, m.roundId, m.minute);
    if (!measuring) return;
    teacherLatencies.push(now - m.sentAt);
    if (teacherLatencies.length % 13 === 0) {
      teacherBytesSample += JSON.stringify(m).length;
      teacherSampled++;
    }
  });
}

async function inBatches<T>(items: T[], size: number, fn: (x: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

async function setupOpsroom(): Promise<() => Promise<void>> {
  const sims: SimulatorId[] = ['payment-switch', 'web-service'];
  const teachers: Socket[] = [];
  const codes: string[] = [];
  for (let r = 0; r < cfg.rooms; r++) {
    const simulator = sims[r % 2];
    const scenario = simulator === 'payment-switch' ? 'sale-surge' : 'traffic-surge';
    const res = await fetch(`${cfg.url}/api/rooms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ simulator, scenario, teamCount: cfg.teams, minutes: cfg.roundMinutes ?? 60, tempo: 1, seed: r + 1 }),
    });
    const { code, teacherKey } = await res.json();
    const teacher = await connect();
    const ack = await ask(teacher, 'teacher:join', { code, key: teacherKey });
    if (!ack.ok) throw new Error(`teacher:join ${JSON.stringify(ack)}`);
    onTeacherMinute(teacher, 'room:minute', { round: 0, minute: -1 });
    teacher.on('scores', () => {
      // The next round at once, as a teacher would after the debrief.
      void ask(teacher, 'teacher:clock', { action: 'next' }).then(() => ask(teacher, 'teacher:clock', { action: 'start' }));
    });
    teachers.push(teacher);
    codes.push(code);
  }
  const seats = codes.flatMap((code, r) => Array.from({ length: cfg.teams * cfg.perTeam }, (_, i) => ({ code, r, i })));
  let joinErrors = 0;
  await inBatches(seats, 100, async ({ code, r, i }) => {
    const s = await connect();
    const t: Track = { round: 0, minute: -1 };
    const ack = await ask(s, 'student:join', { code, name: `Load ${r}-${i}` });
    if (!ack.ok) {
      joinErrors++;
      return;
    }
    // Roles are dealt again as teammates arrive: keep the latest roster.
    let room = ack.room;
    s.on('room', (v: typeof room) => (room = v));
    const own = () => {
      const me = room.players.find((p: { id: number }) => p.id === ack.playerId);
      return getModel(room.round.simulator).controls.filter((c) => me?.roles.includes(c.role));
    };
    onStudentMinute(s, t, own);
  });
  if (joinErrors) throw new Error(`${joinErrors} students could not join`);
  return async () => {
    await Promise.all(teachers.map((t) => ask(t, 'teacher:clock', { action: 'start' })));
  };
}

async function setupBaseline(): Promise<() => Promise<void>> {
  const subs: { channel: string; teacher: boolean }[] = [];
  for (let r = 0; r < cfg.rooms; r++) {
    subs.push({ channel: `r${r}:teacher`, teacher: true });
    for (let t = 0; t < cfg.teams; t++) for (let k = 0; k < cfg.perTeam; k++) subs.push({ channel: `r${r}:t${t}`, teacher: false });
  }
  await inBatches(subs, 100, async ({ channel, teacher }) => {
    const s = await connect();
    const t: Track = { round: 0, minute: -1 };
    if (teacher) onTeacherMinute(s, 'room:minute', t);
    else {
      s.on('minute', (m: { roundId: number; minute: number; sentAt: number }) => void received(t, m.roundId, m.minute, m.sentAt, m));
    }
    await new Promise<void>((resolve) => s.emit('sub', channel, resolve));
  });
  return async () => {
    sockets[0].emit('go');
  };
}

function stats(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  const q = (p: number) => (s.length ? s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] : NaN);
  return { n: s.length, p50: q(0.5), p99: q(0.99), max: s[s.length - 1] ?? NaN };
}

const start = cfg.mode === 'opsroom' ? await setupOpsroom() : await setupBaseline();
process.stderr.write(`loadgen ${cfg.mode}: ${sockets.length} sockets connected\n`);
await start();
await new Promise((r) => setTimeout(r, cfg.warmupSeconds * 1000));
// Tracking restarts so that the measured window starts clean.
missed = 0;
outOfOrder = 0;
measuring = true;
process.stdout.write(JSON.stringify({ event: 'measuring' }) + '\n');
const t0 = Date.now();
await new Promise((r) => setTimeout(r, cfg.seconds * 1000));
measuring = false;
const elapsed = (Date.now() - t0) / 1000;
for (const s of sockets) s.disconnect();
process.stdout.write(
  JSON.stringify({
    event: 'report',
    mode: cfg.mode,
    sockets: sockets.length,
    students: cfg.rooms * cfg.teams * cfg.perTeam,
    seconds: elapsed,
    delivered,
    deliveredPerSecond: delivered / elapsed,
    meanPayloadBytes: sampled ? deliveredBytesSample / sampled : 0,
    meanTeacherPayloadBytes: teacherSampled ? teacherBytesSample / teacherSampled : 0,
    latencyMs: stats(latencies),
    teacherLatencyMs: stats(teacherLatencies),
    missed,
    outOfOrder,
    changesSent,
    changeErrors,
  }) + '\n',
);
process.exit(0);
