// The contract every simulator fulfils, so the engine, the CLI, the server and the web app treat
// them alike. Everything here is plain data: a state can be cloned, stored, compared and replayed.
import type { Rng } from './rng.ts';

export type SimulatorId = 'payment-switch' | 'web-service';
export type ControlValue = number | boolean | string;
export type Status = 'normal' | 'warning' | 'critical';

/** The value an action control (a button) carries in the control stream. */
export const PRESS = 'press';

interface ControlBase {
  key: string;
  /** Classroom role that owns this control. */
  role: string;
}
export interface NumberControlDef extends ControlBase {
  kind: 'number';
  min: number;
  max: number;
  /** Allowed values are min + k·step. */
  step: number;
  default: number;
  /** Base unit the value travels in: 'count', 'share', 's', 'sigma', 'u'. */
  unit: string;
}
export interface BoolControlDef extends ControlBase {
  kind: 'bool';
  default: boolean;
}
export interface EnumControlDef extends ControlBase {
  kind: 'enum';
  options: readonly string[];
  default: string;
}
/** A button: its only value is PRESS; it is recorded in the control stream like any change. */
export interface ActionControlDef extends ControlBase {
  kind: 'action';
}
export type ControlDef = NumberControlDef | BoolControlDef | EnumControlDef | ActionControlDef;

export interface RoleDef {
  id: string;
  controls: readonly string[];
  /**
   * Detail indicators this role sees in split view. Everyone always sees the headline indicators and
   * the ledger; the teacher, the projector and replays see everything.
   */
  sees: readonly string[];
}

/** The team's ledger: one currency per simulator; every line a cumulative indicator in that currency. */
export interface LedgerDef {
  currency: 'u' | '$';
  /** Cumulative indicator keys (trend 'rising'), one per line, in currency units. */
  items: readonly string[];
  /** Cumulative indicator key holding the sum of the items. */
  total: string;
}

/** How an indicator is shown: value × scale, `digits` decimals, then the unit. */
export interface DisplayDef {
  scale: number;
  digits: number;
  unit: string;
}
export interface IndicatorDef {
  key: string;
  display: DisplayDef;
  /** Headline indicators carry a status and are charted. */
  headline?: boolean;
  /** Cumulative figures: 'rising' never decreases, 'falling' never increases (a goal on them can be lost for good). */
  trend?: 'rising' | 'falling';
}

export interface GoalDef {
  id: string;
  indicator: string;
  /**
   * mean: average of the per-minute values over [from, last minute]; final: value at the last minute; worst: the
   * worst average over `stretch` minutes running within [from, last minute] (the highest for a ≤ goal, the lowest
   * for a ≥ goal) — met only if every stretch is.
   */
  aggregate: 'mean' | 'final' | 'worst';
  /** Minutes running a worst goal averages over (default 10). */
  stretch?: number;
  /** First minute of the averaging window (default 1: the opening screen, minute 0, is not played). */
  from?: number;
  op: '>=' | '<=';
  /** In base units, like the indicator. */
  target: number;
}

export interface ScenarioDef {
  id: string;
  /** free: no goals; classic: the seed's levels; full-shift: a 60-minute shift of seeded shocks. */
  kind: 'free' | 'classic' | 'full-shift';
  /** Default of the teacher's split-view option (true for full-shift scenarios). */
  splitView?: boolean;
  /** Default round length in minutes (60 when absent). */
  minutes?: number;
  /** Crisis level (payment switch) for ordering; free play has none. */
  level?: number;
  /** Scenario's own starting controls, applied before any user change. */
  controls?: Readonly<Record<string, ControlValue>>;
  goals: readonly GoalDef[];
  /** The score rule its rounds are scored by (docs/scoring.md): 2 unless absent from a retired scenario. */
  scoreRule?: 1 | 2;
  /**
   * A scenario kept only so that its stored rounds replay and keep their meaning: new rooms no longer offer
   * it; a reworked version lives under a new id.
   */
  retired?: boolean;
  /**
   * The shocks, drawn from the round's seed in create, from the model's shock library (`shocks.ts` of the
   * payment switch, `episodes.ts` of the web service): `setting` is what the day adds to the model (the payment
   * switch's shift terms; the web service's clock, boot time and error budget), `episodes` the list drawn in
   * order. Without it the model's timeline of the scenario's id (or of `timeline`) applies.
   */
  shocks?: ScenarioShocks;
  /** The model's named timeline this scenario plays when it is not the one of its own id (a duplicated built-in). */
  timeline?: string;
  /** Messages the desk is shown at given minutes (an event `scenario-message` with the message's index). */
  messages?: readonly ScenarioMessage[];
  /** The model's roles in this scenario's deal order, with what each sees in split view (controls stay the model's). */
  roles?: readonly RoleDef[];
}

