// What people are sent, computed from a room's state: the room view, a team's minute and history,
// the teacher's and observers' minute, the scores. Pure. The minutes also come as JSON text made from
// each snapshot's text, serialised once: the text that is stored is the one that is broadcast.
import { endedEarlyAt } from '../../shared/classroom/rank.ts';
import type {
  LedgerFigures,
  RoleChange,
  RoomMinute,
  RoomSummary,
  RoomView,
  RoundScores,
  TeacherMessage,
  TeamHistory,
  TeamMinute,
  TeamSummary,
} from '../../shared/protocol/types.ts';
import type { GoalResult, Snapshot } from '../../shared/sim/types.ts';
import { activePlayers, activeTeams } from './roster.ts';
import { headlineKeys } from './round.ts';
import type { RoomState, RoundRun, TeamRun } from './state.ts';

/**
 * Who reads a room view: the teacher, or anyone else (students, observers, the feed). Only the
 * teacher knows the seed before the round ends: with it, the minutes to come could be computed.
 */
export type Audience = 'teacher' | 'public';

export function roomView(s: RoomState, connected: (playerId: number) => boolean, audience: Audience): RoomView {
  const { id, number, state, simulator, scenario, seed, minutes, tempo, minute, forkOf } = s.round;
  const secret = audience !== 'teacher';
  return {
    code: s.code,
    config: secret ? { ...s.config, seed: null } : s.config,
    round: {
      id,
      number,
      state,
      simulator,
      scenario,
      seed: secret && state !== 'finished' ? null : seed,
      minutes,
      tempo,
      minute,
      forkOf,
      endedEarlyAt: endedEarlyAt(s.round),
    },
    teams: activeTeams(s, s.config.teamCount).map((t) => ({ id: t.id, idx: t.idx, name: t.name, whatIf: t.whatIf })),
    players: activePlayers(s)
      .sort((a, b) => a.id - b.id)
      .map((p) => ({ id: p.id, name: p.name, teamId: p.teamId, roles: [...p.roles], connected: connected(p.id) })),
    locked: s.locked,
    replayShared: s.replayShared,
  };
}

/** The round's role changes, of one team or of all (null). */
export function roleChangesOf(r: RoundRun, teamId: number | null): RoleChange[] {
  return [...r.roleChanges].filter((c) => teamId === null || c.teamId === teamId);
}

/** The messages a desk shows after a reload, until the round ends: to its team or to all (`null`: no team); `'all'`: every one (the teacher). */
export function messagesFor(r: RoundRun, teamId: number | null | 'all'): TeacherMessage[] {
  if (r.state === 'finished') return [];
  return [...r.messages].filter((m) => teamId === 'all' || m.teamId === null || m.teamId === teamId);
}

export function teamMinute(t: TeamRun): Omit<TeamMinute, 'roundId' | 'sentAt'> {
  // The team's own list (never changed once made): the minute's text is made once for it (teamFieldsJson).
  return {
    teamId: t.teamId,
    snapshot: t.snapshot,
    progress: t.progress as GoalResult[],
    score: t.score,
    ledger: t.ledger,
  };
}

/** A team's history: `snapshots`, its minutes `0…` its latest, as stored (Room.historyOf reads them). */
export function teamHistory(r: RoundRun, t: TeamRun, snapshots: Snapshot[]): TeamHistory {
  return {
    ...{ roundId: r.id, teamId: t.teamId, snapshots, changes: t.changes.toArray() },
    ...{ roleChanges: roleChangesOf(r, t.teamId), progress: [...t.progress], score: t.score, ledger: t.ledger },
    baseline: r.baseline?.series ?? { total: [], calm: [] },
  };
}

function teamSummary(round: RoundRun, t: TeamRun): TeamSummary {
  const s = t.snapshot;
  const headline: Record<string, number> = {};
  for (const i of round.model.indicators) if (i.headline) headline[i.key] = s.indicators[i.key];
  const na = s.na?.filter((key) => key in headline);
  return {
    teamId: t.teamId,
    name: t.name,
    minute: s.minute,
    headline,
    ...(na?.length ? { na } : {}),
    status: s.status,
    progress: t.progress.map((g) => ({ id: g.id, value: g.value, met: g.met })),
    score: t.score,
    ledger: t.ledger,
  };
}

/** Headline series of every team so far (the teacher's small trends): teamId → indicator → values by minute. */
export function headlineTrends(round: RoundRun): Record<number, Record<string, number[]>> {
  const out: Record<number, Record<string, number[]>> = {};
  const keys = headlineKeys(round.model);
  for (const t of round.teams.values()) {
    const series: Record<string, number[]> = {};
    for (const [k, key] of keys.entries()) {
      const values: number[] = [];
      for (let at = k; at < t.headlines.length; at += keys.length) values.push(t.headlines.at(at) as number);
      series[key] = values;
    }
    out[t.teamId] = series;
  }
  return out;
}

