// One load-generator process: socket.io students and teachers over the minimal wire client (wire.ts), for the
// rooms `r` with r % procs === part. In 'opsroom' mode it creates its rooms, joins, and plays on when told to
// start (teachers start the next round when one ends; students now and then change one of their own controls).
// In 'baseline' mode it only subscribes to the bare server's channels.
//
// The parent drives it with JSON lines on stdin — {"do":"start"}, {"do":"measure"}, {"do":"report"} — so that
// several generators measure the same window. It answers {"event":"ready"}, {"event":"measuring"} and one
// {"event":"report"} with latency histograms, missed and out-of-order minutes, and its own event-loop delay.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { randomControlValue } from '../../../shared/sim/controls.ts';
import { getModel } from '../../../shared/sim/registry.ts';
import { rngFromSeed, uniform } from '../../../shared/sim/rng.ts';
import type { ControlDef, SimulatorId } from '../../../shared/sim/types.ts';
import { Histogram } from '../stats.ts';
import { NativeReceiver, type ReceiverReport } from './native.ts';
import { WireSocket } from './wire.ts';

export interface LoadgenConfig {
  url: string;
  mode: 'opsroom' | 'baseline';
  rooms: number;
  teams: number;
  perTeam: number;
  /** This generator serves rooms r with r % procs === part. */
  part: number;
  procs: number;
  changeProbability: number;
  /** Round length in simulated minutes (teachers start the next round when one ends). */
  roundMinutes?: number;
  /**
   * Cluster benches: room r is created on roomUrls[r % n] (the process that then owns it), where its teacher
   * connects; student i of room r connects to studentUrls[(r + i) % m], spread as a load balancer would.
   */
  roomUrls?: string[];
  studentUrls?: string[];
  /**
   * The native receiver's binary (native.ts): once joined, the students' sockets are handed over to it and read
   * there. Without it they are read here, in JavaScript.
   */
  receiver?: string;
}

const cfg = JSON.parse(process.argv[2]) as LoadgenConfig;
const rng = rngFromSeed(0x5eed + cfg.part);
const random = () => uniform(rng);

interface Track {
  round: number;
  minute: number;
  /**
   * When minute 0 of the current round was due: the earliest `sentAt − minute × period` seen in the round. A
   * server that falls behind sends late ticks with a fresh `sentAt`; measured from when each minute was due,
   * that lateness counts.
   */
  start: number;
  /** When the last minute arrived in the measured window (0: none yet). */
  lastAt: number;
}
/** Real time per simulated minute (tempo 1 in Opsroom; the bare server's period). */
const PERIOD_MS = 1000;
const studentTracks: Track[] = [];
/** A student with no minute for this long at the end of the window (at one minute per second) is stalled. */
const STALL_MS = 3000;
/** From when each minute was due to its receipt (the figure of record), and from the tick's own start. */
const studentLatency = new Histogram();
const studentSinceTick = new Histogram();
const teacherLatency = new Histogram();
let studentBytes = 0;
let teacherBytes = 0;
let missed = 0;
let outOfOrder = 0;
/** The same minute again (a takeover sends the last stored minute once more). */
let repeated = 0;
let changesSent = 0;
let changeErrors = 0;
let measuring = false;
const sockets: WireSocket[] = [];
/** Every frame the generator's sockets received so far, of every kind: what the server sent besides the minutes. */
const wire = () => {
  let frames = 0;
  let bytes = 0;
  for (const s of sockets) {
    frames += s.framesIn;
    bytes += s.bytesIn;
  }
  return { frames, bytes };
};
let wireAtStart = { frames: 0, bytes: 0 };
const LOOP_RESOLUTION_MS = 10;
const loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });

/** Order and gaps of one socket's minutes; returns the receipt's lateness after the minute was due. */
function track(t: Track, round: number, minute: number, sentAt: number, now: number): number {
  if (measuring && t.lastAt) maxGapMs = Math.max(maxGapMs, now - t.lastAt);
  if (measuring) t.lastAt = now;
  if (round > t.round) {
    missed += minute; // minutes 0..minute−1 of the new round never arrived
    t.start = Infinity;
  } else if (round === t.round) {
    if (minute === t.minute) repeated++;
    else if (minute < t.minute) outOfOrder++;
    else missed += minute - t.minute - 1;
  } else {
    outOfOrder++;
    return now - sentAt;
  }
  t.round = round;
  t.minute = minute;
  t.start = Math.min(t.start, sentAt - minute * PERIOD_MS);
  return now - (t.start + minute * PERIOD_MS);
}
const newTrack = (): Track => ({ round: 0, minute: -1, start: Infinity, lastAt: 0 });

