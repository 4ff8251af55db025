// The class's data for researchers: a Frictionless Data Package (a ZIP with `datapackage.json`, the codebook: every
// file and column with its type, unit and meaning) of one round or of every round of a room, in long format, in
// base units, with the scenario and the seed, so that every minute can be re-simulated from the package alone.
// Pseudonymous unless the teacher asks for names: each student is a stable per-room pseudonym (P01, P02, … in the
// order they joined the room: not derived from the name), and every name in free text (team names, messages) is
// replaced by its pseudonym. Built a team at a time with the event loop free in between (docs/research-data.md).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ledgerAt } from '../../shared/classroom/ledger.ts';
import { endedEarlyAt, rankRows } from '../../shared/classroom/rank.ts';
import { pilotMinutes } from '../../shared/classroom/seats.ts';
import type { ChangeRecord, RoleChange, SeatTurn, TeacherMessage } from '../../shared/protocol/types.ts';
import { scenarioDef } from '../../shared/sim/engine.ts';
import { scoreRuleOf } from '../../shared/sim/score.ts';
import type { ControlValue, DisplayDef, SimModel, Snapshot } from '../../shared/sim/types.ts';
import type {
  PlayerRecord,
  RoomRecord,
  RoundMemberRecord,
  RoundRecord,
  RoundTeamRecord,
  TeamResultRecord,
} from '../db/records.ts';
import type { Store } from '../db/store.ts';
import { roundBaseline } from '../rooms/baseline.ts';
import { contentHash, roundPlay } from '../rooms/scenario-content.ts';
import { csvField } from './csv.ts';
import { csvWords } from './csv-words.ts';
import { zip } from './zip.ts';

/** Table Schema field types used here (https://specs.frictionlessdata.io/table-schema/#types-and-formats). */
export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'datetime';

export interface Field {
  name: string;
  type: FieldType;
  description: string;
  /** The unit of a number, in words or a symbol ('s', 'share (0–1)', 'u'); a Table Schema extension property. */
  unit?: string;
  constraints?: { required?: boolean; enum?: string[]; minimum?: number };
}

export interface Resource {
  name: string;
  path: string;
  title: string;
  description: string;
  fields: Field[];
  primaryKey?: string[];
}

type Cell = string | number | boolean | null;

/** One table as it is written: its resource, then CSV text (RFC 4180, comma, point, CRLF). */
class Table {
  readonly chunks: string[] = [];
  constructor(readonly resource: Resource) {
    this.chunks.push(this.line(resource.fields.map((f) => f.name)));
  }
  row(cells: Cell[]): void {
    if (cells.length !== this.resource.fields.length)
      throw new Error(`${this.resource.name}: ${cells.length} cells for ${this.resource.fields.length} fields`);
    this.chunks.push(this.line(cells));
  }
  private line(cells: Cell[]): string {
    return `${cells.map(researchField).join(',')}\r\n`;
  }
}

/**
 * A value as the package writes it: numbers as the shortest text that reads back to the same double (so a
 * re-simulation can be compared exactly), NaN and ±Infinity as Table Schema spells them; text as `csvField` does.
 */
export function researchField(v: Cell): string {
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (!Number.isFinite(v)) return v > 0 ? 'INF' : '-INF';
    return String(v);
  }
  return csvField(v);
}

/** An indicator's base unit, from how it is shown (value × scale, then the unit). */
export function baseUnit(d: DisplayDef): string {
  if (d.scale === 1) return d.unit || 'count';
  if ((d.unit === '%' && d.scale === 100) || (d.unit === '‰' && d.scale === 1000)) return 'share (0–1)';
  if (d.unit === 'k tx' && d.scale === 1e-3) return 'tx';
  return `${d.unit} ÷ ${d.scale}`;
}

const iso = (ms: number | null | undefined): string | null => (ms == null ? null : new Date(ms).toISOString());
/** A control's value as text: numbers in base units, true/false, an option's key. */
const valueText = (v: ControlValue | undefined): string | null => (v === undefined ? null : String(v));

const f = (name: string, type: FieldType, description: string, extra: Partial<Field> = {}): Field => ({
  name,
  type,
  description,
  ...extra,
});
const ROUND = f('round_id', 'integer', "The round's id in this Opsroom (rounds.csv).", {
  constraints: { required: true },
});
const TEAM = f('team_id', 'integer', "The team's id in this Opsroom (teams.csv).", { constraints: { required: true } });
const PARTICIPANT = f(
  'participant',
  'string',
  "The student's pseudonym, stable within the room (P01, P02, … in the order they joined the room); not derived from the name.",
);
const NAME = f('name', 'string', 'The name the student gave (named exports only).');

