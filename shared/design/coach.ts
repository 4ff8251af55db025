// The hindsight coach: after a round, for one team, re-simulates the round on its seed with the team's
// own decisions changed one at a time — each decision earlier or later by 1–N minutes, a different value,
// dropped, or one decision more from the design space — and names the smallest change that would have met
// goals the team missed, or else the one that gained the most score, with its figures. Only changes that
// raise the score count, a press the desk would have shown as doing nothing then (`SimModel.idle`) is not
// suggested, and a change few teams would make — a control pushed to its end for a few minutes before
// the team's own value applies again, or a goal bought with more money lost (by crashing the switch, say)
// — is suggested only when nothing else helps, and then marked so. Pure and
// deterministic: the same round always gets the same answer. Every candidate shares the team's minutes up
// to its first difference, so only the rest of the round is simulated again. Candidates are made one at a time as
// the search asks for them, and the search stops at `maxPlays`: a team that sent every control every minute (two
// thousand decisions, fifty thousand candidates) costs the same memory and time as any other.
import type { Outcome, Suggestion, SuggestionKind, Unusual } from '../protocol/coach.ts';
import { controlDef } from '../sim/controls.ts';
import { changesByMinute, createRound, scenarioDef, stepRound } from '../sim/engine.ts';
import { evaluateRound, type Baseline } from '../sim/score.ts';
import type {
  ControlDef,
  ControlValue,
  ScenarioDef,
  ScheduledChange,
  SimModel,
  SimStateBase,
  Snapshot,
} from '../sim/types.ts';
import { gridValues } from './space.ts';

export interface CoachRound {
  model: SimModel;
  scenario: string;
  seed: number;
  noise: boolean;
  /** The last minute played: the verdict is over minutes 0…minute (a round ended early included). */
  minute: number;
  /** The round's references (`baselineRun` over the round's minutes). */
  baseline: Baseline;
  /**
   * The team's recorded changes in arrival order; those applying after `minute` never did and are left out. `auto`:
   * made by the autopilot in a student's seat — kept in every play, never moved, changed or dropped, so that the
   * coach never hands a student credit (or blame) for the autopilot's move.
   */
  changes: readonly CoachChange[];
}

/** A recorded change as the coach reads it: the autopilot's are marked. */
export type CoachChange = ScheduledChange & { auto?: boolean };

export interface CoachOptions {
  /** Earlier and later by 1…shift minutes (default 5). */
  shift?: number;
  /** Values tried per control for one decision more, spread over its grid (default 5). */
  addValues?: number;
  /** The best additions then tried at nearby minutes and values (default 3). */
  refine?: number;
  /** Plays re-simulated at most (default 1000), so that the search keeps to its time on any round. */
  maxPlays?: number;
}

export interface CoachResult {
  before: Outcome;
  /** Plays re-simulated. */
  tried: number;
  suggestion: Suggestion | null;
}

export const COACH_DEFAULTS: Required<CoachOptions> = { shift: 5, addValues: 5, refine: 3, maxPlays: 1000 };

interface Candidate {
  kind: SuggestionKind;
  key: string;
  value: ControlValue;
  fromMinute: number | null;
  toMinute: number | null;
  /** How big a change it is (minutes moved, tenths of the control's range, 1 to drop, 2 to add): smallest first. */
  size: number;
  /** The first minute it plays differently from the team. */
  first: number;
  play: ScheduledChange[];
}

interface Tried {
  c: Candidate;
  outcome: Outcome;
  met: boolean[];
}

const KIND_ORDER: Record<SuggestionKind, number> = { earlier: 0, later: 1, value: 2, drop: 3, add: 4 };

/** A setting at a control's end that gives way to the team's own within fewer minutes is a swing nobody would try. */
export const SWING_MINUTES = 5;
/** Money lost within this of the team's own (the ledger's last shown digit) is the same money. */
const MONEY_NOISE = 0.5;

/** The minute the next change of `key` after `minute` applies in `play` (the suggested value's end), or null: the round's end. */
export function lastsUntil(play: readonly ScheduledChange[], key: string, minute: number): number | null {
  let until: number | null = null;
  for (const c of play)
    if (c.key === key && c.minute > minute && (until === null || c.minute < until)) until = c.minute;
  return until;
}

/**
 * Why a suggested change is one few teams would make, if it is: a control pushed to its minimum or
 * maximum for a few minutes only (`swing`, see SWING_MINUTES), or a change that loses more money than
 * the team did — a goal bought, by crashing the switch for instance (`costly`).
 */
