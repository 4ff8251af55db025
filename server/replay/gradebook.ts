// The gradebook export of a room: one grade per student from a rule the teacher picks (participation, score, rank or
// a weighted mix) over the room's finished rounds, in the layout the school's gradebook imports (Canvas, Moodle) or a
// plain one, with the school's ids from the roster mapping (docs/gradebook.md).
import type { RosterEntry } from '../../shared/protocol/types.ts';
import type { PlayerRecord, RoomRecord, RoundRecord } from '../db/records.ts';
import type { Store } from '../db/store.ts';
import { csvField } from './csv.ts';
import { readRound, seatFigures, teamRanks } from './research.ts';

export const GRADE_RULES = ['participation', 'score', 'rank', 'mix'] as const;
export type GradeRule = (typeof GRADE_RULES)[number];
export const GRADE_LAYOUTS = ['canvas', 'moodle', 'plain'] as const;
export type GradeLayout = (typeof GRADE_LAYOUTS)[number];

export interface GradeOptions {
  rule: GradeRule;
  layout: GradeLayout;
  /** Points of a full grade (Canvas's "Points Possible", Moodle's maximum grade). */
  points: number;
  /** The mix's weights (any non-negative numbers, not all 0; normalised). */
  weights: { participation: number; score: number; rank: number };
  /** The grade column's name in the school's gradebook. */
  assignment: string;
}

/** One student's figures over the rounds, each share in [0, 1]. */
export interface StudentGrade {
  playerId: number;
  name: string;
  schoolId: string;
  email: string;
  teams: string[];
  roundsPlayed: number;
  /** Minutes present and acting: seat minutes less those the autopilot or the teacher played. */
  actingMinutes: number;
  /** Every round's last minute, summed: what full participation is. */
  roundMinutes: number;
  participation: number;
  /** Mean over the rounds they played of their team's score against the round's best team (0 for none above 0). */
  score: number | null;
  /** Mean over the rounds they played of their team's place: 1 for first, 0 for last. */
  rank: number | null;
  /** The rule's share. */
  share: number;
  grade: number;
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
/** Points to two decimals, as gradebooks keep them. */
const points = (x: number) => Math.round(x * 100) / 100;

/** The rule's share of one student's figures; a share nobody could earn (no scored round) counts as 0. */
export function ruleShare(
  rule: GradeRule,
  f: Pick<StudentGrade, 'participation' | 'score' | 'rank'>,
  weights: GradeOptions['weights'],
): number {
  if (rule === 'participation') return f.participation;
  if (rule === 'score') return f.score ?? 0;
  if (rule === 'rank') return f.rank ?? 0;
  const total = weights.participation + weights.score + weights.rank;
  if (!(total > 0)) throw new RangeError('the mix needs a weight above 0');
  return (
    (weights.participation * f.participation + weights.score * (f.score ?? 0) + weights.rank * (f.rank ?? 0)) / total
  );
}

/** Every student of the room who played a finished round, with their grade by the rule. */
export async function roomGrades(
  store: Store,
  room: RoomRecord,
  rounds: readonly RoundRecord[],
  opts: Pick<GradeOptions, 'rule' | 'points' | 'weights'>,
): Promise<StudentGrade[]> {
  const [players, roster] = await Promise.all([store.playersOfRoom(room.id), store.rosterOfRoom(room.id)]);
  const ids = new Map(roster.map((r) => [r.playerId, r]));
  const acc = new Map<
    number,
    { player: PlayerRecord; teams: Set<string>; rounds: Set<number>; acting: number; scores: number[]; ranks: number[] }
  >();
  let roundMinutes = 0;
  for (const round of rounds) {
    const d = await readRound(store, round);
    roundMinutes += Math.max(0, round.minute);
    const results = new Map((await store.resultsOfRound(round.id)).map((r) => [r.teamId, r]));
    const ranked = teamRanks(d, results);
    const best = Math.max(0, ...ranked.map((r) => r.score ?? 0));
    const n = ranked.length;
    for (const m of d.members) {
      const player = players.find((p) => p.id === m.playerId);
      if (!player) continue;
      const a = acc.get(m.playerId) ?? {
        player,
        teams: new Set<string>(),
        rounds: new Set<number>(),
        acting: 0,
        scores: [],
        ranks: [],
      };
      acc.set(m.playerId, a);
      const seat = seatFigures(d, m);
      a.acting += Math.max(0, seat.seatMinutes - seat.autopilot - seat.teacher);
      const team = d.teams.find((t) => t.teamId === m.teamId);
      a.teams.add(team?.name || `Team ${(team?.idx ?? 0) + 1}`);
      // A student in two teams of one round (moved) is graded by each team once.
      a.rounds.add(round.id);
      const r = ranked.find((x) => x.teamId === m.teamId);
      if (r?.score != null) a.scores.push(best > 0 ? clamp01(r.score / best) : 0);
      if (r && r.score != null) a.ranks.push(n <= 1 ? 1 : (n - r.rank) / (n - 1));
    }
  }
  const out: StudentGrade[] = [];
  for (const a of acc.values()) {
    const participation = roundMinutes > 0 ? clamp01(a.acting / roundMinutes) : 0;
    const f = { participation, score: mean(a.scores), rank: mean(a.ranks) };
    const share = ruleShare(opts.rule, f, opts.weights);
    const id = ids.get(a.player.id);
    out.push({
      playerId: a.player.id,
      name: a.player.name,
      schoolId: id?.schoolId ?? '',
      email: id?.email ?? '',
      teams: [...a.teams],
      roundsPlayed: a.rounds.size,
      actingMinutes: a.acting,
      roundMinutes,
      ...f,
      share,
      grade: points(share * opts.points),
    });
  }
  return out.sort((x, y) => x.name.localeCompare(y.name) || x.playerId - y.playerId);
}

const line = (cells: (string | number | null)[]) => `${cells.map((c) => csvField(c)).join(',')}\r\n`;
const pct = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 10);

