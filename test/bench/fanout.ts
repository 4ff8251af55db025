// Bench 3: fan-out. Opsroom under load-generator processes, then a bare socket.io server broadcasting payloads of
// the same size at the same rate to the same generators, for the ratios; and the limit probe (Opsroom, then the
// baseline, at each size).
//
// Keeping the generator out of the figures: it speaks socket.io's wire protocol directly over `ws` (wire.ts),
// can be split over several processes (`procs`), and reports its own CPU per message and event-loop delay next to
// the server's figures, so a run in which the generator, not the server, was the bottleneck shows it.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadgenConfig } from './fanout/loadgen.ts';
import { receiverForRun } from './fanout/native.ts';
import type { ProbeReport } from './fanout/probe.ts';
import { allowedCpus, sampleProcess } from './procstat.ts';
import { startChild, type Child } from './spawn.ts';
import { fmt, Histogram } from './stats.ts';

export interface FanoutOptions {
  rooms: number;
  teams: number;
  perTeam: number;
  seconds: number;
  warmupSeconds: number;
  /** Load-generator processes (rooms are dealt among them). */
  procs: number;
  changeProbability?: number;
  roundMinutes?: number;
  /** Each server on the first CPU alone, the generators on the others (`--pin`). */
  pin?: boolean;
}
export const FANOUT_DEFAULTS: FanoutOptions = {
  rooms: 50,
  teams: 10,
  perTeam: 4,
  seconds: 300,
  warmupSeconds: 15,
  procs: 1,
};

/**
 * Generator processes for a number of students. Pinned (`pin`: the generators on cores of their own), one per 2,500
 * (four use about 40 % of their core at 10,000): each process's pauses are shorter and hold up fewer students than
 * with half as many. Unpinned, one per 5,000: every generator process also competes with the server's threads for
 * the same cores, and at 10,000 students four put the server's own p99 at 968 ms where two put it at 287 ms.
 */
export const procsFor = (students: number, pin = false) => Math.max(1, Math.ceil(students / (pin ? 2500 : 5000)));

/** socket.io's framing around an event's JSON payload: `42["minute",` … `]`. */
const framing = (event: string) => `42["${event}",`.length + 1;

export interface RunHooks {
  /** Extra environment and Node flags for the Opsroom server. */
  serverEnv?: Record<string, string>;
  serverNodeArgs?: string[];
  /** Called when the measured window starts (the soak reads the server's memory lines meanwhile). */
  onMeasuring?: (server: Child) => void;
  /** A folder for a CPU profile of the server over the measured window (fanout/profile.ts). */
  cpuProfileDir?: string;
}

/**
 * Node's flags for both servers: none, as `npm start` runs the server. SERVER_NODE_FLAGS (space-separated) gives
 * both servers other ones, to measure a setting an operator might choose (`NODE_OPTIONS` on their machine).
 */
export const serverFlags = () => process.env.SERVER_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
/**
 * Node's flags for the load generators. A young generation of up to 64 MB: what a generator holds between two
 * minutes (its sockets' frames in flight) then dies young. With Node's default, a generator promoted ~0.8 MB a
 * scavenge, collected its old generation every 1–6 s and stalled 125–246 ms in the measured window, on top of the
 * server's delay. LOADGEN_NODE_FLAGS (space-separated) replaces them, e.g. `--trace-gc` or
 * `--cpu-prof --cpu-prof-dir=DIR`.
 */
export const loadgenFlags = () =>
  process.env.LOADGEN_NODE_FLAGS?.split(' ').filter(Boolean) ?? ['--max-semi-space-size=64'];

/**
 * The generators' niceness: 19, the lowest priority, so that on a shared machine they run on what the server leaves
 * and never hold up one of its threads (the main thread, the database writer, V8's helpers). Their own delay still
 * counts against the server: a snapshot read late is measured late. Unpinned at 10,000 students, two generators at
 * niceness 0 put the server's own p99 at 287 ms, at 19 at 81–173 ms, medians 94–132. LOADGEN_NICE replaces it (0: the same priority as the server).
 */
