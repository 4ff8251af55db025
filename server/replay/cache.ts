// Finished rounds never change: their replay is built and gzipped once, then served from memory.
import { gzipSync } from 'node:zlib';
import { trimOldest } from '../lib/maps.ts';

export interface CachedBody {
  json: string;
  gzip: Buffer;
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
