// A round's export files — the three CSV parts and one ZIP of them — built in small pieces with the
// event loop free between them (other rooms' minutes stay on time), at most a few builds at once, and,
// for finished rounds, built once: kept in memory up to a byte budget and served from there.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { CSV_PARTS, type CsvPart } from '../../shared/protocol/types.ts';
import type { RoomRecord, RoundRecord } from '../db/records.ts';
import type { Store } from '../db/store.ts';
import { csvPieces, roundSource } from './csv.ts';
import { csvWords } from './csv-words.ts';
import { zip } from './zip.ts';

export type ExportFile = CsvPart | 'all';
export const EXPORT_FILES: readonly ExportFile[] = [...CSV_PARTS, 'all'];

export interface ExportLimits {
  /** Bytes of finished rounds' exports kept in memory. */
  cacheBytes: number;
  /** Exports being built at the same time; more wait their turn. */
  concurrentBuilds: number;
}
export const DEFAULT_EXPORT_LIMITS: ExportLimits = { cacheBytes: 64 << 20, concurrentBuilds: 2 };

export interface ExportBody {
  chunks: Buffer[];
  bytes: number;
}

export function exportName(room: RoomRecord, round: RoundRecord, file: ExportFile): string {
  const base = `opsroom-${room.code}-round${round.number}`;
  return file === 'all' ? `${base}.zip` : `${base}-${file}.csv`;
}

export class Exports {
  private cache = new Map<string, ExportBody>();
  private cachedBytes = 0;
  private inFlight = new Map<string, Promise<ExportBody>>();
  private running = 0;
  private queue: (() => void)[] = [];
  /** Builds started (not served from memory): what the tests and the probe count. */
  builds = 0;

  constructor(
    private readonly store: Store,
    private readonly limits: ExportLimits = DEFAULT_EXPORT_LIMITS,
  ) {}

  /** The file's bytes; built now unless a finished round's copy is in memory or being built. */
  get(room: RoomRecord, round: RoundRecord, file: ExportFile, locale: string): Promise<ExportBody> {
    const key = `${round.id}:${file}:${locale}`;
    const finished = round.state === 'finished';
    const hit = finished ? this.cache.get(key) : undefined;
    if (hit) {
      // Most recently used goes to the end.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return Promise.resolve(hit);
    }
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const build = this.build(room, round, file, locale).then((body) => {
      if (finished) this.remember(key, body);
      return body;
    });
    this.inFlight.set(key, build);
    const forget = () => this.inFlight.delete(key);
    build.then(forget, forget);
    return build;
  }

  private async build(room: RoomRecord, round: RoundRecord, file: ExportFile, locale: string): Promise<ExportBody> {
    if (file === 'all') {
      // The parts come through get(): those already in memory are not built again.
      const parts = await Promise.all(CSV_PARTS.map((p) => this.get(room, round, p, locale)));
      const data = await zip(
        CSV_PARTS.map((p, i) => ({ name: exportName(room, round, p), data: Buffer.concat(parts[i].chunks) })),
      );
      return { chunks: [data], bytes: data.length };
    }
    await this.turn();
    this.builds++;
    try {
      // A byte-order mark: spreadsheets then read the UTF-8 names (≥, σ, Devanagari) as UTF-8.
      const chunks: Buffer[] = [Buffer.from('\uFEFF', 'utf8')];
      let bytes = chunks[0].length;
      for await (const piece of csvPieces(file, await roundSource(this.store, round), csvWords(locale))) {
        const b = Buffer.from(piece, 'utf8');
        chunks.push(b);
        bytes += b.length;
        // One team at a time: the minutes of running rooms go out in between.
        await nextTurn();
      }
      return { chunks, bytes };
    } finally {
      this.release();
    }
  }

  /** Runs another build (a research package, a gradebook) in one of the same slots, so they queue with the CSVs. */
  async slot<T>(build: () => Promise<T>): Promise<T> {
    await this.turn();
    this.builds++;
    try {
      return await build();
    } finally {
      this.release();
    }
  }

  private release(): void {
    // The slot goes straight to the next waiting build, if any.
    const next = this.queue.shift();
    if (next) next();
    else this.running--;
  }

  /** Takes a build slot, waiting for one to be handed over when all are taken. */
  private async turn(): Promise<void> {
    if (this.running < this.limits.concurrentBuilds) this.running++;
    else await new Promise<void>((r) => this.queue.push(r));
  }

  private remember(key: string, body: ExportBody): void {
    if (body.bytes > this.limits.cacheBytes) return;
    this.cache.set(key, body);
    this.cachedBytes += body.bytes;
    for (const [k, b] of this.cache) {
      if (this.cachedBytes <= this.limits.cacheBytes) break;
      this.cache.delete(k);
      this.cachedBytes -= b.bytes;
    }
  }
}