/**
 * The grades in a layout. Canvas: its gradebook's own columns (Student, ID, SIS User ID, SIS Login ID, Section), the
 * assignment, and the "Points Possible" row; Moodle: ID number and email to map from, the full name, the grade;
 * plain: every figure behind the grade.
 */
export function gradebookCsv(grades: readonly StudentGrade[], opts: GradeOptions): string {
  if (opts.layout === 'canvas') {
    let out = line(['Student', 'ID', 'SIS User ID', 'SIS Login ID', 'Section', opts.assignment]);
    out += line(['Points Possible', null, null, null, null, opts.points]);
    for (const g of grades) out += line([g.name, null, g.schoolId, g.email || null, null, g.grade]);
    return out;
  }
  if (opts.layout === 'moodle') {
    let out = line(['ID number', 'Email address', 'Full name', opts.assignment]);
    for (const g of grades) out += line([g.schoolId, g.email, g.name, g.grade]);
    return out;
  }
  let out = line([
    'name',
    'school_id',
    'email',
    'teams',
    'rounds_played',
    'acting_minutes',
    'round_minutes',
    'participation_pct',
    'score_pct',
    'rank_pct',
    'rule',
    'grade',
    'points_possible',
  ]);
  for (const g of grades)
    out += line([
      g.name,
      g.schoolId,
      g.email,
      g.teams.join('; '),
      g.roundsPlayed,
      g.actingMinutes,
      g.roundMinutes,
      pct(g.participation),
      pct(g.score),
      pct(g.rank),
      opts.rule,
      g.grade,
      opts.points,
    ]);
  return out;
}

/** The stored roster checked against the room: every entry a player of the room, ids trimmed, each id once. */
export function checkRoster(entries: readonly RosterEntry[], players: readonly PlayerRecord[]): RosterEntry[] {
  const ids = new Set(players.map((p) => p.id));
  const out = new Map<number, RosterEntry>();
  const taken = new Map<string, number>();
  for (const e of entries) {
    if (!ids.has(e.playerId)) throw new RangeError(`player ${e.playerId} is not a student of this room`);
    const schoolId = e.schoolId.trim();
    const email = e.email.trim();
    if (!schoolId && !email) continue;
    const other = taken.get(schoolId);
    if (schoolId && other !== undefined && other !== e.playerId)
      throw new RangeError(`the school id ${schoolId} is given to two students`);
    if (schoolId) taken.set(schoolId, e.playerId);
    out.set(e.playerId, { playerId: e.playerId, schoolId, email });
  }
  return [...out.values()];
}