export function unusualOf(
  model: SimModel,
  c: Pick<Candidate, 'kind' | 'key' | 'value' | 'toMinute' | 'play'>,
  lastMinute: number,
  losesMoney: boolean,
): Unusual | null {
  if (losesMoney) return 'costly';
  if (c.kind === 'drop' || c.kind === 'earlier' || c.kind === 'later' || c.toMinute === null) return null;
  const def = controlDef(model, c.key);
  if (def.kind !== 'number' || (c.value !== def.min && c.value !== def.max)) return null;
  const until = lastsUntil(c.play, c.key, c.toMinute) ?? lastMinute + 1;
  return until - c.toMinute < SWING_MINUTES ? 'swing' : null;
}

/** The team's decisions: one per control and minute (the last received, as the engine applies them), by minute. */
export function decisionsOf(changes: readonly CoachChange[], lastMinute: number): CoachChange[] {
  const byKey = new Map<string, CoachChange>();
  for (const c of changes) {
    if (c.minute > lastMinute) continue;
    const k = `${c.minute}:${c.key}`;
    const had = byKey.get(k);
    const auto = c.auto ? { auto: true } : {};
    // Keeps the place of the first, the value (and whose it is) of the last.
    if (had) byKey.set(k, { minute: had.minute, key: had.key, value: c.value, ...auto });
    else byKey.set(k, { minute: c.minute, key: c.key, value: c.value, ...auto });
  }
  return [...byKey.values()].sort((a, b) => a.minute - b.minute);
}

/** Re-simulates plays from the team's own run, sharing its minutes up to a play's first difference. */
class Runner {
  readonly states: SimStateBase[] = [];
  readonly snapshots: Snapshot[] = [];
  readonly def: ScenarioDef;

  constructor(
    private readonly round: CoachRound,
    play: readonly ScheduledChange[],
  ) {
    this.def = scenarioDef(round.model, round.scenario);
    const byMinute = changesByMinute(play);
    let s = createRound(round.model, {
      scenario: round.scenario,
      seed: round.seed,
      noise: round.noise,
      changes: byMinute.get(0) ?? [],
    });
    this.keep(s);
    for (let m = 1; m <= round.minute; m++) {
      s = stepRound(round.model, s, byMinute.get(m) ?? []);
      this.keep(s);
    }
  }

  private keep(s: SimStateBase): void {
    this.states.push(s);
    this.snapshots.push(s.snapshot);
  }

  /** The minutes of `play`, which plays like the team's own run before minute `first`. */
  run(play: readonly ScheduledChange[], first: number): Snapshot[] {
    const { model, minute } = this.round;
    if (first <= 0) return new Runner(this.round, play).snapshots;
    const byMinute = changesByMinute(play);
    const out = this.snapshots.slice(0, first);
    let s = this.states[first - 1];
    for (let m = first; m <= minute; m++) {
      s = stepRound(model, s, byMinute.get(m) ?? []);
      out.push(s.snapshot);
    }
    return out;
  }

  judge(snapshots: readonly Snapshot[]): { outcome: Outcome; met: boolean[] } {
    const r = evaluateRound(this.def, snapshots, this.round.baseline);
    const met = r.goals.map((g) => g.met);
    const last = snapshots[snapshots.length - 1];
    return {
      outcome: {
        goalsMet: met.filter(Boolean).length,
        goals: met.length,
        score: r.score,
        ledgerTotal: last.indicators[this.round.model.ledger.total],
      },
      met,
    };
  }
}

/** Up to `n` values spread evenly over a control's grid, its ends included. */
function spread(def: ControlDef, n: number): ControlValue[] {
  const all = gridValues(def);
  if (all.length <= n) return all;
  return [...new Set(Array.from({ length: n }, (_, i) => all[Math.round((i * (all.length - 1)) / (n - 1))]))];
}

/** Other values for a decision: neighbours on the grid at doubling distances, and the grid's ends. */
function otherValues(def: ControlDef, v: ControlValue): { value: ControlValue; size: number }[] {
  if (def.kind === 'action') return [];
  const all = gridValues(def);
  if (def.kind !== 'number') return all.filter((x) => x !== v).map((value) => ({ value, size: 1 }));
  const i = all.indexOf(v);
  if (i < 0) return [];
  const n = all.length - 1;
  const at = new Set<number>([0, n]);
  for (let k = 1; k <= n; k *= 2) if (k >= n / 50) at.add(i - k).add(i + k);
  return [...at]
    .filter((j) => j >= 0 && j <= n && j !== i)
    .sort((a, b) => Math.abs(a - i) - Math.abs(b - i))
    .map((j) => ({ value: all[j], size: Math.max(1, Math.round((10 * Math.abs(j - i)) / n)) }));
}

