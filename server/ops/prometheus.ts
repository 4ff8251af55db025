// The Metrics of this process in the Prometheus text format (prom-client), one registry per app.
// Counts that already exist somewhere (rooms, sockets, feeds) are read when scraped; what happens
// in between (ticks, commits, messages, refusals) is counted as it happens. docs/operations.md
// says what each series tells an operator.
import { readdir } from 'node:fs/promises';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Metrics } from '../lib/metrics.ts';

const ROUND_STATES = ['lobby', 'running', 'paused', 'finished'] as const;
const SOCKET_KINDS = ['teacher', 'student', 'observer', 'unjoined', 'feed'] as const;

/** What the scrape-time gauges read. */
export interface ScrapeSources {
  /** The round state of every room in memory. */
  roomStates(): Iterable<string>;
  /** The role of every connected socket.io socket ('none' before it joins). */
  socketRoles(): Iterable<string | undefined>;
  /** Open plain WebSocket feeds. */
  feeds(): number;
}

const ms = (v: number) => v / 1000;

/**
 * prom-client's defaults that walk every handle or descriptor on the event loop at each scrape: at 10,000 open sockets
 * they took 15.5 of the 16.5 ms its defaults held the loop for a scrape of a quiet process, a pause the minutes due
 * meanwhile wait for (docs/operations.md). opsroom_sockets counts the sockets; process_open_fds is read off the event
 * loop (openFds).
 */
const WALK_EVERY_HANDLE = [
  'nodejs_active_handles',
  'nodejs_active_handles_total',
  'nodejs_active_resources',
  'nodejs_active_resources_total',
  'process_open_fds',
] as const;

/** prom-client's process_open_fds, with the descriptors listed on libuv's thread pool instead of the event loop. */
function openFds(registry: Registry): void {
  if (process.platform !== 'linux') return;
  new Gauge({
    name: 'process_open_fds',
    help: 'Number of open file descriptors.',
    registers: [registry],
    async collect() {
      try {
        // Less the one the listing itself had open.
        this.set((await readdir('/proc/self/fd')).length - 1);
      } catch {
        // Left at its last value.
      }
    },
  });
}

export class PromMetrics implements Metrics {
  readonly registry = new Registry();
  private sources: ScrapeSources | null = null;

  private readonly tickSeconds = new Histogram({
    name: 'opsroom_tick_duration_seconds',
    help: 'Time to compute, store and send one minute of a room',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  private readonly lagSeconds = new Histogram({
    name: 'opsroom_tick_lag_seconds',
    help: 'How late a planned minute started against its plan',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  /** Fine around 100 ms: the share of minutes out within it is the service level a class feels. */
  private readonly delaySeconds = new Histogram({
    name: 'opsroom_minute_delay_seconds',
    help: "From when a room's minute fell due to its broadcast: the lag, compute, store and send of a played minute",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  private readonly tickFailures = new Counter({
    name: 'opsroom_tick_failures_total',
    help: 'Minutes that could not be computed or stored (each pauses its round)',
    registers: [this.registry],
  });
  private readonly commitSeconds = new Histogram({
    name: 'opsroom_commit_duration_seconds',
    help: 'Time of one database transaction: the writes of every room asked for in one event-loop turn (group commit, one fsync)',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });
  private readonly minutes = new Counter({
    name: 'opsroom_minutes_committed_total',
    help: "Room minutes committed to the database (every team's snapshot of one minute)",
    registers: [this.registry],
  });
  private readonly messages = new Counter({
    name: 'opsroom_messages_sent_total',
    help: 'Messages sent to sockets, one per receiver, by event (feed:* for the plain WebSocket feed)',
    labelNames: ['event'],
    registers: [this.registry],
  });
  private readonly refusals = new Counter({
    name: 'opsroom_rate_limited_total',
    help: 'Requests refused by a rate limit, by limit',
    labelNames: ['limit'],
    registers: [this.registry],
  });

  constructor() {
    const self = this;
    new Gauge({
      name: 'opsroom_rooms',
      help: 'Rooms in memory, by the state of their current round',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const n: Record<string, number> = Object.fromEntries(ROUND_STATES.map((s) => [s, 0]));
        for (const s of self.sources?.roomStates() ?? []) n[s] = (n[s] ?? 0) + 1;
        for (const [state, v] of Object.entries(n)) this.set({ state }, v);
      },
    });
    new Gauge({
      name: 'opsroom_sockets',
      help: 'Connected sockets, by kind (unjoined: socket.io connected but not yet in a room; feed: plain WebSocket feed)',
      labelNames: ['kind'],
      registers: [this.registry],
      collect() {
        const n: Record<string, number> = Object.fromEntries(SOCKET_KINDS.map((k) => [k, 0]));
        for (const role of self.sources?.socketRoles() ?? []) {
          const kind = !role || role === 'none' ? 'unjoined' : role;
          n[kind] = (n[kind] ?? 0) + 1;
        }
        n.feed = self.sources?.feeds() ?? 0;
        for (const [kind, v] of Object.entries(n)) this.set({ kind }, v);
      },
    });
    // Event-loop delay, memory, CPU, descriptors, GC: prom-client's standard process metrics, less those that walk
    // every handle on the event loop when scraped.
    collectDefaultMetrics({ register: this.registry });
    for (const name of WALK_EVERY_HANDLE) this.registry.removeSingleMetric(name);
    openFds(this.registry);
  }

  /** Where the scrape-time gauges read from (the app's rooms, socket.io and feed). */
  watch(sources: ScrapeSources): void {
    this.sources = sources;
  }

  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  tick(durationMs: number): void {
    this.tickSeconds.observe(ms(durationMs));
  }
  tickLag(lateMs: number): void {
    this.lagSeconds.observe(ms(Math.max(0, lateMs)));
  }
  minuteDelay(delayMs: number): void {
    this.delaySeconds.observe(ms(Math.max(0, delayMs)));
  }
  tickFailed(): void {
    this.tickFailures.inc();
  }
  committed(durationMs: number, minutes: number): void {
    this.commitSeconds.observe(ms(durationMs));
    if (minutes > 0) this.minutes.inc(minutes);
  }
  sent(event: string, count: number): void {
    if (count > 0) this.messages.inc({ event }, count);
  }
  rateLimited(limit: string): void {
    this.refusals.inc({ limit });
  }
}
