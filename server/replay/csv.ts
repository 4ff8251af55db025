// CSV export of a round, for people: every column named in the reader's language with its unit and its
// key — "Good-customer approval rate (%) [goodApproval]" — and every value in the unit the desk shows,
// rounded to the desk's precision, never in exponent notation, in the format a spreadsheet set to that
// language opens by double-click (semicolons and decimal commas where the language writes 0,5). Four parts: per team per minute every
// indicator and control; every control change with who made it; the scores; every student's seat (their changes,
// and the minutes the autopilot or the teacher played it). Written team by team, so that a large round
// is produced in small pieces (exports.ts yields to the event loop between them).
import { endedEarlyAt } from '../../shared/classroom/rank.ts';
import { controlDisplay } from '../../shared/replay/units.ts';
import { formatClock } from '../../shared/format.ts';
import { indicatorDef } from '../../shared/sim/engine.ts';
import type { Actor, ChangeRecord, CsvPart, SeatTurn, WhatIfOrigin } from '../../shared/protocol/types.ts';
import { pilotMinutes } from '../../shared/classroom/seats.ts';
import type {
  ControlDef,
  ControlValue,
  DisplayDef,
  GoalDef,
  IndicatorDef,
  SimModel,
  SimulatorId,
  Snapshot,
} from '../../shared/sim/types.ts';
import type { RoundMemberRecord, RoundRecord, TeamResultRecord } from '../db/records.ts';
import type { Store } from '../db/store.ts';
import type { ScenarioFile } from '../../shared/scenarios/format.ts';
import { roundPlay } from '../rooms/scenario-content.ts';
import type { CsvFormat, CsvWords } from './csv-words.ts';

/** A number already written out (rounded, no exponent): safe as it is, even when negative. */
interface Numeral {
  numeral: string;
}
type Cell = string | number | boolean | null | Numeral;

/** A number in plain decimal notation: 1.5e-7 is written 0.00000015, and what rounds below 1e-20 is 0. */
function plainNumber(v: number): string {
  const s = String(v);
  return /e/i.test(s) ? v.toFixed(20).replace(/\.?0+$/, '') : s;
}

const POINT: CsvFormat = { separator: ',', decimal: '.' };

/**
 * One CSV field in a format (comma and decimal point unless given): numbers with its decimal mark,
 * quoted when needed; text that a spreadsheet would run as a formula is defused.
 */