/** Each decision earlier or later, with another value, or dropped: made as they are asked for. */
function* moves(round: CoachRound, decisions: readonly CoachChange[], shift: number): Generator<Candidate> {
  const last = round.minute;
  for (const [i, d] of decisions.entries()) {
    // The autopilot's moves are not the team's to move: they stay as they were.
    if (d.auto) continue;
    const others = decisions.filter((_, j) => j !== i);
    for (let s = 1; s <= shift; s++) {
      for (const [kind, to] of [
        ['earlier', d.minute - s],
        ['later', d.minute + s],
      ] as const) {
        if (to < 1 || to > last || taken(decisions, d.key, to)) continue;
        yield {
          kind,
          key: d.key,
          value: d.value,
          fromMinute: d.minute,
          toMinute: to,
          size: s,
          first: Math.min(d.minute, to),
          play: [...others, { ...d, minute: to }],
        };
      }
    }
    for (const o of otherValues(controlDef(round.model, d.key), d.value)) {
      yield {
        kind: 'value',
        key: d.key,
        value: o.value,
        fromMinute: d.minute,
        toMinute: d.minute,
        size: o.size,
        first: d.minute,
        play: decisions.map((x, j) => (j === i ? { ...x, value: o.value } : x)),
      };
    }
    yield {
      kind: 'drop',
      key: d.key,
      value: d.value,
      fromMinute: d.minute,
      toMinute: null,
      size: 1,
      first: d.minute,
      play: others,
    };
  }
}

const taken = (decisions: readonly ScheduledChange[], key: string, m: number) =>
  decisions.some((d) => d.key === key && d.minute === m);

/** One decision more of `key` at minute `m` (none when the control already holds the value then). */
function added(
  base: Runner,
  decisions: readonly ScheduledChange[],
  def: ControlDef,
  m: number,
  value: ControlValue,
): Candidate | null {
  if (m < 1 || m >= base.snapshots.length || taken(decisions, def.key, m)) return null;
  if (def.kind !== 'action' && base.snapshots[m - 1].controls[def.key] === value) return null;
  const play = [...decisions, { minute: m, key: def.key, value }].sort((a, b) => a.minute - b.minute);
  return { kind: 'add', key: def.key, value, fromMinute: null, toMinute: m, size: 2, first: m, play };
}

/**
 * One decision more, coarsely: every control at a few values, the minute after each event the desk showed,
 * at the team's own decision minutes, and every ten minutes.
 */
function* additions(
  round: CoachRound,
  base: Runner,
  decisions: readonly ScheduledChange[],
  values: number,
): Generator<Candidate> {
  const minutes = new Set<number>([1]);
  for (const [m, s] of base.snapshots.entries()) if (s.events.some((e) => e.kind !== 'control')) minutes.add(m + 1);
  for (const d of decisions) minutes.add(d.minute);
  for (let m = 11; m <= round.minute; m += 10) minutes.add(m);
  for (const m of [...minutes].sort((a, b) => a - b)) {
    for (const def of round.model.controls)
      for (const v of spread(def, values)) {
        const c = added(base, decisions, def, m, v);
        if (c) yield c;
      }
  }
}

/**
 * What a candidate changes, as a key: two candidates with one key play the same (a decision is one control at one
 * minute, so a kind, a control, its minutes and its value name the play it makes).
 */
const keyOf = (c: Candidate) => `${c.kind}|${c.key}|${c.fromMinute}|${c.toMinute}|${String(c.value)}`;

/** Around a promising addition: the minutes close to it, and the values next to it on the control's grid. */
function around(round: CoachRound, base: Runner, decisions: readonly ScheduledChange[], c: Candidate): Candidate[] {
  const def = controlDef(round.model, c.key);
  const grid = gridValues(def);
  const i = grid.indexOf(c.value);
  const step = Math.max(1, Math.round(grid.length / 20));
  const values = def.kind === 'number' && i >= 0 ? [grid[i - step], grid[i + step]].filter((v) => v !== undefined) : [];
  const m = c.toMinute;
  if (m === null) throw new Error(`coach: only an added decision has a minute to search around, not a ${c.kind}`);
  return [
    ...[-3, -2, -1, 1, 2, 3].map((k) => added(base, decisions, def, m + k, c.value)),
    ...values.map((v) => added(base, decisions, def, m, v)),
  ].filter((x): x is Candidate => x !== null);
}

