// Replays, built once: a finished round's body is kept as it was sent; a round still going is kept for its latest
// minute — its teams' minutes (the costly part: every stored minute parsed and shaped) shared by every request of
// that minute, and its body for as long as nothing else in it changed (a role handed over, a team renamed, a fork).
// Bodies are gzipped on libuv's threads, not on the event loop.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { trimOldest } from '../lib/maps.ts';
import type { TeamMinutesView } from './replay.ts';

const gzipAsync = promisify(gzip);

export interface CachedBody {
  json: string;
  gzip: Buffer;
}

/** The teams' minutes of a round at one minute, being read or read. */
interface Minutes {
  minute: number;
  teams: Promise<Map<number, TeamMinutesView>>;
}

export class ReplayCache {
  private entries = new Map<number | string, CachedBody>();
  private minutes = new Map<number, Minutes>();
  /** Bodies being built: a request for one waits for it rather than building it again. */
  private building = new Map<number | string, Promise<CachedBody>>();

  /** What the kept bodies weigh, JSON and gzip together. */
  private bytes = 0;

  constructor(
    /** Bodies kept at most, and their weight (a 30-team, 240-minute round's is 4.6 MB). */
    private readonly capacity = 32,
    private readonly maxBytes = 64 << 20,
    /** Rounds still going whose teams' minutes are kept (each a few MB for 30 teams × 240 minutes). */
    private readonly going = 8,
  ) {}

  get(key: number | string): CachedBody | undefined {
    const e = this.entries.get(key);
    if (e) {
      // Most recently used goes to the end.
      this.entries.delete(key);
      this.entries.set(key, e);
    }
    return e;
  }

  /** The body as JSON and gzipped (off the event loop). */
  static async encode(value: unknown): Promise<CachedBody> {
    const json = JSON.stringify(value);
    return { json, gzip: await gzipAsync(json, { level: 6 }) };
  }

  /** A key that changes whenever `value` does: for a round still going, the body's parts other than its minutes. */
  static version(value: unknown): string {
    return createHash('sha1').update(JSON.stringify(value)).digest('base64url');
  }

  /** The body kept under `key`, else the one being built for it, else `make()`'s, kept once made. */
  body(key: number | string, make: () => Promise<CachedBody>): Promise<CachedBody> {
    const kept = this.get(key);
    if (kept) return Promise.resolve(kept);
    let p = this.building.get(key);
    if (!p) {
      p = make().then(
        (b) => {
          this.building.delete(key);
          this.set(key, b);
          return b;
        },
        (e: unknown) => {
          this.building.delete(key);
          throw e;
        },
      );
      this.building.set(key, p);
    }
    return p;
  }

  set(key: number | string, body: CachedBody): void {
    const had = this.entries.get(key);
    if (had) this.bytes -= weight(had);
    this.entries.set(key, body);
    this.bytes += weight(body);
    // The least recently used go first; the newest stays, whatever it weighs.
    for (const [k, b] of this.entries) {
      if (this.entries.size <= 1 || (this.entries.size <= this.capacity && this.bytes <= this.maxBytes)) break;
      this.entries.delete(k);
      this.bytes -= weight(b);
    }
  }

  /**
   * The teams' minutes of round `roundId` up to `minute`: read once for every request of that minute (requests
   * arriving while it is read wait for the same read). A later minute replaces it; a failed read is not kept.
   */
  minutesOf(
    roundId: number,
    minute: number,
    read: () => Promise<Map<number, TeamMinutesView>>,
  ): Promise<Map<number, TeamMinutesView>> {
    const known = this.minutes.get(roundId);
    if (known && known.minute === minute) {
      this.minutes.delete(roundId);
      this.minutes.set(roundId, known);
      return known.teams;
    }
    const teams = read();
    const entry = { minute, teams };
    this.minutes.set(roundId, entry);
    trimOldest(this.minutes, this.going);
    teams.catch(() => {
      if (this.minutes.get(roundId) === entry) this.minutes.delete(roundId);
    });
    return teams;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
    this.minutes.clear();
  }
}

const weight = (b: CachedBody) => b.json.length + b.gzip.length;
