// CSV export of a round: per team per minute every indicator and control; every control change; the
// scores. A header row, units in the column names, values in base units.
import { baseUnit } from '../../shared/replay/units.ts';
import { formatClock } from '../../shared/format.ts';
import { getModel } from '../../shared/sim/registry.ts';
import { describeAllowed } from '../../shared/sim/controls.ts';
import type { ControlDef, ControlValue, SimModel } from '../../shared/sim/types.ts';
import { snapshotAt } from '../../shared/replay/columns.ts';
import type { CsvPart, RoundReplay } from '../../shared/protocol/types.ts';

/** One CSV field: quoted when needed; text that a spreadsheet would run as a formula is defused. */
export function csvField(v: string | number | boolean | null): string {
  if (v === null) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  let s = typeof v === 'boolean' ? (v ? 'true' : 'false') : v;
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

function rows(header: string[], body: (string | number | boolean | null)[][]): string {
  return [header, ...body].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}

function controlUnit(def: ControlDef): string {
  switch (def.kind) {
    case 'number':
      return def.unit;
    case 'bool':
      return 'on/off';
    case 'enum':
      return describeAllowed(def);
    case 'action':
      return 'press';
  }
}

function controlText(v: ControlValue | undefined): string | number | null {
  if (v === undefined) return null;
  return typeof v === 'boolean' ? (v ? 'on' : 'off') : v;
}

function teamLabel(t: { idx: number; name: string; whatIf: { idx: number; name: string; minute: number } | null }): string {
  if (t.name) return t.name;
  return t.whatIf ? `${t.whatIf.name || `Team ${t.whatIf.idx + 1}`} — what-if from minute ${t.whatIf.minute}` : `Team ${t.idx + 1}`;
}

export function minutesCsv(model: SimModel, replay: RoundReplay): string {
  const controls = model.controls.filter((c) => c.kind !== 'action');
  const hasClock = replay.teams.some((t) => t.columns.clock !== null);
  const header = [
    'team_id',
    'team',
    'minute',
    ...(hasClock ? ['clock (HH:MM)'] : []),
    ...model.indicators.map((i) => `${i.key} (${baseUnit(i.display)})`),
    ...controls.map((c) => `control ${c.key} (${controlUnit(c)})`),
  ];
  const body: (string | number | null)[][] = [];
  for (const t of replay.teams) {
    for (let i = 0; i < t.columns.minutes.length; i++) {
      const s = snapshotAt(t.columns, i);
      body.push([
        t.teamId,
        teamLabel(t),
        s.minute,
        ...(hasClock ? [s.clock === undefined ? null : formatClock(s.clock)] : []),
        ...model.indicators.map((ind) => s.indicators[ind.key]),
        ...controls.map((c) => controlText(s.controls[c.key])),
      ]);
    }
  }
  return rows(header, body);
}

export function changesCsv(model: SimModel, replay: RoundReplay): string {
  const header = ['team_id', 'team', 'applied_at_minute', 'control', 'value', 'unit', 'role', 'author', 'received_at (UTC ISO 8601)'];
  const body: (string | number | null)[][] = [];
  for (const t of replay.teams) {
    for (const c of t.changes) {
      const def = model.controls.find((d) => d.key === c.key);
      body.push([t.teamId, teamLabel(t), c.minute, c.key, controlText(c.value), def ? controlUnit(def) : null, def?.role ?? null, c.author.name, new Date(c.at).toISOString()]);
    }
  }
  return rows(header, body);
}

export function scoresCsv(model: SimModel, replay: RoundReplay): string {
  const goals = model.scenarios.find((s) => s.id === replay.round.scenario)?.goals ?? [];
  const unitOf = (indicator: string) => baseUnit(model.indicators.find((i) => i.key === indicator)!.display);
  const header = [
    'team_id',
    'team',
    'score (points)',
    'goals_met (count)',
    ...goals.flatMap((g) => [`${g.id} value (${unitOf(g.indicator)})`, `${g.id} target ${g.op} (${unitOf(g.indicator)})`, `${g.id} met (true/false)`]),
    // Empty for a round played to its end; a round ended early never ranks above one played through.
    'ended_at_minute (minute)',
  ];
  const ended = replay.round.endedEarlyAt;
  const body = replay.teams.map((t) => {
    const res = t.result;
    return [
      t.teamId,
      teamLabel(t),
      res?.score ?? null,
      res ? res.goals.filter((g) => g.met).length : null,
      ...goals.flatMap((g) => {
        const r = res?.goals.find((x) => x.id === g.id);
        return r ? [r.value, r.target, r.met] : [null, g.target, null];
      }),
      ended,
    ];
  });
  return rows(header, body);
}

export function roundCsv(part: CsvPart, replay: RoundReplay): string {
  const model = getModel(replay.round.simulator);
  return part === 'minutes' ? minutesCsv(model, replay) : part === 'changes' ? changesCsv(model, replay) : scoresCsv(model, replay);
}