/** The rounds of the package: one line per round, with what re-simulates it. */
const ROUNDS: Resource = {
  name: 'rounds',
  path: 'rounds.csv',
  title: 'Rounds',
  description:
    'One row per round: the simulator, the scenario as played (scenarios/<simulator>.<scenario>.json), the seed and the settings that re-simulate it.',
  primaryKey: ['round_id'],
  fields: [
    ROUND,
    f('room', 'string', "The room's code."),
    f('number', 'integer', "The round's number in its room (1, 2, …)."),
    f('simulator', 'string', 'The simulator.', { constraints: { enum: ['payment-switch', 'web-service'] } }),
    f('scenario', 'string', "The scenario's id; its definition is in scenarios/<simulator>.<scenario>.json."),
    f('scenario_path', 'string', "The path of the scenario's definition inside this package."),
    f('seed', 'integer', 'The seed every shock and all noise are drawn from (0–4294967295).', {
      constraints: { minimum: 0 },
    }),
    f('noise', 'boolean', 'Whether the round was played with noise (true unless a test round).'),
    f('minutes', 'integer', "The round's length in simulated minutes, as set.", { unit: 'min' }),
    f('last_minute', 'integer', 'The last minute played and stored (minutes unless ended early).', { unit: 'min' }),
    f('tempo', 'integer', 'Real seconds per simulated minute.', { unit: 's/min' }),
    f('state', 'string', "The round's state when exported.", {
      constraints: { enum: ['lobby', 'running', 'paused', 'finished'] },
    }),
    f('started_at', 'datetime', 'When the round started (UTC).'),
    f('finished_at', 'datetime', 'When the round finished (UTC); empty while it runs.'),
    f('fork_of_round_id', 'integer', 'A what-if round: the round it was forked from; empty otherwise.'),
    f('fork_of_team_id', 'integer', 'A what-if round: the team it was forked from.'),
    f('fork_minute', 'integer', 'A what-if round: the minute it was forked at.', { unit: 'min' }),
    f('score_rule', 'integer', 'The score rule its teams are scored by (docs/scoring.md).'),
  ],
};

const TEAMS: Resource = {
  name: 'teams',
  path: 'teams.csv',
  title: 'Teams',
  description: "One row per team per round: its name, result and rank among the round's teams.",
  primaryKey: ['round_id', 'team_id'],
  fields: [
    ROUND,
    TEAM,
    f('team', 'string', "The team's name as the screens showed it (students' names in it are pseudonymised)."),
    f('score', 'number', "The team's score (docs/scoring.md); empty in free play or before the round is over."),
    f('goals_met', 'integer', 'Goals met at the end.'),
    f('rank', 'integer', "The team's rank among the round's teams (1 = best; ties share a rank)."),
    f('ended_at_minute', 'integer', 'The minute the round was ended at, when ended early; empty otherwise.', {
      unit: 'min',
    }),
  ],
};

const PARTICIPANTS: Resource = {
  name: 'participants',
  path: 'participants.csv',
  title: 'Participants',
  description:
    'One row per student per round per team they played in: their roles over time, when they joined and left, and the minutes others played their seat.',
  primaryKey: ['round_id', 'team_id', 'participant'],
  fields: [
    ROUND,
    TEAM,
    PARTICIPANT,
    NAME,
    f(
      'roles',
      'string',
      'The roles they held over the round, as "role from–to" separated by "; " (minutes; "to" is exclusive; an empty list: an analyst, who sees every figure and owns no control).',
    ),
    f('joined_at', 'datetime', 'When they joined the room (UTC).'),
    f(
      'joined_minute',
      'integer',
      'The first minute their changes could apply at in this round (0: before the start).',
      {
        unit: 'min',
      },
    ),
    f('left_minute', 'integer', 'The minute they left the team (moved or removed); empty if they stayed to the end.', {
      unit: 'min',
    }),
    f('seat_minutes', 'integer', 'Minutes they held a seat in the team (from joined to left or the last minute).', {
      unit: 'min',
    }),
    f(
      'autopilot_minutes',
      'integer',
      'Minutes the autopilot played their seat (they were away, stepped out, or the teacher handed it over).',
      {
        unit: 'min',
      },
    ),
    f('teacher_minutes', 'integer', 'Minutes the teacher played their seat.', { unit: 'min' }),
    f('own_changes', 'integer', 'Control changes they made themselves.'),
    f('autopilot_changes', 'integer', 'Control changes the autopilot made in their seat.'),
  ],
};