const pick = (urls: string[] | undefined, k: number) => (urls?.length ? urls[k % urls.length] : cfg.url);
/** Longest wait between two minutes of one student in the measured window (a failover shows here). */
let maxGapMs = 0;

async function connect(url = cfg.url): Promise<WireSocket> {
  const s = await WireSocket.connect(url);
  sockets.push(s);
  return s;
}

const myRooms = Array.from({ length: cfg.rooms }, (_, r) => r).filter((r) => r % cfg.procs === cfg.part);

/**
 * The number written right after `key` in a packet's text (the servers' own JSON: a non-negative integer), or
 * NaN if the key is not there.
 */
function numberAfter(text: string, key: string): number {
  const at = text.indexOf(key);
  if (at < 0) return Number.NaN;
  let n = 0;
  let i = at + key.length;
  for (let c = text.charCodeAt(i) - 48; c >= 0 && c <= 9; c = text.charCodeAt(++i) - 48) n = n * 10 + c;
  return i > at + key.length ? n : Number.NaN;
}

/** Where an Opsroom team minute writes its minute: first in its snapshot (checked against the parsed text below). */
const SNAPSHOT_MINUTE = '"snapshot":{"minute":';

/** A minute's round, minute and sending time as read from its text, against a parse of it: they must agree. */
function checkMinute(read: readonly number[], raw: string): void {
  const m = JSON.parse(raw.slice(raw.indexOf(',') + 1, -1));
  const parsed: [number, number, number] = [m.roundId, m.snapshot?.minute ?? m.minute, m.sentAt];
  if (parsed.some((x, i) => x !== read[i]))
    throw new Error(`a minute read as ${read.join('/')} but parsed as ${parsed.join('/')}: ${raw.slice(0, 120)}`);
}

/**
 * Round, minute and sending time of a student's minute, read from its text without parsing the ~2 KB of JSON
 * (a quarter of the generator's JavaScript): a generator lighter per message measures the server, not itself.
 * The first of every 4,096 is parsed as well and must agree (the native receiver does the same).
 */
let minutesRead = 0;
function minuteOf(raw: string, minuteKey: string): [round: number, minute: number, sentAt: number] {
  const read: [number, number, number] = [
    numberAfter(raw, '"roundId":'),
    numberAfter(raw, minuteKey),
    numberAfter(raw, '"sentAt":'),
  ];
  if ((minutesRead++ & 4095) === 0 || read.some(Number.isNaN)) checkMinute(read, raw);
  return read;
}

/** One delivered student snapshot: order, then latency and size while measuring. */
function studentReceived(t: Track, round: number, minute: number, sentAt: number, raw: string): void {
  const now = Date.now();
  const late = track(t, round, minute, sentAt, now);
  if (!measuring) return;
  studentLatency.add(late);
  studentSinceTick.add(now - sentAt);
  studentBytes += raw.length;
}

/** A teacher's minute, read as a student's is (both servers write its round, minute and time first). */
function teacherReceived(t: Track, raw: string): void {
  const [round, minute, sentAt] = minuteOf(raw, '"minute":');
  const now = Date.now();
  const late = track(t, round, minute, sentAt, now);
  if (!measuring) return;
  teacherLatency.add(late);
  teacherBytes += raw.length;
}

