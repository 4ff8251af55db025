// Ranking teams, in one place for every screen (dashboard, projector, history, replay): a round ended
// early never ranks above a complete one, whatever its score; then the score, then goals met.

/** The minute a finished round was ended at, when that was before its last minute; null otherwise. */
export function endedEarlyAt(round: { state: string; minute: number; minutes: number }): number | null {
  return round.state === 'finished' && round.minute < round.minutes ? round.minute : null;
}

export interface Rankable {
  /** null: nothing to rank by (free play). */
  score: number | null;
  /** Goals met. */
  met: number;
  /** False when the team's round was ended early (`endedEarlyAt` not null). */
  complete: boolean;
  /** The team's position in its room: the last tie-break, so the order is stable. */
  idx: number;
}

/** Best first: complete rounds before ended-early ones, then score (none last), then goals met, then position. */
export function compareRank(a: Rankable, b: Rankable): number {
  return (
    Number(b.complete) - Number(a.complete) ||
    (b.score ?? -Infinity) - (a.score ?? -Infinity) ||
    b.met - a.met ||
    a.idx - b.idx
  );
}

/** The rows sorted best first, each with its rank; rows alike in all but position share a rank. */
export function rankRows<T extends Rankable>(rows: readonly T[]): (T & { rank: number })[] {
  const out = [...rows].sort(compareRank).map((r) => ({ ...r, rank: 0 }));
  out.forEach((r, i) => {
    const prev = out[i - 1];
    r.rank = prev && prev.complete === r.complete && prev.score === r.score && prev.met === r.met ? prev.rank : i + 1;
  });
  return out;
}