const EVENTS: Resource = {
  name: 'events',
  path: 'events.csv',
  title: 'Control changes (long format)',
  description:
    'One row per control change, in the order the room took them: who made it, the value before and after, and the decision latency since the last shock the desk showed.',
  primaryKey: ['round_id', 'seq'],
  fields: [
    ROUND,
    f(
      'seq',
      'integer',
      "Its place among the round's changes; a minute's changes apply in this order (the last one of a control wins).",
    ),
    TEAM,
    f('minute', 'integer', 'The minute it applies at (from the start of that minute).', { unit: 'min' }),
    f(
      'shown_minute',
      'integer',
      'The minute the desk showed when it was made (minute − 1; empty for a change made before the start).',
      {
        unit: 'min',
      },
    ),
    f('received_at', 'datetime', 'When the server received it (UTC).'),
    f('actor_type', 'string', 'Who made it.', {
      constraints: { enum: ['student', 'teacher', 'autopilot', 'what-if'] },
    }),
    f('autopilot_skill', 'string', "The autopilot's policy, when the autopilot made it.", {
      constraints: { enum: ['careful', 'late', 'careless'] },
    }),
    f('autopilot_reason', 'string', 'Why the autopilot played the seat (dropped, teacher, self, bot).'),
    f(
      'participant',
      'string',
      "The pseudonym of the student whose seat made it (the teacher's and the autopilot's changes are made in a student's seat).",
    ),
    NAME,
    f('role', 'string', 'The role that owns the control.'),
    f('control', 'string', "The control's key (the codebook's controls are the columns of minutes.csv)."),
    f(
      'old_value',
      'string',
      'The value in force before it (after earlier changes of the same minute); empty for an action and before the start.',
    ),
    f('new_value', 'string', 'The value set: a number in base units, true/false, an option, or "press" for an action.'),
    f('unit', 'string', "The value's base unit, for a number."),
    f(
      'last_shock_minute',
      'integer',
      'The minute of the last shock (any event of the desk other than a control change) shown at or before shown_minute; empty if none.',
      {
        unit: 'min',
      },
    ),
    f('last_shock_kind', 'string', "That shock's kind (e.g. sale-start, issuer-slow, crawler-start)."),
    f('latency_minutes', 'integer', 'Decision latency in simulated minutes: shown_minute − last_shock_minute.', {
      unit: 'min',
    }),
    f(
      'latency_seconds',
      'number',
      "Decision latency in real seconds: received_at − when the shock's minute was sent; empty when that time is not stored.",
      {
        unit: 's',
      },
    ),
  ],
};

const GOALS: Resource = {
  name: 'goals',
  path: 'goals.csv',
  title: 'Goals',
  description:
    "One row per team per goal of the round's scenario: the target, the value reached and whether it was met.",
  primaryKey: ['round_id', 'team_id', 'goal_id'],
  fields: [
    ROUND,
    TEAM,
    f('goal_id', 'string', "The goal's id in the scenario."),
    f('indicator', 'string', 'The indicator it is measured on (a column of minutes.csv).'),
    f('aggregate', 'string', 'mean: the average over the minutes from `from`; final: the value at the last minute.', {
      constraints: { enum: ['mean', 'final'] },
    }),
    f('op', 'string', 'How the value is compared with the target.', { constraints: { enum: ['>=', '<='] } }),
    f('target', 'number', "The target, in the indicator's base unit."),
    f('value', 'number', "The value reached, in the indicator's base unit; empty before the round is over."),
    f('met', 'boolean', 'Whether the goal was met; empty before the round is over.'),
    f('unit', 'string', "The indicator's base unit."),
  ],
};

const MESSAGES: Resource = {
  name: 'messages',
  path: 'messages.csv',
  title: "The teacher's messages",
  description:
    "One row per message the teacher sent during a round, to one team or to all (students' names in the text are pseudonymised).",
  primaryKey: ['round_id', 'message_id'],
  fields: [
    ROUND,
    f('message_id', 'integer', "The message's id."),
    f('team_id', 'integer', 'The team it was sent to; empty: every team.'),
    f('sent_at', 'datetime', 'When it was sent (UTC).'),
    f('shown_minute', 'integer', 'The minute the desks showed when it was sent; empty when not known.', {
      unit: 'min',
    }),
    f('text', 'string', 'The text.'),
  ],
};