async function inBatches<T>(items: T[], size: number, fn: (x: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

type Ack = { ok: boolean; error?: { code: string }; [k: string]: any };

/** Every student's socket and the controls of its roles (none for the bare server's). */
const students: { socket: WireSocket; controls: () => ControlDef[] }[] = [];
/** Changes prepared for each student handed over; the receiver picks one at random each time it changes. */
const CHANGES_PER_STUDENT = 16;

/** Until no socket has received a frame for quietMs: the rosters of the last joins have arrived. */
async function quiet(quietMs = 500, maxMs = 30_000): Promise<void> {
  const until = Date.now() + maxMs;
  let frames = wire().frames;
  let since = Date.now();
  while (Date.now() - since < quietMs) {
    if (Date.now() > until) throw new Error(`the sockets were not quiet for ${quietMs} ms within ${maxMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
    const now = wire().frames;
    if (now !== frames) [frames, since] = [now, Date.now()];
  }
}

/** Hands every student's socket to the native receiver, with changes drawn from the controls of its roles. */
async function handOver(path: string): Promise<NativeReceiver> {
  await quiet();
  const handed = students.map(({ socket, controls }) => {
    const mine = controls();
    const changes = mine.length
      ? Array.from({ length: CHANGES_PER_STUDENT }, () => {
          const def = mine[Math.floor(random() * mine.length)];
          return JSON.stringify(['student:control', { key: def.key, value: randomControlValue(def, random) }]);
        })
      : [];
    return { socket: socket.handOver(), changes };
  });
  studentTracks.length = 0; // read by the receiver from here on
  return NativeReceiver.start(path, handed, {
    changeProbability: cfg.changeProbability,
    seed: 0x5eed + cfg.part,
    mode: cfg.mode,
    check: checkMinute,
  });
}

async function setupOpsroom(): Promise<() => Promise<void>> {
  const sims: SimulatorId[] = ['payment-switch', 'web-service'];
  const teachers: WireSocket[] = [];
  const codes = new Map<number, string>();
  for (const r of myRooms) {
    const simulator = sims[r % 2];
    const scenario = simulator === 'payment-switch' ? 'sale-surge' : 'traffic-surge';
    const res = await fetch(`${pick(cfg.roomUrls, r)}/api/rooms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        simulator,
        scenario,
        teamCount: cfg.teams,
        minutes: cfg.roundMinutes ?? 60,
        tempo: 1,
        seed: r + 1,
      }),
    });
    if (!res.ok) throw new Error(`POST /api/rooms: ${res.status} ${await res.text()}`);
    const { code, teacherKey } = (await res.json()) as { code: string; teacherKey: string };
    const teacher = await connect(pick(cfg.roomUrls, r));
    const ack = await teacher.request<Ack>('teacher:join', { code, key: teacherKey });
    if (!ack.ok) throw new Error(`teacher:join ${JSON.stringify(ack)}`);
    const t = newTrack();
    teacher.onRaw('room:minute', (raw) => teacherReceived(t, raw));
    teacher.on('scores', () => {
      // The next round at once, as a teacher would after the debrief.
      void teacher
        .request('teacher:clock', { action: 'next' })
        .then(() => teacher.request('teacher:clock', { action: 'start' }));
    });
    teachers.push(teacher);
    codes.set(r, code);
  }
  const seats = myRooms.flatMap((r) =>
    Array.from({ length: cfg.teams * cfg.perTeam }, (_, i) => ({ code: codes.get(r)!, r, i })),
  );
  let joinErrors = 0;
  await inBatches(seats, 100, async ({ code, r, i }) => {
    const s = await connect(pick(cfg.studentUrls, r + i));
    const t = newTrack();
    const ack = await s.request<Ack>('student:join', { code, name: `Load ${r}-${i}` });
    if (!ack.ok) {
      joinErrors++;
      return;
    }
    studentTracks.push(t);
    // Roles are dealt again as teammates arrive: the controls of the latest roster. Only those are kept: a roster
    // of 40 players held by each of 5,000 sockets was most of a generator's heap, which its collector then marked
    // in steps of 20–30 ms in the middle of the measured window.
    const own = (room: any): ControlDef[] => {
      const me = room.players.find((p: { id: number }) => p.id === ack.playerId);
      return getModel(room.round.simulator).controls.filter((c) => me?.roles.includes(c.role));
    };
    let mine = own(ack.room);
    s.on('room', (v) => (mine = own(v)));
    students.push({ socket: s, controls: () => mine });
    s.onRaw('minute', (raw) => {
      studentReceived(t, ...minuteOf(raw, SNAPSHOT_MINUTE), raw);
      // Students play from the first minute, in the warm-up too: a server meets its first changes once, early in
      // its life (V8 then generalises the controls' and indicators' fields and compiles the rooms' code again),
      // not in every measured window.
      if (random() >= cfg.changeProbability) return;
      if (!mine.length) return;
      const def = mine[Math.floor(random() * mine.length)];
      changesSent++;
      void s.request<Ack>('student:control', { key: def.key, value: randomControlValue(def, random) }).then((res) => {
        if (!res.ok && res.error?.code !== 'ROUND_FINISHED' && res.error?.code !== 'BAD_STATE') {
          changeErrors++;
          if (changeErrors <= 3) process.stderr.write(`change refused: ${JSON.stringify(res.error)}\n`);
        }
      });
    });
  });
  if (joinErrors) throw new Error(`${joinErrors} students could not join`);
  // Rooms start spread over one period, as the bare server staggers its rooms and as classes do (a teacher
  // presses start when the class is ready): the same arrival of minutes for both servers.
  return async () => {
    const acks = await Promise.all(
      teachers.map(async (t, i) => {
        await new Promise((r) => setTimeout(r, (myRooms[i] * PERIOD_MS) / cfg.rooms));
        return t.request<Ack>('teacher:clock', { action: 'start' });
      }),
    );
    const refused = acks.filter((a) => !a.ok);
    if (refused.length) throw new Error(`${refused.length} rooms did not start: ${JSON.stringify(refused[0])}`);
  };
}

