// Bounded maps: caches that keep their most recent entries.

/** Drops a map's oldest entries (insertion order) until it holds at most `capacity`. */
export function trimOldest<K, V>(map: Map<K, V>, capacity: number): void {
  for (const key of map.keys()) {
    if (map.size <= capacity) return;
    map.delete(key);
  }
}
