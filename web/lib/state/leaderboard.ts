// The leaderboard: teams by score (goals met first — the score already counts them — then the
// margin), the same from live minutes, observer summaries or final scores; the order itself is
// shared/classroom/rank.ts (a round ended early never above a complete one). Pure.
import { rankRows } from '$shared/classroom/rank.ts';
import type { LedgerFigures, RoomMinute, RoomSummary, RoundScores, TeamView } from '$shared/protocol/types.ts';

export interface LeaderRow {
  teamId: number;
  team: Pick<TeamView, 'idx' | 'name' | 'whatIf'>;
  score: number | null;
  met: number;
  total: number;
  /** False when the round was ended early. */
  complete: boolean;
  rank: number;
  /** The team's ledger against doing nothing at the same minute, when known. */
  ledger?: LedgerFigures;
}

type Entry = Omit<LeaderRow, 'rank' | 'team' | 'complete'> & { name: string };
/** A team as the room view, the history or the replay gives it. */
type TeamLike = Pick<TeamView, 'id' | 'idx' | 'name'> & { whatIf?: TeamView['whatIf'] };

function teamOf(teams: readonly TeamLike[], teamId: number, name: string, i: number): LeaderRow['team'] {
  const t = teams.find((x) => x.id === teamId);
  return t ? { idx: t.idx, name: t.name, whatIf: t.whatIf ?? null } : { idx: i, name, whatIf: null };
}

/** Sorted best first; teams without a score (free play) last; equal scores share a rank. `complete`: false for a round ended early. */
export function rank(entries: readonly Entry[], teams: readonly TeamLike[], complete = true): LeaderRow[] {
  const rows = entries.map((e, i) => {
    const team = teamOf(teams, e.teamId, e.name, i);
    return { ...e, team, complete, idx: team.idx };
  });
  return rankRows(rows).map(({ idx: _, ...r }) => r);
}

/** The recorded result; `ledgers` (by team id) adds each team's ledger at the last minute when the page has it. */
export function leaderboardFromScores(
  scores: RoundScores,
  teams: readonly TeamView[],
  ledgers?: ReadonlyMap<number, LedgerFigures>,
): LeaderRow[] {
  return rank(
    scores.teams.map((t) => ({
      teamId: t.teamId,
      name: t.name,
      score: t.score,
      met: t.goals.filter((g) => g.met).length,
      total: t.goals.length,
      ledger: ledgers?.get(t.teamId),
    })),
    teams,
    scores.endedEarlyAt === null,
  );
}

export function leaderboardFromMinute(rm: RoomMinute, teams: readonly TeamView[]): LeaderRow[] {
  return rank(
    rm.teams.map((t) => ({
      teamId: t.teamId,
      name: '',
      score: t.score,
      met: t.progress.filter((g) => g.met).length,
      total: t.progress.length,
      ledger: t.ledger,
    })),
    teams,
  );
}

export function leaderboardFromSummary(s: RoomSummary, teams: readonly TeamView[]): LeaderRow[] {
  return rank(
    s.teams.map((t) => ({
      teamId: t.teamId,
      name: t.name,
      score: t.score,
      met: t.progress.filter((g) => g.met).length,
      total: t.progress.length,
      ledger: t.ledger,
    })),
    teams,
  );
}

/** Each team's ledger at a room minute or summary, by team id (for the rows of the recorded result). */
export function ledgersOf(
  teams: readonly { teamId: number; ledger?: LedgerFigures }[] | undefined,
): Map<number, LedgerFigures> {
  return new Map((teams ?? []).flatMap((t) => (t.ledger ? [[t.teamId, t.ledger] as const] : [])));
}
