// Every team's headline series for the teacher's small trends. Pure.
import type { RoomMinute } from '$shared/protocol/types.ts';

export type Trends = Record<number, Record<string, number[]>>;

/** Appends a minute's headline values to the trends (a new object: the state is raw). */
export function extendTrends(trends: Trends, rm: RoomMinute, headline: readonly string[]): Trends {
  const out: Trends = { ...trends };
  for (const t of rm.teams) {
    const cur = out[t.teamId] ?? {};
    const next: Record<string, number[]> = {};
    for (const key of headline) {
      const series = (cur[key] ?? []).slice(0, t.snapshot.minute);
      series[t.snapshot.minute] = t.snapshot.indicators[key];
      next[key] = series;
    }
    out[t.teamId] = next;
  }
  return out;
}