/** Best first: more goals met, then the smaller change, then the higher score (free play: the smaller ledger). */
function rank(a: Tried, b: Tried): number {
  return (
    b.outcome.goalsMet - a.outcome.goalsMet ||
    a.c.size - b.c.size ||
    worth(b.outcome) - worth(a.outcome) ||
    KIND_ORDER[a.c.kind] - KIND_ORDER[b.c.kind] ||
    (a.c.toMinute ?? a.c.fromMinute ?? 0) - (b.c.toMinute ?? b.c.fromMinute ?? 0)
  );
}
const worth = (o: Outcome) => o.score ?? -o.ledgerTotal;

/** A press at a minute when the desk showed it would do nothing (no bad build to roll back): not a suggestion. */
function idlePress(model: SimModel, c: Candidate, snapshots: readonly Snapshot[]): boolean {
  if (c.toMinute === null || !model.idle || controlDef(model, c.key).kind !== 'action') return false;
  const seen = snapshots[c.toMinute - 1];
  return seen !== undefined && model.idle(c.key, seen) !== null;
}

/** The best of `tried`: the smallest change that meets more goals, else the one that gains the most; both must raise the score. */
function bestOf(tried: readonly Tried[], before: Outcome): Tried | undefined {
  const better = tried.filter((t) => worth(t.outcome) > worth(before));
  const goalsGained = better.filter((t) => t.outcome.goalsMet > before.goalsMet).sort(rank);
  const scoreGained = [...better].sort((a, b) => worth(b.outcome) - worth(a.outcome) || rank(a, b));
  return goalsGained[0] ?? scoreGained[0];
}

/** Searches near the team's decisions and returns the suggestion (null when no change does better). */
export function coachTeam(round: CoachRound, options: CoachOptions = {}): CoachResult {
  const opts = { ...COACH_DEFAULTS, ...options };
  const decisions = decisionsOf(round.changes, round.minute);
  const base = new Runner(round, decisions);
  const { outcome: before, met: metBefore } = base.judge(base.snapshots);
  const tried: Tried[] = [];
  const seen = new Set<string>();
  let plays = 0;
  const tryAll = (list: Iterable<Candidate>) => {
    for (const c of list) {
      if (plays >= opts.maxPlays) return;
      const key = keyOf(c);
      if (seen.has(key)) continue;
      seen.add(key);
      plays++;
      const snapshots = base.run(c.play, c.first);
      if (!idlePress(round.model, c, snapshots)) tried.push({ c, ...base.judge(snapshots) });
    }
  };
  tryAll(moves(round, decisions, opts.shift));
  tryAll(additions(round, base, decisions, opts.addValues));
  // Then closer around the best few additions.
  const adds = tried.filter(
    (t) => t.c.kind === 'add' && (t.outcome.goalsMet > before.goalsMet || worth(t.outcome) > worth(before)),
  );
  for (const t of adds.sort(rank).slice(0, opts.refine)) tryAll(around(round, base, decisions, t.c));

  // A change a person would make first; a brief swing to a control's end, or a goal bought with money,
  // only when nothing else helps.
  const unusual = (t: Tried) =>
    unusualOf(round.model, t.c, round.minute, t.outcome.ledgerTotal > before.ledgerTotal + MONEY_NOISE);
  const natural = bestOf(
    tried.filter((t) => !unusual(t)),
    before,
  );
  const best = natural ?? bestOf(tried, before);
  if (!best) return { before, tried: plays, suggestion: null };
  const { c } = best;
  const goalIds = base.def.goals.map((g) => g.id);
  const lasts = c.toMinute !== null && controlDef(round.model, c.key).kind !== 'action';
  return {
    before,
    tried: plays,
    suggestion: {
      ...{ kind: c.kind, key: c.key, value: c.value, fromMinute: c.fromMinute, toMinute: c.toMinute },
      ...{ before, after: best.outcome, goalsNowMet: goalIds.filter((_, g) => best.met[g] && !metBefore[g]) },
      goalsNowMissed: goalIds.filter((_, g) => !best.met[g] && metBefore[g]),
      until: lasts && c.toMinute !== null ? lastsUntil(c.play, c.key, c.toMinute) : null,
      unusual: natural ? null : unusual(best),
      changes: c.play.map((x) => ({ minute: x.minute, key: x.key, value: x.value })),
      forkMinute: c.first - 1,
    },
  };
}