export function csvField(v: Cell, format: CsvFormat = POINT): string {
  if (v === null) return '';
  if (typeof v === 'number' || typeof v === 'object') {
    const n = typeof v === 'object' ? v.numeral : Number.isFinite(v) ? plainNumber(v) : '';
    return format.decimal === '.' ? n : n.replace('.', format.decimal);
  }
  let s = typeof v === 'boolean' ? (v ? 'true' : 'false') : v;
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return s.includes(format.separator) || /["\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** value × scale with the display's decimals ("99.9"); null when there is no finite value. */
export function shown(display: DisplayDef, v: number | null | undefined): Numeral | null {
  if (v == null || !Number.isFinite(v)) return null;
  const s = (v * display.scale).toFixed(display.digits);
  return { numeral: /^-0(\.0*)?$/.test(s) ? s.slice(1) : s };
}

/** "Name (unit) [key]"; the unit is left out for plain counts. */
function label(name: string, unit: string, key: string): string {
  return unit ? `${name} (${unit}) [${key}]` : `${name} [${key}]`;
}

/** Everything a round's export reads, one team at a time. */
export interface RoundSource {
  model: SimModel;
  /** The scenario's file when the round played a teacher's own (its goals' words are the file's). */
  own?: ScenarioFile;
  round: RoundRecord;
  teams: { teamId: number; idx: number; name: string; whatIf: WhatIfOrigin | null }[];
  /** One team's minutes, read when its turn comes. */
  snapshots(teamId: number): Promise<Snapshot[]>;
  changes: ChangeRecord[];
  results: Map<number, TeamResultRecord>;
  members: RoundMemberRecord[];
  seatTurns: SeatTurn[];
}

export async function roundSource(store: Store, round: RoundRecord): Promise<RoundSource> {
  const [teams, changes, results, members, seatTurns, { model, own }] = await Promise.all([
    store.roundTeams(round.id),
    store.changesOfRound(round.id),
    store.resultsOfRound(round.id),
    store.roundMembers(round.id),
    store.seatTurnsOfRound(round.id),
    roundPlay(store, round),
  ]);
  return {
    model,
    ...(own ? { own } : {}),
    round,
    teams,
    snapshots: async (teamId) =>
      (await store.snapshotsOfRound(round.id, { teamId })).map((s) => JSON.parse(s.data) as Snapshot),
    changes: changes.filter((c) => c.minute <= round.minute),
    results: new Map(results.map((r) => [r.teamId, r])),
    members,
    seatTurns,
  };
}

class Writer {
  readonly sim: SimulatorId;
  constructor(
    readonly src: RoundSource,
    readonly w: CsvWords,
  ) {
    this.sim = src.model.id;
  }
  /** One row, in the reader's format (separator, decimal mark). */
  line(cells: Cell[]): string {
    const f = this.w.format;
    return `${cells.map((c) => csvField(c, f)).join(f.separator)}\r\n`;
  }
  /** The team's name as the screens show it (a what-if room's team keeps its original team's name). */
  team(t: { idx: number; name: string; whatIf?: WhatIfOrigin | null }): string {
    if (t.name) return t.name;
    if (t.whatIf) return this.w.text('team_whatif', { team: this.team(t.whatIf), minute: t.whatIf.minute });
    return this.w.text('team_default', { n: t.idx + 1 });
  }
  indicatorDef(key: string): IndicatorDef {
    return indicatorDef(this.src.model, key);
  }
  /** A control's value as people read it: a number in its display unit, on/off, an option's name. */
  controlValue(def: ControlDef | undefined, v: ControlValue | undefined): Cell {
    if (v === undefined) return null;
    if (typeof v === 'boolean') return this.w.text(v ? 'value_on' : 'value_off');
    if (typeof v === 'number') return def?.kind === 'number' ? shown(controlDisplay(def), v) : v;
    if (def?.kind === 'enum') return this.w.option(this.sim, def.key, v);
    return v;
  }
  /** Who made a change: student, teacher, autopilot (its policy and why), what-if. */
  actor(a: Actor): string {
    if (a.kind === 'autopilot') return this.w.text('csv_actor_autopilot', { skill: a.skill, reason: a.reason });
    return this.w.text(a.kind === 'what-if' ? 'csv_actor_whatif' : `csv_actor_${a.kind}`);
  }
  controlUnit(def: ControlDef): string {
    return def.kind === 'number' ? controlDisplay(def).unit : '';
  }
}

async function* minutes(x: Writer): AsyncGenerator<string> {
  const { model } = x.src;
  const controls = model.controls.filter((c) => c.kind !== 'action');
  const w = x.w;
  const first = [
    label(w.text('csv_team_id'), '', 'team_id'),
    label(w.text('lb_team'), '', 'team'),
    label(w.text('csv_minute'), '', 'minute'),
  ];
  let header: string | null = null;
  for (const t of x.src.teams) {
    const snaps = await x.src.snapshots(t.teamId);
    const hasClock = snaps[0]?.clock !== undefined;
    header ??= x.line([
      ...first,
      ...(hasClock ? [label(w.text('csv_time_of_day'), 'HH:MM', 'clock')] : []),
      ...model.indicators.map((i) => label(w.indicator(x.sim, i.key), i.display.unit, i.key)),
      ...controls.map((c) => label(w.control(x.sim, c.key), x.controlUnit(c), c.key)),
    ]);
    let out = t === x.src.teams[0] ? header : '';
    for (const s of snaps) {
      out += x.line([
        t.teamId,
        x.team(t),
        s.minute,
        ...(hasClock ? [s.clock === undefined ? null : formatClock(s.clock)] : []),
        ...model.indicators.map((i) => shown(i.display, s.indicators[i.key])),
        ...controls.map((c) => x.controlValue(c, s.controls[c.key])),
      ]);
    }
    yield out;
  }
  // A round without teams: the first columns' header alone.
  if (header === null) yield x.line(first);
}

async function* changes(x: Writer): AsyncGenerator<string> {
  const w = x.w;
  yield x.line([
    label(w.text('csv_team_id'), '', 'team_id'),
    label(w.text('lb_team'), '', 'team'),
    label(w.text('csv_applied_at'), '', 'minute'),
    label(w.text('csv_control'), '', 'control'),
    label(w.text('scores_value'), '', 'value'),
    label(w.text('csv_unit'), '', 'unit'),
    label(w.text('csv_role'), '', 'role'),
    label(w.text('csv_author'), '', 'author'),
    label(w.text('csv_actor'), '', 'actor'),
    label(w.text('csv_received_at'), 'UTC, ISO 8601', 'received_at'),
  ]);
  for (const t of x.src.teams) {
    let out = '';
    for (const c of x.src.changes) {
      if (c.teamId !== t.teamId) continue;
      const def = x.src.model.controls.find((d) => d.key === c.key);
      out += x.line([
        t.teamId,
        x.team(t),
        c.minute,
        // The name as the desk shows it, with the key, like the minutes' column names.
        def ? `${w.control(x.sim, def.key)} [${c.key}]` : c.key,
        x.controlValue(def, c.value),
        def ? x.controlUnit(def) : null,
        def ? w.role(x.sim, def.role) : null,
        c.author.name,
        x.actor(c.actor),
        new Date(c.at).toISOString(),
      ]);
    }
    yield out;
  }
}

async function* scores(x: Writer): AsyncGenerator<string> {
  const { model, round } = x.src;
  const goals: readonly GoalDef[] = model.scenarios.find((s) => s.id === round.scenario)?.goals ?? [];
  const w = x.w;
  const goalName = (g: GoalDef) => {
    const d = x.indicatorDef(g.indicator).display;
    const target = shown(d, g.target)?.numeral;
    if (target === undefined) throw new Error(`${round.scenario}: goal ${g.id} has no finite target (${g.target})`);
    const value = d.unit ? `${target} ${d.unit}` : target;
    const briefs = x.src.own?.briefs as Record<string, { goals?: Record<string, string> } | undefined> | undefined;
    const own = briefs?.[w.locale]?.goals?.[g.id] ?? briefs?.en?.goals?.[g.id];
    return own ? own.replace(/\{target\}/g, value) : w.goal(x.sim, round.scenario, g.id, value);
  };
  yield x.line([
    label(w.text('csv_team_id'), '', 'team_id'),
    label(w.text('lb_team'), '', 'team'),
    label(w.text('lb_score'), '', 'score'),
    label(w.text('lb_goals'), '', 'goals_met'),
    ...goals.flatMap((g) => {
      const unit = x.indicatorDef(g.indicator).display.unit;
      return [
        label(`${goalName(g)}: ${w.text('scores_value')}`, unit, `${g.id}_value`),
        label(`${goalName(g)}: ${w.text('scores_target')} ${g.op === '>=' ? '≥' : '≤'}`, unit, `${g.id}_target`),
        label(`${goalName(g)}: ${w.text('goal_met')}`, '', `${g.id}_met`),
      ];
    }),
    // Empty for a round played to its end; a round ended early never ranks above one played through.
    label(w.text('csv_ended_at'), '', 'ended_at_minute'),
  ]);
  const ended = endedEarlyAt(round);
  let out = '';
  for (const t of x.src.teams) {
    const res = x.src.results.get(t.teamId);
    out += x.line([
      t.teamId,
      x.team(t),
      res?.score ?? null,
      res ? res.goals.filter((g) => g.met).length : null,
      ...goals.flatMap((g) => {
        const d = x.indicatorDef(g.indicator).display;
        const r = res?.goals.find((y) => y.id === g.id);
        return [shown(d, r?.value), shown(d, g.target), r ? w.text(r.met ? 'csv_yes' : 'csv_no') : null];
      }),
      ended,
    ]);
  }
  yield out;
}

/** Every student of every team: their roles, their own changes, and the minutes others played their seat. */
async function* seats(x: Writer): AsyncGenerator<string> {
  const w = x.w;
  yield x.line([
    label(w.text('csv_team_id'), '', 'team_id'),
    label(w.text('lb_team'), '', 'team'),
    label(w.text('csv_student'), '', 'student'),
    label(w.text('csv_roles'), '', 'roles'),
    label(w.text('csv_changes_own'), '', 'changes'),
    label(w.text('csv_changes_auto'), '', 'autopilot_changes'),
    label(w.text('csv_auto_minutes'), '', 'autopilot_minutes'),
    label(w.text('csv_teacher_minutes'), '', 'teacher_minutes'),
  ]);
  const end = Math.max(0, x.src.round.minute);
  for (const t of x.src.teams) {
    let out = '';
    for (const mb of x.src.members) {
      if (mb.teamId !== t.teamId) continue;
      const made = x.src.changes.filter((c) => c.teamId === t.teamId && c.author.playerId === mb.playerId);
      const turns = x.src.seatTurns.filter((s) => s.teamId === t.teamId);
      const piloted = pilotMinutes(turns, mb.playerId, end);
      out += x.line([
        t.teamId,
        x.team(t),
        mb.name,
        mb.roles.map((r) => w.role(x.sim, r)).join(', '),
        made.filter((c) => c.actor.kind === 'student').length,
        made.filter((c) => c.actor.kind === 'autopilot').length,
        piloted.autopilot,
        piloted.teacher,
      ]);
    }
    yield out;
  }
}

/** A part of the export, in pieces of about one team each. */
export function csvPieces(part: CsvPart, src: RoundSource, words: CsvWords): AsyncGenerator<string> {
  const x = new Writer(src, words);
  const parts: Record<CsvPart, (x: Writer) => AsyncGenerator<string>> = { minutes, changes, scores, seats };
  return parts[part](x);
}