/**
 * Texts of recent minutes: a minute's text is made once for its write and read again by its broadcasts moments
 * later. Two generations of at most RECENT entries: at 10,000 students (2,500 team-minutes a second) a text is kept
 * for 512–1,024 more, 0.2–0.4 s, which covers its tick, its transaction and its broadcasts, also after a
 * collector's pause (the minutes due in a pause make their texts after it). Older texts are let go and made again
 * should one be asked for. Every text still held is copied by the next scavenge: 2,048 a generation kept ~3 MB
 * more alive at each (docs/performance-log.md, "The tenth stretch" and "The eighteenth stretch").
 */
const RECENT = 512;

class RecentTexts<K, V> {
  private texts = new Map<K, V>();
  private older = new Map<K, V>();

  get(key: K): V | undefined {
    return this.texts.get(key) ?? this.older.get(key);
  }

  set(key: K, value: V): void {
    if (this.texts.size >= RECENT) {
      this.older = this.texts;
      this.texts = new Map();
    }
    this.texts.set(key, value);
  }
}

const snapshotTexts = new RecentTexts<Snapshot, string>();

/** A snapshot's JSON (snapshots are never changed once made), made once while it is recent. */
export function snapshotJson(s: Snapshot): string {
  let text = snapshotTexts.get(s);
  if (text === undefined) {
    text = JSON.stringify(s);
    snapshotTexts.set(s, text);
  }
  return text;
}

// The encoders below write every field of their type: adding one to the type without writing it fails here.
type Covers<T, K extends keyof T> = [Exclude<keyof T, K>] extends [never] ? true : false;
const teamFields: Covers<RoomMinute['teams'][number], 'teamId' | 'snapshot' | 'progress' | 'score' | 'ledger'> = true;
const minuteFields: Covers<TeamMinute, 'roundId' | 'sentAt' | keyof RoomMinute['teams'][number]> = true;
const roomFields: Covers<RoomMinute, 'roundId' | 'minute' | 'sentAt' | 'teams'> = true;
void [teamFields, minuteFields, roomFields];

const json = JSON.stringify;

/**
 * The text of a team-minute's goals, score and ledger, made once while recent: the team's channel and the teacher's
 * minute both carry it. Keyed by the progress list (a new one every minute), checked against the score and ledger.
 */
const resultTexts = new RecentTexts<
  readonly GoalResult[],
  { score: number | null; ledger: LedgerFigures; text: string }
>();
function resultsJson(t: RoomMinute['teams'][number]): string {
  const known = resultTexts.get(t.progress);
  if (known && known.score === t.score && known.ledger === t.ledger) return known.text;
  // One stringify, sliced: two strings alive with the team's minute instead of a concatenation's pieces, which a
  // scavenge copies one by one (docs/performance-log.md, "The thirteenth stretch").
  const text = json({ progress: t.progress, score: t.score, ledger: t.ledger }).slice(1, -1);
  resultTexts.set(t.progress, { score: t.score, ledger: t.ledger, text });
  return text;
}

/**
 * A team's fields as pieces of JSON text, the snapshot's and the results' texts among them as they are kept. A
 * minute's text goes out as these pieces, each written into the frame as it is: a concatenation of them would be
 * copied whole (flattened) by the first write, ~2.2 KB a team-minute and ~22 KB a teacher's minute of new strings
 * that only hasten the next scavenge (docs/performance-log.md, "The twenty-fourth stretch").
 */
function pushTeamFields(out: string[], t: RoomMinute['teams'][number]): void {
  out.push(`"teamId":${json(t.teamId)},"snapshot":`, snapshotJson(t.snapshot), ',', resultsJson(t));
}

/** `JSON.stringify(m)` in pieces (their concatenation), with the snapshot's text made once. */
export function teamMinuteParts(m: TeamMinute): string[] {
  const out = [`{"roundId":${json(m.roundId)},"sentAt":${json(m.sentAt)},`];
  pushTeamFields(out, m);
  out.push('}');
  return out;
}

/** `JSON.stringify(m)` in pieces, with every snapshot's text made once. */
export function roomMinuteParts(m: RoomMinute): string[] {
  const out = [`{"roundId":${json(m.roundId)},"minute":${json(m.minute)},"sentAt":${json(m.sentAt)},"teams":[`];
  m.teams.forEach((t, i) => {
    out.push(i === 0 ? '{' : ',{');
    pushTeamFields(out, t);
    out.push('}');
  });
  out.push(']}');
  return out;
}

export function roomMinute(r: RoundRun, sentAt: number): RoomMinute {
  return { roundId: r.id, minute: r.minute, sentAt, teams: [...r.teams.values()].map(teamMinute) };
}

export function roomSummary(r: RoundRun, sentAt: number): RoomSummary {
  return {
    roundId: r.id,
    state: r.state,
    minute: r.minute,
    sentAt,
    teams: [...r.teams.values()].map((t) => teamSummary(r, t)),
  };
}

/** Every team's goals and score (the final verdict once the round is finished). */
export function roundScores(r: RoundRun): RoundScores {
  const teams = [...r.teams.values()].map((t) => ({
    teamId: t.teamId,
    name: t.name,
    goals: [...t.progress],
    score: t.score,
  }));
  return { roundId: r.id, endedEarlyAt: endedEarlyAt(r), teams };
}