/** The first columns of minutes.csv and ledger.csv. */
const MINUTE_KEY = [
  ROUND,
  TEAM,
  f('minute', 'integer', 'The simulated minute (0: the opening screen).', { unit: 'min' }),
];

function minutesResource(model: SimModel): Resource {
  const w = csvWords('en');
  return {
    name: `minutes-${model.id}`,
    path: `minutes-${model.id}.csv`,
    title: `Minutes (${model.id})`,
    description: `One row per team per minute of every ${model.id} round: every indicator and every control in force, in base units.`,
    primaryKey: ['round_id', 'team_id', 'minute'],
    fields: [
      ...MINUTE_KEY,
      f('sent_at', 'datetime', 'When the minute was sent to the desks (UTC); empty where not stored.'),
      f('clock', 'integer', 'The time of day the desk showed, in minutes after midnight (simulators with a clock).', {
        unit: 'min',
      }),
      f(
        'events',
        'string',
        'The events the desk showed this minute (shocks and the model\'s own), their kinds separated by "; "; control changes left out (events.csv).',
      ),
      ...model.indicators.map((i) =>
        f(
          i.key,
          'number',
          `Indicator: ${w.indicator(model.id, i.key)}.${i.headline ? ' A headline figure.' : ''}${i.trend ? ` Cumulative (${i.trend}).` : ''}`,
          {
            unit: baseUnit(i.display),
          },
        ),
      ),
      ...model.controls
        .filter((c) => c.kind !== 'action')
        .map((c) =>
          f(
            `control_${c.key}`,
            c.kind === 'number' ? 'number' : c.kind === 'bool' ? 'boolean' : 'string',
            `Control in force: ${w.control(model.id, c.key)} (role ${c.role}).`,
            c.kind === 'number' ? { unit: c.unit } : c.kind === 'enum' ? { constraints: { enum: [...c.options] } } : {},
          ),
        ),
    ],
  };
}

function ledgerResource(model: SimModel): Resource {
  const w = csvWords('en');
  const cur = model.ledger.currency;
  return {
    name: `ledger-${model.id}`,
    path: `ledger-${model.id}.csv`,
    title: `Ledger (${model.id})`,
    description: `One row per team per minute of every ${model.id} round: the ledger's lines so far, its total, doing nothing's and a calm hour's totals at the same minute, and the saving (docs/scoring.md).`,
    primaryKey: ['round_id', 'team_id', 'minute'],
    fields: [
      ...MINUTE_KEY,
      ...model.ledger.items.map((k) =>
        f(k, 'number', `Ledger line: ${w.indicator(model.id, k)}, so far.`, { unit: cur }),
      ),
      f('total', 'number', 'The ledger total so far.', { unit: cur }),
      f('baseline_total', 'number', "Doing nothing's total at the same minute (same scenario and seed, no change).", {
        unit: cur,
      }),
      f('calm_total', 'number', "A calm hour's total at the same minute (free play, same seed).", { unit: cur }),
      f(
        'saving',
        'number',
        'The saving s = ln(L0 / L) / max(ln(L0 / Lc), ln 2), clamped to [−1, 1] (0 = doing nothing).',
      ),
    ],
  };
}

export interface ResearchOptions {
  /** Names as well as pseudonyms (the teacher asked for a named export). */
  named: boolean;
  /** This Opsroom's version, written into the descriptor (the model code a re-simulation needs). */
  version: string;
  /** The descriptor's `created` time. */
  now: number;
}

/** Replaces every student's name in a text by their pseudonym: longest names first, whole words, any case. */
export function pseudonymiser(names: ReadonlyMap<string, string>): (text: string) => string {
  const list = [...names].filter(([n]) => n.trim().length > 0).sort((a, b) => b[0].length - a[0].length);
  if (list.length === 0) return (t) => t;
  const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(
    `(?<![\\p{L}\\p{N}])(?:${list.map(([n]) => literal(n.trim())).join('|')})(?![\\p{L}\\p{N}])`,
    'giu',
  );
  const by = new Map(list.map(([n, p]) => [n.trim().toLocaleLowerCase(), p]));
  return (t) => t.replace(re, (m) => by.get(m.toLocaleLowerCase()) ?? m);
}

