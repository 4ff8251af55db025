// Reading a histogram of the server's own /metrics over a window: the difference of two scrapes, its share within a
// bound and its quantiles, interpolated within a bucket as Prometheus's histogram_quantile does.

/**
 * A histogram's cumulative buckets in one scrape (Prometheus text format): [upper bound, count], ascending. `label`
 * (e.g. `phase="store"`): only the series with that label, for a histogram with several.
 */
export function bucketsOf(text: string, name: string, label?: string): [number, number][] {
  const out: [number, number][] = [];
  const re = new RegExp(`^${name}_bucket\\{(?:[^}]*,)?le="([^"]+)"[^}]*\\} (\\S+)$`, 'gm');
  for (const m of text.matchAll(re))
    if (!label || m[0].includes(label)) out.push([m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2])]);
  if (out.length === 0) throw new Error(`no histogram ${name}${label ? `{${label}}` : ''} in the scrape`);
  return out.sort((a, b) => a[0] - b[0]);
}

/** What was observed between two scrapes of the same histogram. */
export function between(before: [number, number][], after: [number, number][]): [number, number][] {
  return after.map(([le, n], i) => [le, n - (before[i]?.[1] ?? 0)]);
}

/** Share of the observations at or below `bound` (one of the bucket bounds). */
export function shareWithin(buckets: [number, number][], bound: number): number {
  const total = buckets.at(-1)?.[1] ?? 0;
  const at = buckets.find(([le]) => le === bound);
  if (!at) throw new Error(`${bound} is not a bucket bound`);
  return total === 0 ? Number.NaN : at[1] / total;
}

/**
 * The q-quantile, linear within its bucket (from the bucket below's bound, or 0); in the +Inf bucket, the highest
 * finite bound (all that can be said).
 */
export function histogramQuantile(buckets: [number, number][], q: number): number {
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total === 0) return Number.NaN;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const [le, n] of buckets) {
    if (n >= rank) {
      if (le === Infinity) return lower;
      return lower + ((le - lower) * (rank - below)) / Math.max(1, n - below);
    }
    lower = le;
    below = n;
  }
  return lower;
}
