// Finished rounds never change: their replay is built and gzipped once, then served from memory.
import { gzipSync } from 'node:zlib';

export interface CachedBody {
  json: string;
  gzip: Buffer;
}

/** Drops a map's oldest entries (insertion order) until it holds at most `capacity`. */
export function trimOldest<K, V>(map: Map<K, V>, capacity: number): void {
  for (const key of map.keys()) {
    if (map.size <= capacity) return;
    map.delete(key);
  }
}

export class ReplayCache {
  private entries = new Map<number | string, CachedBody>();
  constructor(private readonly capacity = 32) {}

  get(roundId: number | string): CachedBody | undefined {
    const e = this.entries.get(roundId);
    if (e) {
      // Most recently used goes to the end.
      this.entries.delete(roundId);
      this.entries.set(roundId, e);
    }
    return e;
  }

  static encode(value: unknown): CachedBody {
    const json = JSON.stringify(value);
    return { json, gzip: gzipSync(json, { level: 6 }) };
  }

  set(roundId: number | string, body: CachedBody): void {
    this.entries.set(roundId, body);
    trimOldest(this.entries, this.capacity);
  }

  clear(): void {
    this.entries.clear();
  }
}