async function setupBaseline(): Promise<() => Promise<void>> {
  const subs: { channel: string; teacher: boolean }[] = [];
  for (const r of myRooms) {
    subs.push({ channel: `r${r}:teacher`, teacher: true });
    for (let t = 0; t < cfg.teams; t++)
      for (let k = 0; k < cfg.perTeam; k++) subs.push({ channel: `r${r}:t${t}`, teacher: false });
  }
  await inBatches(subs, 100, async ({ channel, teacher }) => {
    const s = await connect();
    const t = newTrack();
    if (teacher) s.onRaw('room:minute', (raw) => teacherReceived(t, raw));
    else {
      studentTracks.push(t);
      students.push({ socket: s, controls: () => [] });
    }
    if (!teacher) s.onRaw('minute', (raw) => studentReceived(t, ...minuteOf(raw, '"minute":'), raw));
    await s.request('sub', channel);
  });
  // One generator tells the bare server to begin; it broadcasts to every generator's sockets.
  return async () => {
    if (cfg.part === 0) sockets[0].emit('go', null);
  };
}

const send = (msg: object) => process.stdout.write(`${JSON.stringify(msg)}\n`);

const start = cfg.mode === 'opsroom' ? await setupOpsroom() : await setupBaseline();
const receiver = cfg.receiver ? await handOver(cfg.receiver) : null;
process.stderr.write(
  `loadgen ${cfg.mode} ${cfg.part + 1}/${cfg.procs}: ${sockets.length} sockets connected` +
    `${receiver ? `, ${students.length} students read by the native receiver` : ''}\n`,
);
send({ event: 'ready', sockets: sockets.length, receiverPid: receiver?.pid });

let t0 = 0;
for await (const line of createInterface({ input: process.stdin })) {
  const cmd = JSON.parse(line) as { do: 'start' | 'measure' | 'report' };
  if (cmd.do === 'start') {
    await start();
    send({ event: 'started' });
  } else if (cmd.do === 'measure') {
    // Tracking restarts so that the measured window starts clean.
    missed = 0;
    outOfOrder = 0;
    repeated = 0;
    for (const t of studentTracks) t.lastAt = 0;
    changesSent = 0;
    changeErrors = 0;
    wireAtStart = wire();
    loopDelay.enable();
    measuring = true;
    t0 = Date.now();
    await receiver?.measure();
    send({ event: 'measuring' });
  } else if (cmd.do === 'report') {
    measuring = false;
    loopDelay.disable();
    const seconds = (Date.now() - t0) / 1000;
    const atEnd = wire();
    const native = receiver ? await receiver.report() : null;
    for (const s of sockets) s.close();
    send(
      withReceiver(native, {
        event: 'report',
        sockets: sockets.length,
        seconds,
        student: studentLatency.toJSON(),
        studentSinceTick: studentSinceTick.toJSON(),
        teacher: teacherLatency.toJSON(),
        studentBytes,
        teacherBytes,
        wireFrames: atEnd.frames - wireAtStart.frames,
        wireBytes: atEnd.bytes - wireAtStart.bytes,
        missed,
        outOfOrder,
        repeated,
        // Gaps count as missed only once a later minute arrives: a student whose minutes stopped is stalled.
        stalled: studentTracks.filter((t) => t.lastAt < Date.now() - STALL_MS).length,
        changesSent,
        changeErrors,
        maxGapMs,
        // The histogram holds the interval between samples: what exceeds the resolution is the delay.
        loopDelayMs: {
          p99: Math.max(0, loopDelay.percentile(99) / 1e6 - LOOP_RESOLUTION_MS),
          max: Math.max(0, loopDelay.max / 1e6 - LOOP_RESOLUTION_MS),
        },
      }),
    );
    process.exit(0);
  }
}

/** This process's figures (its teachers, and students read here) with the native receiver's (its students). */
function withReceiver<R extends Record<string, any>>(native: ReceiverReport | null, own: R): R {
  if (!native) return own;
  const hist = (a: [number, number][], b: [number, number][]) =>
    Histogram.fromJSON(a).merge(Histogram.fromJSON(b)).toJSON();
  const counts = [
    'studentBytes',
    'wireFrames',
    'wireBytes',
    'missed',
    'outOfOrder',
    'repeated',
    'stalled',
    'changesSent',
    'changeErrors',
  ] as const;
  const out: Record<string, any> = { ...own };
  for (const k of counts) out[k] = own[k] + native[k];
  return {
    ...out,
    student: hist(own.student, native.student),
    studentSinceTick: hist(own.studentSinceTick, native.studentSinceTick),
    maxGapMs: Math.max(own.maxGapMs, native.maxGapMs),
    loopDelayMs: {
      p99: Math.max(own.loopDelayMs.p99, native.busyMs.p99),
      max: Math.max(own.loopDelayMs.max, native.busyMs.max),
    },
  } as unknown as R;
}