export const loadgenNice = () => {
  const v = process.env.LOADGEN_NICE;
  if (v === undefined || v === '') return 19;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 19)
    throw new Error(`LOADGEN_NICE must be an integer from 0 to 19, got ${v}`);
  return n;
};

/**
 * `--pin`: the server (Opsroom or bare, each in its turn) on the first CPU this process may use, with every thread
 * it starts, and the load generators on the others, so that the generators' work does not run on the server's
 * core. Without it the scheduler mixes them; with two cores the server then loses its core to a generator in the
 * middle of a broadcast.
 */
export function pinning(cpus = allowedCpus()): { server: string; generators: string } {
  if (cpus.length < 2) throw new Error(`--pin needs at least 2 CPUs; this process may use ${cpus.length}`);
  return { server: String(cpus[0]), generators: cpus.slice(1).join(',') };
}

export async function runOne(
  mode: 'opsroom' | 'baseline',
  opts: FanoutOptions,
  bytes?: { team: number; teacher: number },
  hooks: RunHooks = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'opsroom-bench-'));
  const pin = opts.pin ? pinning() : undefined;
  const profile: Record<string, string> = hooks.cpuProfileDir ? { CPU_PROFILE_DIR: hooks.cpuProfileDir } : {};
  const server =
    mode === 'opsroom'
      ? startChild(
          './fanout/opsroom-server.ts',
          [],
          { DATABASE_PATH: join(dir, 'bench.db'), ...profile, ...hooks.serverEnv },
          [...serverFlags(), ...(hooks.serverNodeArgs ?? [])],
          { cpus: pin?.server },
        )
      : startChild(
          './fanout/baseline-server.ts',
          [],
          {
            ...profile,
            ROOMS: String(opts.rooms),
            TEAMS: String(opts.teams),
            TEAM_BYTES: String(Math.round(bytes!.team)),
            TEACHER_BYTES: String(Math.round(bytes!.teacher)),
          },
          serverFlags(),
          { cpus: pin?.server },
        );
  const gens: Child[] = [];
  try {
    const { port } = await server.next((m) => 'port' in m);
    for (let part = 0; part < opts.procs; part++) {
      const cfg: LoadgenConfig = {
        url: `http://127.0.0.1:${port}`,
        mode,
        rooms: opts.rooms,
        teams: opts.teams,
        perTeam: opts.perTeam,
        part,
        procs: opts.procs,
        changeProbability: mode === 'opsroom' ? (opts.changeProbability ?? 0.01) : 0,
        roundMinutes: opts.roundMinutes,
        receiver: receiverForRun().path,
      };
      gens.push(
        startChild('./fanout/loadgen.ts', [JSON.stringify(cfg)], {}, loadgenFlags(), {
          cpus: pin?.generators,
          nice: loadgenNice(),
        }),
      );
    }
    // Every generator connects its sockets first; then all start together and measure the same window.
    const ready = await Promise.all(gens.map((g) => g.next((m) => m.event === 'ready')));
    for (const g of gens) g.send({ do: 'start' });
    await Promise.all(gens.map((g) => g.next((m) => m.event === 'started')));
    await new Promise((r) => setTimeout(r, opts.warmupSeconds * 1000));
    const serverCpu = sampleProcess(server.proc.pid!);
    const genCpu = generatorPids(gens, ready).map((pid) => sampleProcess(pid));
    for (const g of gens) g.send({ do: 'measure' });
    await Promise.all(gens.map((g) => g.next((m) => m.event === 'measuring')));
    server.send({ do: 'measure' });
    serverCpu.mark();
    for (const s of genCpu) s.mark();
    if (hooks.cpuProfileDir) server.proc.kill('SIGUSR2');
    hooks.onMeasuring?.(server);
    await new Promise((r) => setTimeout(r, opts.seconds * 1000));
    const proc = serverCpu.stop();
    const genProcs = genCpu.map((s) => s.stop());
    server.send({ do: 'report' });
    const { probe } = (await server.next((m) => 'probe' in m)) as { probe: ProbeReport };
    let profiled: string | null = null;
    if (hooks.cpuProfileDir) {
      server.proc.kill('SIGUSR2');
      profiled = (await server.next((m) => 'profiled' in m)).profiled;
    }
    for (const g of gens) g.send({ do: 'report' });
    const reports = await Promise.all(gens.map((g) => g.next((m) => m.event === 'report')));
    // The machine's load says how noisy the figures are (other work on the same cores).
    return { ...merge(mode, opts, reports, proc, genProcs), loadAverage: loadavg()[0], probe, profiled };
  } finally {
    await Promise.all(gens.map((g) => g.stop()));
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

type CpuSample = ReturnType<ReturnType<typeof sampleProcess>['stop']>;

export function merge(mode: string, opts: FanoutOptions, reports: any[], server: CpuSample, gens: CpuSample[]) {
  const student = new Histogram();
  const sinceTick = new Histogram();
  const teacher = new Histogram();
  for (const r of reports) {
    student.merge(Histogram.fromJSON(r.student));
    sinceTick.merge(Histogram.fromJSON(r.studentSinceTick));
    teacher.merge(Histogram.fromJSON(r.teacher));
  }
  const sum = (key: string) => reports.reduce((a, r) => a + r[key], 0);
  const seconds = Math.max(...reports.map((r) => r.seconds));
  const messages = student.n + teacher.n;
  /** Seconds of each named thread's CPU as µs per delivered message. */
  const perMessage = (bySeconds: Record<string, number>) =>
    Object.fromEntries(Object.entries(bySeconds).map(([name, seconds]) => [name, (1e6 * seconds) / messages]));
  const genCpuSeconds = gens.reduce((a, g) => a + g.cpuSeconds, 0);
  return {
    mode,
    students: opts.rooms * opts.teams * opts.perTeam,
    sockets: sum('sockets'),
    seconds,
    delivered: student.n,
    /** Every minute message delivered in the window: the students' and the teachers' (what CPU per snapshot divides by). */
    messages,
    deliveredPerSecond: student.n / seconds,
    /** Delivered ÷ due: every student one minute per second. */
    deliveredShare: student.n / (seconds * opts.rooms * opts.teams * opts.perTeam),
    /** From when each minute was due (a late tick counts) to its receipt. */
    latencyMs: student.summary(),
    /** The same, whole: several runs' histograms merged give their pooled percentiles. */
    latency: student,
    /** From the tick's start (`sentAt`) to receipt: the part the tick's own work and the network add. */
    sinceTickMs: sinceTick.summary(),
    teacherLatencyMs: teacher.summary(),
    missed: sum('missed'),
    outOfOrder: sum('outOfOrder'),
    /** Students whose minutes stopped coming (missed counts only gaps closed by a later minute). */
    stalled: sum('stalled'),
    meanPayloadBytes: student.n ? sum('studentBytes') / student.n - framing('minute') : 0,
    meanTeacherPayloadBytes: teacher.n ? sum('teacherBytes') / teacher.n - framing('room:minute') : 0,
    /** Everything the sockets received (every event, ack and ping, framing included) per delivered minute. */
    wire: { framesPerMessage: sum('wireFrames') / messages, bytesPerMessage: sum('wireBytes') / messages },
    changesSent: sum('changesSent'),
    changeErrors: sum('changeErrors'),
    server: {
      ...server,
      usPerMessage: (1e6 * server.cpuSeconds) / messages,
      /** Fresh pages the server was given per second in the window (minor page faults). */
      minorFaultsPerSecond: server.minorFaults / seconds,
      /** The same CPU per delivered message by thread: the event loop's own, and its helpers' and workers'. */
      usPerMessageBy: {
        mainUser: (1e6 * server.threads.mainUser) / messages,
        mainSystem: (1e6 * server.threads.mainSystem) / messages,
        others: (1e6 * server.threads.others) / messages,
        /** Of the others, Opsroom's own threads (the database writer, the checkpoints), by name. */
        named: perMessage(server.threads.named),
        /** Of each named thread's, the kernel's part (system time). */
        namedSystem: perMessage(server.threads.namedSystem),
      },
      /** What its threads waited for a core, in ms a second of the window: crowding, not work. */
      waitedMsPerSecond: {
        main: (1e3 * server.waited.main) / server.wallSeconds,
        others: (1e3 * server.waited.others) / server.wallSeconds,
      },
    },
    loadgen: {
      procs: reports.length,
      /** Native receivers among the processes measured (one per generator when they read the students). */
      receivers: gens.length - reports.length,
      /** The receivers' part of usPerMessage (the samples after the generators' own). */
      receiverUsPerMessage: (1e6 * gens.slice(reports.length).reduce((a, g) => a + g.cpuSeconds, 0)) / messages,
      cpuPercent: gens.reduce((a, g) => a + g.cpuPercent, 0),
      usPerMessage: (1e6 * genCpuSeconds) / messages,
      loopDelayP99Ms: Math.max(...reports.map((r) => r.loopDelayMs.p99)),
      loopDelayMaxMs: Math.max(...reports.map((r) => r.loopDelayMs.max)),
      /** What the generators' threads waited for a core, all processes together, in ms a second. */
      waitedMsPerSecond: gens.reduce((a, g) => a + (1e3 * (g.waited.main + g.waited.others)) / g.wallSeconds, 0),
    },
  };
}

export type RunResult = Awaited<ReturnType<typeof runOne>>;

/** The processes that make the load: each generator, and the native receiver reading its students if it has one. */
export function generatorPids(gens: Child[], ready: { receiverPid?: number }[]): number[] {
  return [...gens.map((g) => g.proc.pid!), ...ready.flatMap((r) => (r.receiverPid ? [r.receiverPid] : []))];
}

/** Opsroom, then the bare socket.io baseline with Opsroom's mean payload sizes, under the same generators. */
export async function withBaseline(opts: FanoutOptions, hooks: RunHooks = {}) {
  const opsroom = await runOne('opsroom', opts, undefined, hooks);
  const baseline = await runOne(
    'baseline',
    opts,
    { team: opsroom.meanPayloadBytes, teacher: opsroom.meanTeacherPayloadBytes },
    hooks,
  );
  return {
    opts,
    opsroom,
    baseline,
    ratios: {
      throughput: opsroom.deliveredPerSecond / baseline.deliveredPerSecond,
      p50: opsroom.latencyMs.p50 / baseline.latencyMs.p50,
      p99: opsroom.latencyMs.p99 / baseline.latencyMs.p99,
      cpu: opsroom.server.cpuPercent / baseline.server.cpuPercent,
      cpuPerMessage: opsroom.server.usPerMessage / baseline.server.usPerMessage,
    },
  };
}

/** The server's event-loop delay and its garbage collections in the window: what late minutes waited for. */
const serverLoop = (x: RunResult) => {
  const gc = Object.entries(x.probe.gc)
    .map(([kind, g]) => `${g.count} ${kind} ${fmt(g.totalMs, 0)} ms (max ${fmt(g.maxMs, 0)})`)
    .join(', ');
  const m = x.probe.memoryMB;
  const stalls = x.probe.stalls
    .slice(0, 3)
    .map((s) => `${fmt(s.ms, 0)} ms: ran ${fmt(s.ranMs, 0)}, waited ${fmt(s.waitedMs, 0)}, GC ${fmt(s.gcMs, 0)}`)
    .join('; ');
  return `server loop delay p99 ${fmt(x.probe.loopDelayMs.p99, 0)} ms (max ${fmt(x.probe.loopDelayMs.max, 0)}; longest stand-stills ${stalls || 'none'}), GC ${gc || 'none'}, heap ${m.heapUsed}/${m.heapTotal} MB (external ${m.external}), page faults ${fmt(x.server.minorFaultsPerSecond, 0)}/s`;
};

const generator = (x: RunResult) =>
  `load generator ${x.loadgen.procs} proc${x.loadgen.procs > 1 ? 's' : ''}${x.loadgen.receivers ? ` + ${x.loadgen.receivers} native receiver${x.loadgen.receivers > 1 ? 's' : ''}` : ''} CPU ${fmt(x.loadgen.cpuPercent, 0)} % (${fmt(x.loadgen.usPerMessage, 1)} µs/message${x.loadgen.receivers ? `, the receivers ${fmt(x.loadgen.receiverUsPerMessage, 1)}` : ''}, loop delay p99 ${fmt(x.loadgen.loopDelayP99Ms, 0)} ms, max ${fmt(x.loadgen.loopDelayMaxMs, 0)}, waited for a core ${fmt(x.loadgen.waitedMsPerSecond, 0)} ms/s)`;

export function reportFanout(r: Awaited<ReturnType<typeof withBaseline>>): string {
  const line = (name: string, x: RunResult) =>
    `${name.padEnd(9)} ${x.students} students (${x.sockets} sockets), ${fmt(x.seconds, 0)} s measured: ${fmt(x.deliveredPerSecond, 0)} snapshots/s delivered (${fmt(100 * x.deliveredShare, 0)} % of due), ` +
    `latency p50 ${x.latencyMs.p50} ms / p99 ${x.latencyMs.p99} ms / max ${x.latencyMs.max} ms (since the tick started p99 ${x.sinceTickMs.p99} ms; teachers p99 ${x.teacherLatencyMs.p99} ms), ` +
    `missed ${x.missed}, out-of-order ${x.outOfOrder}${x.stalled ? `, STALLED ${x.stalled} students` : ''}, payload ${fmt(x.meanPayloadBytes, 0)} B (teacher ${fmt(x.meanTeacherPayloadBytes, 0)} B), ` +
    `server CPU ${fmt(x.server.cpuPercent, 0)} % (${fmt(x.server.usPerMessage, 1)} µs/message), RSS max ${fmt(x.server.rssMaxMB, 0)} MB, ${serverLoop(x)}, ${generator(x)}` +
    (x.changesSent ? `, ${x.changesSent} control changes (${x.changeErrors} refused)` : '');
  return [
    line('opsroom', r.opsroom),
    line('baseline', r.baseline),
    `ratios (opsroom ÷ baseline): throughput ${fmt(r.ratios.throughput, 3)} (target ≥ 0.8), latency p50 ${fmt(r.ratios.p50, 2)}, p99 ${fmt(r.ratios.p99, 2)}, ` +
      `server CPU per delivered snapshot ${fmt(r.ratios.cpuPerMessage, 2)} (target ≤ 1.5)`,
  ].join('\n');
}

/**
 * Where one process stops keeping up: at each number of students (rooms of 10 teams × 4, one minute per second),
 * Opsroom and then the bare socket.io baseline with the same payloads, 20 s measured after 10 s of warm-up (a young
 * process: the compiler still at work on the first round; `warmupSeconds` 75 measures past the first round's end);
 * `repeat` pairs at each size, alternated (O, B, O, B…), since the bare server's own cost per message moves by a
 * third between runs on a virtual machine and one pair says little about the ratio.
 */
export async function probeLimit(
  students: number[],
  opts: {
    seconds?: number;
    warmupSeconds?: number;
    procs?: number;
    cpuProfileDir?: string;
    repeat?: number;
    pin?: boolean;
  } = {},
) {
  const out = [];
  for (const n of students) {
    const rooms = Math.max(1, Math.round(n / 40));
    const run = {
      rooms,
      teams: 10,
      perTeam: 4,
      seconds: opts.seconds ?? 20,
      warmupSeconds: opts.warmupSeconds ?? 10,
      procs: opts.procs ?? procsFor(n, opts.pin),
      pin: opts.pin,
    };
    const pairs = [];
    for (let i = 0; i < (opts.repeat ?? 1); i++)
      pairs.push(await withBaseline(run, { cpuProfileDir: opts.cpuProfileDir }));
    out.push(pairs);
  }
  return out;
}

/**
 * A server's CPU per delivered snapshot over several runs: their CPU-seconds summed over their messages summed, the
 * run's figure as one window of their combined length. Unlike the median of three runs, it uses every run: within a
 * run of several pairs the host's phase moves each server's figure by up to a third, and a median of three keeps one
 * window's reading whole.
 */
export const pooledUsPerMessage = (runs: readonly { server: { cpuSeconds: number }; messages: number }[]) =>
  (1e6 * runs.reduce((a, r) => a + r.server.cpuSeconds, 0)) / runs.reduce((a, r) => a + r.messages, 0);

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Where a server's CPU per snapshot went: its main thread (user + system) and its other threads, of which Opsroom's
 * own by name (server/db/thread-name.mjs: the database writer, the checkpoints); the rest are V8's helpers.
 */
const byThread = (x: RunResult) => {
  const t = x.server.usPerMessageBy;
  const own = Object.entries(t.named).map(
    ([name, us]) => `${name.replace(/^opsroom-/, '')} ${fmt(us, 1)} [system ${fmt(t.namedSystem[name] ?? 0, 1)}]`,
  );
  const of = own.length ? ` (${own.join(', ')})` : '';
  return `main ${fmt(t.mainUser, 1)} + ${fmt(t.mainSystem, 1)} µs (user + system), other threads ${fmt(t.others, 1)} µs${of}`;
};

/** What a server's threads waited for a core (runnable, not running), in ms a second: the machine's crowding. */
const waitedFor = (x: RunResult) => {
  const w = x.server.waitedMsPerSecond;
  return `main ${fmt(w.main, 0)}, other threads ${fmt(w.others, 0)} ms/s`;
};

/** The server's own count of its minutes, from due to broadcast: what of the delay was the server's. */
const serverDelay = (d: { p99Ms: number; within100Ms: number }) =>
  `p99 ${fmt(d.p99Ms, 0)} ms, ${fmt(100 * d.within100Ms, 1)} % within 100 ms`;
const atServer = (x: RunResult) => {
  const d = x.probe.minuteDelay;
  if (!d) return '';
  const { lag, tick, commit } = d.parts;
  return `; at the server, due to broadcast: ${serverDelay(d)} (p99 of its parts: timer lag ${fmt(lag, 0)}, tick ${fmt(tick, 0)}, a transaction ${fmt(commit, 0)} ms)`;
};

/** One line per pair: `N students: … p99 X ms … max … missed M … out-of-order K … server CPU … RSS …`. */
function reportPair({ opsroom: r, baseline: b, ratios }: Awaited<ReturnType<typeof withBaseline>>): string {
  return [
    `${String(r.students).padStart(6)} students: ${fmt(r.deliveredPerSecond, 0)} snapshots/s (${fmt(100 * r.deliveredShare, 0)} % of due)`,
    `p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms (since the tick started: p99 ${r.sinceTickMs.p99} ms${atServer(r)})`,
    `missed ${r.missed}, out-of-order ${r.outOfOrder}${r.stalled ? `, STALLED ${r.stalled} students` : ''}, server CPU ${fmt(r.server.cpuPercent, 0)} %, RSS ${fmt(r.server.rssMaxMB, 0)} MB`,
    `CPU/snapshot ${fmt(r.server.usPerMessage, 1)} µs vs bare socket.io ${fmt(b.server.usPerMessage, 1)} µs = ${fmt(ratios.cpuPerMessage, 2)}×`,
    `by thread: ${byThread(r)} vs bare ${byThread(b)}`,
    `waited for a core: ${waitedFor(r)} vs bare ${waitedFor(b)}`,
    `received per snapshot ${fmt(r.wire.framesPerMessage, 2)} frames / ${fmt(r.wire.bytesPerMessage, 0)} B vs bare ${fmt(b.wire.framesPerMessage, 2)} / ${fmt(b.wire.bytesPerMessage, 0)} B`,
    serverLoop(r),
    `(bare: ${fmt(b.deliveredPerSecond, 0)} snapshots/s, p99 ${b.latencyMs.p99} ms, missed ${b.missed}${b.stalled ? `, STALLED ${b.stalled}` : ''}, RSS ${fmt(b.server.rssMaxMB, 0)} MB, ${serverLoop(b)})`,
    generator(r),
    // The generators' CPU per message in the bare run too: the same work at another moment, so a pair whose two
    // figures differ much ran through a faster or slower phase of the host in one of its two runs.
    `bare's load generator ${fmt(b.loadgen.usPerMessage, 1)} µs/message`,
    `machine load ${fmt(r.loadAverage, 1)}`,
    ...(r.profiled ? [`profiles ${r.profiled} and ${b.profiled}`] : []),
  ].join(', ');
}

/**
 * Every pair's line; with more than one pair at a size, then a summary line: Opsroom's and the bare server's CPU per
 * snapshot pooled over their runs and the ratio of those (the run's figure), with the ratio of their medians beside
 * it; Opsroom's median, pooled and worst p99 from due (and the medians of its own p99 and share within 100 ms, from
 * due to broadcast); the missed and out-of-order minutes over all of its runs; and the generators' median CPU per
 * message in each kind of run. The pooled ratio became the run's figure after twelve runs checked against a
 * hypothesis written down before them.
 */
export function reportLimit(rows: Awaited<ReturnType<typeof probeLimit>>): string {
  const lines: string[] = [];
  for (const pairs of rows) {
    lines.push(...pairs.map(reportPair));
    if (pairs.length < 2) continue;
    // Each figure's median over the pairs, for Opsroom's runs and for the bare server's.
    const med = (f: (x: RunResult) => number) => ({
      o: median(pairs.map((p) => f(p.opsroom))),
      b: median(pairs.map((p) => f(p.baseline))),
    });
    const { o, b } = med((x) => x.server.usPerMessage);
    const pooled = {
      o: pooledUsPerMessage(pairs.map((p) => p.opsroom)),
      b: pooledUsPerMessage(pairs.map((p) => p.baseline)),
    };
    const p99 = med((x) => x.latencyMs.p99);
    const rss = med((x) => x.server.rssMaxMB);
    const gen = med((x) => x.loadgen.usPerMessage);
    const worst = Math.max(...pairs.map((p) => p.opsroom.latencyMs.p99));
    const pooledP99 = pairs.reduce((h, p) => h.merge(p.opsroom.latency), new Histogram()).summary().p99;
    const delays = pairs.flatMap((p) => p.opsroom.probe.minuteDelay ?? []);
    const atServerMedian = delays.length
      ? `, at the server (medians): ${serverDelay({ p99Ms: median(delays.map((d) => d.p99Ms)), within100Ms: median(delays.map((d) => d.within100Ms)) })}`
      : '';
    const sum = (f: (p: (typeof pairs)[number]) => number) => pairs.reduce((a, p) => a + f(p), 0);
    lines.push(
      `${String(pairs[0].opsroom.students).padStart(6)} students, ${pairs.length} alternated pairs: CPU/snapshot pooled ${fmt(pooled.o, 1)} µs vs bare socket.io ${fmt(pooled.b, 1)} µs = ${fmt(pooled.o / pooled.b, 2)}× ` +
        `(medians ${fmt(o, 1)} vs ${fmt(b, 1)} µs = ${fmt(o / b, 2)}×; each pair: ${pairs.map((p) => fmt(p.ratios.cpuPerMessage, 2)).join(', ')}), p99 from due median ${p99.o} ms (pooled ${pooledP99}, worst ${worst}; bare ${p99.b})${atServerMedian}, ` +
        `missed ${sum((p) => p.opsroom.missed)}, out-of-order ${sum((p) => p.opsroom.outOfOrder)}, stalled ${sum((p) => p.opsroom.stalled)}, ` +
        `RSS median ${fmt(rss.o, 0)} MB (bare ${fmt(rss.b, 0)}), load generators (medians) ${fmt(gen.o, 1)} µs/message (bare ${fmt(gen.b, 1)})`,
    );
  }
  return lines.join('\n');
}
