// The bots of `npm run bots` (entry point: bots.ts): real socket.io students who play their roles with the role policies (shared/policies), over the
// wire, against any Opsroom process (one process, or any process of a cluster): for a demo, a rehearsal on the real
// server, or a load test that behaves like a class. Each bot joins by the room code as a student does, reads its
// team's minutes as its desk receives them, and sends its changes as a student's page does.
import { parseArgs } from 'node:util';
import { io, type Socket } from 'socket.io-client';
import { playSeat, type SeatMemory } from '../../shared/classroom/autopilot.ts';
import { PolicyError, SKILLS, type Skill } from '../../shared/policies/index.ts';
import type { ClientToServer, ServerToClient } from '../../shared/protocol/events.ts';
import type { RoomView, RoundScores, StudentJoined, TeamMinute } from '../../shared/protocol/types.ts';
import { getMeta } from '../../shared/sim/meta.ts';
import type { Snapshot } from '../../shared/sim/types.ts';

export const USAGE = `usage: npm run bots -- --url URL --code CODE --students N [--skill careful|late|careless]
                     [--delay S] [--name PREFIX] [--seed N]
  --url URL       the server, as students open it (http://192.168.1.20:3000)
  --code CODE     the room code
  --students N    how many bots join (1–120), each a student of its own
  --skill         how they play: careful (default), late, careless
  --delay S       seconds a bot waits after each minute before it sends its changes (default 0)
  --name PREFIX   their names: PREFIX 1, PREFIX 2… (default "Bot")
  --seed N        the bots' own randomness (a careless bot's slips; default 1)
The bots play until the round they are in ends (its scores), then leave.`;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface BotsOptions {
  url: string;
  code: string;
  students: number;
  skill: Skill;
  /** Real seconds between a minute and the bot's changes. */
  delay: number;
  name: string;
  seed: number;
}

export function parseBotsArgs(argv: readonly string[]): BotsOptions {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        url: { type: 'string' },
        code: { type: 'string' },
        students: { type: 'string' },
        skill: { type: 'string' },
        delay: { type: 'string' },
        name: { type: 'string' },
        seed: { type: 'string' },
      },
      strict: true,
    }) as { values: Record<string, string | undefined> });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { url, code } = values;
  if (!url || !/^https?:\/\//.test(url)) throw new UsageError('--url is the server’s address, http://… or https://…');
  if (!code) throw new UsageError('--code is the room code');
  const whole = (v: string | undefined, name: string, min: number, max: number, dflt: number) => {
    if (v === undefined) return dflt;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max) throw new UsageError(`--${name} is a number from ${min} to ${max}`);
    return n;
  };
  const students = whole(values.students, 'students', 1, 120, Number.NaN);
  if (!Number.isInteger(students)) throw new UsageError('--students is a whole number from 1 to 120');
  const skill = (values.skill ?? 'careful') as Skill;
  if (!SKILLS.includes(skill)) throw new UsageError(`--skill is one of ${SKILLS.join(', ')}`);
  const name = values.name ?? 'Bot';
  if (name.length < 1 || name.length > 18) throw new UsageError('--name is 1 to 18 characters');
  return {
    url,
    code,
    students,
    skill,
    delay: whole(values.delay, 'delay', 0, 60, 0),
    name,
    seed: Math.trunc(whole(values.seed, 'seed', 0, 0xffffffff, 1)),
  };
}

type Client = Socket<ServerToClient, ClientToServer>;

/** What the bots did, for the line printed at the end. */
export interface BotsReport {
  joined: number;
  sent: number;
  /** Changes the room refused (the story took a control away meanwhile, the round ended…), by error code. */
  refused: Record<string, number>;
  scores: RoundScores | null;
}

/** A running set of bots: `done` resolves once every bot's round is over; `stop()` makes them leave now. */
export interface Bots {
  done: Promise<BotsReport>;
  stop(): void;
  /** Every bot has joined, read minute `minute` of its team and had its changes answered (tests step by this). */
  caughtUp(minute: number): boolean;
}

const ask = <E extends keyof ClientToServer>(s: Client, event: E, payload: Parameters<ClientToServer[E]>[0]) =>
  new Promise<Parameters<Parameters<ClientToServer[E]>[1]>[0]>((resolve) =>
    (s.emit as (e: string, p: unknown, ack: (r: unknown) => void) => void)(event, payload, (r) =>
      resolve(r as Parameters<Parameters<ClientToServer[E]>[1]>[0]),
    ),
  );

/** One bot: a student's connection, its seat's roles and the policy memory of each. */
class Bot {
  private playerId = 0;
  private token: string | undefined;
  private room: RoomView | null = null;
  private roundId: number | null = null;
  private memory: SeatMemory = {};
  private prev: Snapshot | undefined;
  /**
   * The bot's own changes not yet in force, by control: the value and the minute it applies at (Infinity while
   * unanswered). A minute's view still shows the old value, so a policy would ask again; over a slow link (a
   * cluster's forwarding) the second ask would land as a second change.
   */
  private readonly awaiting = new Map<string, { value: string; at: number }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  finished = false;
  /** The last minute read, and changes sent but not answered yet. */
  read = -1;
  inflight = 0;