/** The room's pseudonyms: P01, P02, … by order of joining the room (player ids are drawn in that order). */
export function pseudonyms(players: readonly Pick<PlayerRecord, 'id'>[]): Map<number, string> {
  const sorted = [...players].sort((a, b) => a.id - b.id);
  const width = Math.max(2, String(sorted.length).length);
  return new Map(sorted.map((p, i) => [p.id, `P${String(i + 1).padStart(width, '0')}`]));
}

/** The roles a student held in a team over a round, from the role changes (and the members' roles when none moved). */
function roleSpans(
  changes: readonly RoleChange[],
  member: RoundMemberRecord,
  end: number,
): { role: string; from: number; to: number }[] {
  const open = new Map<string, number>();
  const out: { role: string; from: number; to: number }[] = [];
  const mine = changes.filter((c) => c.teamId === member.teamId);
  for (const c of mine) {
    if (c.from?.playerId === member.playerId && open.has(c.role)) {
      out.push({ role: c.role, from: open.get(c.role) ?? 0, to: Math.max(0, c.minute) });
      open.delete(c.role);
    }
    if (c.to?.playerId === member.playerId && !open.has(c.role)) open.set(c.role, Math.max(0, c.minute));
  }
  // Roles held without a recorded change (rounds stored before role changes were): the whole round.
  if (!mine.some((c) => c.to?.playerId === member.playerId || c.from?.playerId === member.playerId))
    for (const r of member.roles) open.set(r, 0);
  for (const [role, from] of open) out.push({ role, from, to: end });
  return out.sort((a, b) => a.from - b.from || a.role.localeCompare(b.role));
}

/** What a student did in one team in one round: their roles, when they came and went, who played their seat. */
export interface SeatFigures {
  spans: { role: string; from: number; to: number }[];
  /** The first minute their changes could apply at (0: before the start). */
  joined: number;
  /** The minute they were moved or removed, if they did not stay to the end. */
  left: number | null;
  /** Minutes they held the seat: from joined to left or the round's last minute. */
  seatMinutes: number;
  autopilot: number;
  teacher: number;
  ownChanges: number;
  autopilotChanges: number;
}

export function seatFigures(
  d: Pick<RoundData, 'round' | 'roleChanges' | 'seatTurns' | 'changes'>,
  m: RoundMemberRecord,
): SeatFigures {
  const end = Math.max(0, d.round.minute);
  const mine = d.roleChanges.filter((c) => c.teamId === m.teamId);
  const came = mine.filter((c) => c.to?.playerId === m.playerId).map((c) => Math.max(0, c.minute));
  const lastCame = came.length ? Math.max(...came) : 0;
  const left = mine
    .filter((c) => c.from?.playerId === m.playerId && (c.reason === 'remove' || c.reason === 'move'))
    .map((c) => Math.max(0, c.minute))
    .filter((x) => x >= lastCame);
  const joined = came.length ? Math.min(...came) : 0;
  const leftAt = left.length ? Math.min(end, Math.max(...left)) : null;
  const piloted = pilotMinutes(
    d.seatTurns.filter((s) => s.teamId === m.teamId),
    m.playerId,
    leftAt ?? end,
  );
  const made = d.changes.filter((c) => c.teamId === m.teamId && c.author.playerId === m.playerId);
  return {
    spans: roleSpans(d.roleChanges, m, end),
    joined,
    left: leftAt,
    seatMinutes: Math.max(0, (leftAt ?? end) - joined),
    autopilot: piloted.autopilot,
    teacher: piloted.teacher,
    ownChanges: made.filter((c) => c.actor.kind === 'student').length,
    autopilotChanges: made.filter((c) => c.actor.kind === 'autopilot').length,
  };
}

/** The round's teams ranked by their stored results, as every screen ranks them (`rankRows`). */
export function teamRanks(
  d: Pick<RoundData, 'round' | 'teams'>,
  results: ReadonlyMap<number, TeamResultRecord>,
): { teamId: number; score: number | null; rank: number }[] {
  const complete = endedEarlyAt(d.round) === null;
  return rankRows(
    d.teams.map((t) => {
      const res = results.get(t.teamId);
      return {
        teamId: t.teamId,
        score: res?.score ?? null,
        met: res?.goals.filter((g) => g.met).length ?? 0,
        complete,
        idx: t.idx,
      };
    }),
  );
}

/** Everything read for one round, all but the minutes (read a team at a time). */
export interface RoundData {
  round: RoundRecord;
  model: SimModel;
  teams: RoundTeamRecord[];
  changes: ChangeRecord[];
  members: RoundMemberRecord[];
  roleChanges: RoleChange[];
  seatTurns: SeatTurn[];
  messages: TeacherMessage[];
}

