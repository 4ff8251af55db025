// The leaderboard: teams by score (goals met first — the score already counts them — then the
// margin), the same from live minutes, observer summaries or final scores. Pure.
import type { RoomMinute, RoomSummary, RoundScores, TeamView } from '$shared/protocol/types.ts';

export interface LeaderRow {
  teamId: number;
  team: { idx: number; name: string };
  score: number | null;
  met: number;
  total: number;
  rank: number;
}

type Entry = Omit<LeaderRow, 'rank' | 'team'> & { name: string };

function teamOf(teams: readonly TeamView[], teamId: number, name: string, i: number): { idx: number; name: string } {
  const t = teams.find((x) => x.id === teamId);
  return t ? { idx: t.idx, name: t.name } : { idx: i, name };
}

/** Sorted best first; teams without a score (free play) last; equal scores share a rank. */
export function rank(entries: readonly Entry[], teams: readonly TeamView[]): LeaderRow[] {
  const rows = entries.map((e, i) => ({ ...e, team: teamOf(teams, e.teamId, e.name, i), rank: 0 }));
  rows.sort((a, b) => (b.score ?? -Infinity) - (a.score ?? -Infinity) || b.met - a.met || a.team.idx - b.team.idx);
  rows.forEach((r, i) => {
    const prev = rows[i - 1];
    r.rank = prev && prev.score === r.score && prev.met === r.met ? prev.rank : i + 1;
  });
  return rows;
}

export function leaderboardFromScores(scores: RoundScores, teams: readonly TeamView[]): LeaderRow[] {
  return rank(
    scores.teams.map((t) => ({ teamId: t.teamId, name: t.name, score: t.score, met: t.goals.filter((g) => g.met).length, total: t.goals.length })),
    teams,
  );
}

export function leaderboardFromMinute(rm: RoomMinute, teams: readonly TeamView[]): LeaderRow[] {
  return rank(
    rm.teams.map((t) => ({ teamId: t.teamId, name: '', score: t.score, met: t.progress.filter((g) => g.met).length, total: t.progress.length })),
    teams,
  );
}

export function leaderboardFromSummary(s: RoomSummary, teams: readonly TeamView[]): LeaderRow[] {
  return rank(
    s.teams.map((t) => ({ teamId: t.teamId, name: t.name, score: t.score, met: t.progress.filter((g) => g.met).length, total: t.progress.length })),
    teams,
  );
}