  constructor(
    private readonly socket: Client,
    private readonly opts: BotsOptions,
    private readonly name: string,
    private readonly seed: number,
    private readonly report: BotsReport,
    private readonly over: () => void,
  ) {}

  async join(): Promise<void> {
    const res = await ask(this.socket, 'student:join', {
      code: this.opts.code,
      ...(this.token ? { token: this.token } : { name: this.name }),
    });
    if (!res.ok)
      throw new Error(`${this.name} could not join ${this.opts.code}: ${res.error.code} ${res.error.message}`);
    const joined = res as StudentJoined & { ok: true };
    if (!this.token) this.report.joined++;
    this.token = joined.token;
    this.playerId = joined.playerId;
    this.room = joined.room;
    this.roundId ??= joined.room.round.state === 'finished' ? null : joined.room.round.id;
    this.prev = joined.history?.snapshots.at(-1);
    if (joined.scores && joined.room.round.id === this.roundId) this.end(joined.scores);
  }

  listen(): void {
    const s = this.socket;
    s.on('room', (room) => {
      // The round the bots joined in the lobby starts, or the next one: they play the round they are in.
      this.roundId ??= room.round.state === 'finished' ? null : room.round.id;
      this.room = room;
    });
    s.on('minute', (m) => this.minute(m));
    s.on('scores', (sc) => {
      if (sc.roundId === this.roundId) this.end(sc);
    });
    s.on('connect', () => {
      // A reconnect (a server restarting, a cluster process going away): the same seat, by its token.
      if (this.token) this.join().catch(() => {});
    });
  }

  private minute(m: TeamMinute): void {
    const room = this.room;
    const me = room?.players.find((p) => p.id === this.playerId);
    if (!room || !me || this.finished || m.roundId !== room.round.id) return;
    if (m.snapshot.minute === 0) this.memory = {};
    const prev = this.prev?.minute === m.snapshot.minute - 1 ? this.prev : undefined;
    this.prev = m.snapshot;
    this.read = m.snapshot.minute;
    if (!me.roles.length || me.pilot) return;
    let changes: ReturnType<typeof playSeat>['changes'];
    try {
      const play = { skill: this.opts.skill, delay: 0, seed: this.seed };
      const out = playSeat(getMeta(room.round.simulator), me.roles, play, this.memory, m.snapshot, prev);
      this.memory = out.memory;
      changes = out.changes;
    } catch (e) {
      if (e instanceof PolicyError) return;
      throw e;
    }
    const now = m.snapshot.minute;
    changes = changes.filter((c) => {
      const mine = this.awaiting.get(c.key);
      return !(mine && mine.at > now && mine.value === JSON.stringify(c.value));
    });
    if (!changes.length) return;
    const send = () => {
      for (const c of changes) {
        this.inflight++;
        const value = JSON.stringify(c.value);
        this.awaiting.set(c.key, { value, at: Number.POSITIVE_INFINITY });
        void ask(this.socket, 'student:control', { key: c.key, value: c.value }).then((r) => {
          this.inflight--;
          const still = this.awaiting.get(c.key)?.value === value;
          if (r.ok) {
            this.report.sent++;
            if (still) this.awaiting.set(c.key, { value, at: r.change.minute });
          } else {
            this.report.refused[r.error.code] = (this.report.refused[r.error.code] ?? 0) + 1;
            if (still) this.awaiting.delete(c.key);
          }
        });
      }
    };
    if (this.opts.delay <= 0) {
      send();
      return;
    }
    const t = setTimeout(() => {
      this.timers.delete(t);
      send();
    }, this.opts.delay * 1000);
    this.timers.add(t);
  }

  private end(scores: RoundScores): void {
    if (this.finished) return;
    this.finished = true;
    this.report.scores = scores;
    this.over();
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.socket.disconnect();
  }
}

/** Joins the bots one after another (as a class arrives), then lets them play. */
export function runBots(opts: BotsOptions): Bots {
  const report: BotsReport = { joined: 0, sent: 0, refused: {}, scores: null };
  const bots: Bot[] = [];
  let stopped = false;
  let resolveDone: (r: BotsReport) => void = () => {};
  const done = new Promise<BotsReport>((resolve) => (resolveDone = resolve));
  const stop = () => {
    stopped = true;
    for (const b of bots) b.close();
    resolveDone(report);
  };
  const over = () => {
    if (bots.length === opts.students && bots.every((b) => b.finished)) stop();
  };
  const start = async () => {
    for (let i = 1; i <= opts.students && !stopped; i++) {
      const socket: Client = io(opts.url, { transports: ['websocket'], forceNew: true });
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', () => resolve());
        socket.once('connect_error', (e) => reject(new Error(`cannot reach ${opts.url}: ${e.message}`)));
      });
      const bot = new Bot(socket, opts, `${opts.name} ${i}`, (opts.seed * 31 + i) >>> 0, report, over);
      bots.push(bot);
      await bot.join();
      bot.listen();
    }
    over();
  };
  let failed: unknown = null;
  start().catch((e: unknown) => {
    failed = e;
    stop();
  });
  return {
    done: done.then((r) => {
      if (failed) throw failed;
      return r;
    }),
    stop,
    caughtUp: (minute) =>
      bots.length === opts.students && bots.every((b) => b.finished || (b.read >= minute && b.inflight === 0)),
  };
}