export async function readRound(store: Store, round: RoundRecord): Promise<RoundData> {
  const [teams, changes, members, roleChanges, seatTurns, messages, { model }] = await Promise.all([
    store.roundTeams(round.id),
    store.changesOfRound(round.id),
    store.roundMembers(round.id),
    store.roleChangesOfRound(round.id),
    store.seatTurnsOfRound(round.id),
    store.messagesOfRound(round.id),
    roundPlay(store, round),
  ]);
  return {
    round,
    model,
    teams,
    changes: changes.filter((c) => c.minute <= round.minute),
    members,
    roleChanges,
    seatTurns,
    messages,
  };
}

/** The files of the package, each as bytes, `datapackage.json` first. */
export async function researchPackage(
  store: Store,
  room: RoomRecord,
  rounds: readonly RoundRecord[],
  opts: ResearchOptions,
): Promise<{ name: string; data: Buffer }[]> {
  const players = await store.playersOfRoom(room.id);
  const alias = pseudonyms(players);
  const aliasOf = (playerId: number | null | undefined) => (playerId == null ? null : (alias.get(playerId) ?? null));
  // Every name a student went by in this room: their own, a team's suffixed one, those written on their changes.
  const names = new Map<string, string>();
  const name = (n: string, playerId: number) => {
    const a = alias.get(playerId);
    if (a && n.trim()) names.set(n.trim(), a);
  };
  for (const p of players) name(p.name, p.id);
  const data: RoundData[] = [];
  for (const r of rounds) {
    const d = await readRound(store, r);
    for (const m of d.members) name(m.name, m.playerId);
    for (const c of d.changes) if (c.author.playerId) name(c.author.name, c.author.playerId);
    for (const t of d.seatTurns) if (t.playerId !== null) name(t.name, t.playerId);
    for (const c of d.roleChanges) for (const w of [c.from, c.to]) if (w) name(w.name, w.playerId);
    data.push(d);
  }
  const scrub = opts.named ? (t: string) => t : pseudonymiser(names);
  const nameOf = (playerId: number | null | undefined) =>
    opts.named && playerId != null ? (players.find((p) => p.id === playerId)?.name ?? null) : null;

  const w = csvWords('en');
  const rounds_ = new Table(ROUNDS);
  const teams = new Table(TEAMS);
  const participants = new Table(PARTICIPANTS);
  const events = new Table(EVENTS);
  const goals = new Table(GOALS);
  const messages = new Table(MESSAGES);
  const minutes = new Map<string, Table>();
  const ledgers = new Map<string, Table>();
  const scenarios = new Map<string, { path: string; json: string }>();

  for (const d of data) {
    const { round, model } = d;
    const scenario = scenarioDef(model, round.scenario);
    const json = `${JSON.stringify(scenario, null, 2)}\n`;
    // Two versions of a teacher's scenario played in the room's rounds are two files (the second by its content).
    const plain = `scenarios/${model.id}.${scenario.id}.json`;
    const scenarioPath =
      scenarios.has(plain) && scenarios.get(plain)?.json !== json
        ? `scenarios/${model.id}.${scenario.id}.${contentHash(json).slice(0, 12)}.json`
        : plain;
    if (!scenarios.has(scenarioPath)) scenarios.set(scenarioPath, { path: scenarioPath, json });
    rounds_.row([
      round.id,
      room.code,
      round.number,
      round.simulator,
      round.scenario,
      scenarioPath,
      round.seed,
      round.noise,
      round.minutes,
      Math.max(0, round.minute),
      round.tempo,
      round.state,
      iso(round.startedAt),
      iso(round.finishedAt),
      round.forkOf?.roundId ?? null,
      round.forkOf?.teamId ?? null,
      round.forkOf?.minute ?? null,
      scoreRuleOf(scenario),
    ]);
    const mins = minutes.get(model.id) ?? new Table(minutesResource(model));
    minutes.set(model.id, mins);
    const ledger = ledgers.get(model.id) ?? new Table(ledgerResource(model));
    ledgers.set(model.id, ledger);
    const teamName = (t: RoundTeamRecord) =>
      scrub(
        t.name ||
          (t.whatIf
            ? w.text('team_whatif', {
                team: t.whatIf.name || w.text('team_default', { n: t.idx + 1 }),
                minute: t.whatIf.minute,
              })
            : w.text('team_default', { n: t.idx + 1 })),
      );

    // Teams: results and rank.
    const results = new Map((await store.resultsOfRound(round.id)).map((r) => [r.teamId, r]));
    const ended = endedEarlyAt(round);
    const ranked = new Map(teamRanks(d, results).map((r) => [r.teamId, r.rank]));
    for (const t of d.teams) {
      const res = results.get(t.teamId);
      teams.row([
        round.id,
        t.teamId,
        teamName(t),
        res?.score ?? null,
        res ? res.goals.filter((g) => g.met).length : null,
        res ? (ranked.get(t.teamId) ?? null) : null,
        ended,
      ]);
      for (const g of scenario.goals) {
        const r = res?.goals.find((x) => x.id === g.id);
        const unit = baseUnit(
          model.indicators.find((i) => i.key === g.indicator)?.display ?? { scale: 1, digits: 0, unit: '' },
        );
        goals.row([
          round.id,
          t.teamId,
          g.id,
          g.indicator,
          g.aggregate,
          g.op,
          g.target,
          r?.value ?? null,
          r ? r.met : null,
          unit,
        ]);
      }
    }

    // Minutes, ledger and events, a team at a time.
    const baseline =
      round.seed === null
        ? null
        : roundBaseline(model, {
            scenario: round.scenario,
            seed: round.seed,
            minutes: round.minutes,
            noise: round.noise,
          });
    const rule = scoreRuleOf(scenario);
    const sentAt = new Map<number, Map<number, number>>();
    for (const t of d.teams) {
      const rows = await store.snapshotsOfRound(round.id, { teamId: t.teamId });
      const snaps: Snapshot[] = [];
      const times = new Map<number, number>();
      for (const row of rows) {
        const s = JSON.parse(row.data) as Snapshot;
        snaps[s.minute] = s;
        if (row.at != null) times.set(s.minute, row.at);
        mins.row([
          round.id,
          t.teamId,
          s.minute,
          iso(row.at),
          s.clock ?? null,
          s.events
            .filter((e) => e.kind !== 'control')
            .map((e) => e.kind)
            .join('; ') || null,
          ...model.indicators.map((i) => s.indicators[i.key] ?? null),
          ...model.controls.filter((c) => c.kind !== 'action').map((c) => s.controls[c.key] ?? null),
        ]);
        if (baseline) {
          const l = ledgerAt(s, model.ledger.total, baseline.series, rule);
          ledger.row([
            round.id,
            t.teamId,
            s.minute,
            ...model.ledger.items.map((k) => s.indicators[k] ?? null),
            l.total,
            l.baseline,
            l.calm,
            l.saving,
          ]);
        }
      }
      sentAt.set(t.teamId, times);
      // The control values in force, walked change by change (the last of a minute wins).
      const inForce = new Map<string, ControlValue>();
      let lastShock: { minute: number; kind: string } | null = null;
      let shockScan = -1;
      for (const c of d.changes) {
        if (c.teamId !== t.teamId) continue;
        const shown = c.minute - 1;
        const def = model.controls.find((x) => x.key === c.key);
        // The shocks the desk had shown by the minute it showed when the change was made.
        while (shockScan < shown) {
          shockScan++;
          const s = snaps[shockScan];
          for (const e of s?.events ?? []) if (e.kind !== 'control') lastShock = { minute: shockScan, kind: e.kind };
          inForce.clear();
        }
        const before =
          shown < 0 || def?.kind === 'action' ? undefined : (inForce.get(c.key) ?? snaps[shown]?.controls[c.key]);
        if (def?.kind !== 'action') inForce.set(c.key, c.value);
        const shockAt = lastShock ? times.get(lastShock.minute) : undefined;
        events.row([
          round.id,
          c.seq,
          t.teamId,
          c.minute,
          shown < 0 ? null : shown,
          iso(c.at),
          c.actor.kind,
          c.actor.kind === 'autopilot' ? c.actor.skill : null,
          c.actor.kind === 'autopilot' ? c.actor.reason : null,
          aliasOf(c.author.playerId),
          nameOf(c.author.playerId),
          def?.role ?? null,
          c.key,
          valueText(before),
          valueText(c.value),
          def?.kind === 'number' ? def.unit : null,
          lastShock && shown >= 0 ? lastShock.minute : null,
          lastShock && shown >= 0 ? lastShock.kind : null,
          lastShock && shown >= 0 ? shown - lastShock.minute : null,
          lastShock && shown >= 0 && shockAt !== undefined ? Math.max(0, c.at - shockAt) / 1000 : null,
        ]);
      }
      await nextTurn();
    }

    // Participants: every member of every team, with their roles over time.
    for (const m of d.members) {
      const seat = seatFigures(d, m);
      const player = players.find((p) => p.id === m.playerId);
      participants.row([
        round.id,
        m.teamId,
        aliasOf(m.playerId),
        opts.named ? m.name : null,
        seat.spans.map((x) => `${x.role} ${x.from}–${x.to}`).join('; '),
        iso(player?.joinedAt),
        seat.joined,
        seat.left,
        seat.seatMinutes,
        seat.autopilot,
        seat.teacher,
        seat.ownChanges,
        seat.autopilotChanges,
      ]);
    }

    // The teacher's messages, with the minute the desks showed (the last minute sent before it).
    const times = [...(sentAt.values().next().value ?? new Map<number, number>())].sort((a, b) => a[0] - b[0]);
    for (const msg of d.messages) {
      let shownMinute: number | null = null;
      for (const [minute, at] of times) if (at <= msg.at) shownMinute = minute;
      messages.row([round.id, msg.id, msg.teamId, iso(msg.at), shownMinute, scrub(msg.text)]);
    }
    await nextTurn();
  }

  const tables = [rounds_, teams, participants, events, ...minutes.values(), ...ledgers.values(), goals, messages];
  const descriptor = {
    profile: 'tabular-data-package',
    name: `opsroom-${room.code.toLowerCase()}${rounds.length === 1 ? `-round${rounds[0].number}` : ''}`,
    title: `Opsroom room ${room.code}${rounds.length === 1 ? `, round ${rounds[0].number}` : ''}: the class's data`,
    description:
      'Every minute, control change, seat, goal and message of the rounds, in base units, with the scenario and seed that re-simulate them (docs/research-data.md).' +
      (opts.named ? " Named export: it holds the students' names." : ' Pseudonymous: students appear as P01, P02, …'),
    created: new Date(opts.now).toISOString(),
    version: opts.version,
    keywords: ['opsroom', 'classroom', 'simulation', 'operations'],
    'opsroom:named': opts.named,
    'opsroom:version': opts.version,
    resources: [
      ...tables.map((t) => ({
        profile: 'tabular-data-resource',
        name: t.resource.name,
        path: t.resource.path,
        title: t.resource.title,
        description: t.resource.description,
        format: 'csv',
        mediatype: 'text/csv',
        encoding: 'utf-8',
        dialect: { delimiter: ',', lineTerminator: '\r\n', quoteChar: '"', doubleQuote: true, header: true },
        schema: {
          fields: t.resource.fields.map((x) => ({
            ...x,
            ...(x.type === 'number' ? { bareNumber: true } : {}),
            ...(x.type === 'boolean' ? { trueValues: ['true'], falseValues: ['false'] } : {}),
          })),
          missingValues: [''],
          ...(t.resource.primaryKey ? { primaryKey: t.resource.primaryKey } : {}),
        },
      })),
      ...[...scenarios.values()].map((s) => ({
        profile: 'data-resource',
        name: s.path
          .replace(/^scenarios\//, 'scenario-')
          .replace(/\.json$/, '')
          .replace(/[^a-z0-9._-]/g, '-'),
        path: s.path,
        title: `Scenario ${s.path.slice('scenarios/'.length, -'.json'.length)}`,
        description:
          "The scenario's definition as played: its kind, starting controls and goals. Its shocks are drawn from each round's seed by this Opsroom version's model code.",
        format: 'json',
        mediatype: 'application/json',
        encoding: 'utf-8',
      })),
    ],
  };
  return [
    { name: 'datapackage.json', data: Buffer.from(`${JSON.stringify(descriptor, null, 2)}\n`, 'utf8') },
    ...tables.map((t) => ({ name: t.resource.path, data: Buffer.from(t.chunks.join(''), 'utf8') })),
    ...[...scenarios.values()].map((s) => ({ name: s.path, data: Buffer.from(s.json, 'utf8') })),
  ];
}

/** The package as one ZIP. */
export async function researchZip(
  store: Store,
  room: RoomRecord,
  rounds: readonly RoundRecord[],
  opts: ResearchOptions,
): Promise<Buffer> {
  return zip(await researchPackage(store, room, rounds, opts), new Date(opts.now));
}