/**
 * A scenario as the screens that draw a round know it: everything but its shocks, which only the engine reads (so a
 * desk does not download the built-ins' timelines).
 */
export type ScenarioFace = Omit<ScenarioDef, 'shocks'>;

/** A scenario's shocks from its model's library (checked by `shared/scenarios`; each model reads its own kinds). */
export interface ScenarioShocks {
  setting: Readonly<Record<string, number | boolean>>;
  episodes: readonly object[];
}

/** A message to the team at a minute: English text, other languages optional (falling back to English). */
export interface ScenarioMessage {
  minute: number;
  text: Readonly<Record<string, string>> & { readonly en: string };
}

export interface SimEvent {
  /** A stable key (translated by the client), e.g. 'sale-start', 'servers-ready', 'control'. */
  kind: string;
  [field: string]: string | number | boolean;
}

/** What everybody sees of one minute. Minute 0 is the opening screen. */
export interface Snapshot {
  minute: number;
  /** Time of day in minutes after midnight, for simulators that show a clock. */
  clock?: number;
  /** Every indicator under the spec's key, in base units. */
  indicators: Record<string, number>;
  /** Status of each headline indicator. */
  status: Record<string, Status>;
  /** Controls in force during this minute (actions excluded). */
  controls: Record<string, ControlValue>;
  /** Extra numbers for the picture (progress of actions, issuer states…), not indicators. */
  detail: Record<string, number>;
  events: SimEvent[];
  /**
   * Indicator keys whose share has nothing under it this minute (e.g. fraud rate with no approvals):
   * screens show "—", the value stays a number (0), and a `mean` goal skips those minutes.
   */
  na?: string[];
  /**
   * Controls the scenario's story takes away for the next minute (the autoscaler being migrated…): control
   * key → the reason's key. The engine, the CLI and the server refuse a change to them; the desk greys them.
   */
  unavailable?: Record<string, string>;
}

export interface ControlChange {
  key: string;
  value: ControlValue;
}
export interface ScheduledChange extends ControlChange {
  /** Applied at the start of this minute (0 = before the opening screen). */
  minute: number;
}

export interface CreateOptions {
  scenario: string;
  seed: number;
  noise: boolean;
  /** Changes applied before the opening screen (after the scenario's own controls). */
  changes?: readonly ControlChange[];
  /** The scenario's definition (the engine resolves `scenario` to it; a model reads its shocks and controls here). */
  def?: ScenarioDef;
}

/** Fields every simulation state has. A state is plain JSON data and is never mutated. */
export interface SimStateBase {
  model: SimulatorId;
  scenario: string;
  seed: number;
  noise: boolean;
  minute: number;
  /** The generator's state: the round re-simulates exactly from it. */
  rng: Rng;
  controls: Record<string, ControlValue>;
  snapshot: Snapshot;
  /** The model's named timeline the round plays, when it is not the one of `scenario` (an authored scenario). */
  timeline?: string;
}

export interface SimModel<S extends SimStateBase = SimStateBase> {
  id: SimulatorId;
  controls: readonly ControlDef[];
  /** Deal order: the first roles go to the first players. */
  roles: readonly RoleDef[];
  indicators: readonly IndicatorDef[];
  scenarios: readonly ScenarioDef[];
  /** The model's named timelines (shocks in code) a scenario may play with `timeline` (docs/scenarios.md). */
  timelines?: readonly string[];
  /** The team's ledger (its lines are indicators of `indicators`). */
  ledger: LedgerDef;
  defaultMinutes: number;
  /** Indicator keys the CLI's table shows after the headline ones. */
  tableColumns: readonly string[];
  /**
   * A headline figure's status by its own thresholds. `Snapshot.status` can be harsher: a collapse reads
   * critical throughout; where the two differ, the collapse is why (screens say so, and show this one).
   */
  ownStatus(key: string, value: number): Status;
  /**
   * Why pressing or setting `key` would do nothing after minute `s` (an id the screens put in words,
   * e.g. 'nothing-to-roll-back'), or null when it would act. Only what the snapshot shows decides.
   */
  idle?(key: string, s: Snapshot): string | null;
  /** The state at minute 0, whose snapshot is the opening screen. Changes are already validated. */
  create(opts: CreateOptions): S;
  /** The next minute: apply the (validated) changes, simulate, return a new state. Pure. */
  step(state: S, changes: readonly ControlChange[]): S;
}

/** A simulator's description without its engine: what a screen needs (the browser never simulates). */
export type SimMeta = Omit<SimModel, 'create' | 'step' | 'scenarios'> & { scenarios: readonly ScenarioFace[] };

export interface GoalResult {
  id: string;
  indicator: string;
  op: '>=' | '<=';
  value: number;
  target: number;
  met: boolean;
}
export interface RoundResult {
  goals: GoalResult[];
  /** Leaderboard score (see docs/scoring.md); null in free play. */
  score: number | null;
}
