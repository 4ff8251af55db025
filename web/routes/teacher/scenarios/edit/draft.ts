// The editor's pure helpers (node tests load them): a draft from any scenario ("duplicate and tweak"), ids that
// do not collide, a new shock or goal of a kind the model has, the strip's geometry, a goal's target in the
// units the desk shows, and the file's two quick checks (schema, meaning) as one list for the page.
import { checkScenario } from '$shared/scenarios/check.ts';
import { SCHEMA_PATH, type ScenarioFile, scenarioJsonSchema } from '$shared/scenarios/format.ts';
import { ScenarioFileError, type Issue } from '$shared/scenarios/load.ts';
import { episodeSpans, type EpisodeLike, type EpisodeSpan } from '$shared/scenarios/meaning.ts';
import type { IndicatorDef, ScenarioDef, SimulatorId } from '$shared/sim/types.ts';

/** A file as the editor holds it: the scenario file's shape, possibly wrong in places while it is typed. */
export type Draft = ScenarioFile;
export type Episode = NonNullable<Draft['shocks']>['episodes'][number];

const ID_MAX = 40;

/** `base`, or `base-2`, `base-3`… — the first not taken, within the format's 40 characters. */
export function uniqueId(base: string, taken: ReadonlySet<string>): string {
  const stem = base.slice(0, ID_MAX);
  if (!taken.has(stem)) return stem;
  for (let n = 2; ; n++) {
    const tail = `-${n}`;
    const id = `${stem.slice(0, ID_MAX - tail.length).replace(/-+$/, '')}${tail}`;
    if (!taken.has(id)) return id;
  }
}

/**
 * A copy of a scenario to tweak: its own id (`<id>-copy`, or the next free one), without what only built-ins
 * carry (retired, score rule 1, a level), the schema's address set. A built-in whose shocks are code (the seed's
 * levels, the retired shifts: their timeline is their own id) names that timeline.
 */
export function duplicateOf(file: Draft, taken: ReadonlySet<string>, builtIn: boolean): Draft {
  const { retired: _r, scoreRule: _s, ...rest } = structuredClone(file) as Draft & { level?: number };
  const copy = { ...rest, $schema: SCHEMA_PATH, id: uniqueId(`${file.id}-copy`, taken) } as Draft & { level?: number };
  delete copy.level;
  if (builtIn && !file.shocks && file.timeline === undefined && file.kind !== 'free') copy.timeline = file.id;
  return copy as Draft;
}

/** The first shock of each kind a new line starts from (sizes and times of the full shifts). */
export const EPISODE_KINDS: Record<SimulatorId, Record<string, Episode>> = {
  'payment-switch': {
    sale: { kind: 'sale', start: [20, 25], length: [7, 9], size: [1.8, 2.4], warn: [5, 7] },
    flash: { kind: 'flash', start: [20, 25], length: [3, 5], size: [1, 1.5] },
    bots: { kind: 'bots', start: [20, 25], length: [8, 10], size: [5, 8], warn: [5, 6] },
    attack: { kind: 'attack', start: [20, 25], length: [7, 9], share: [0.025, 0.04], learn: [4, 5], ramp: [6, 8] },
    issuer: { kind: 'issuer', start: [20, 25], length: [14, 16], meanS: [2.5, 3.5], ramp: [3, 4] },
    backlog: { kind: 'backlog', after: 0, length: [4, 6], size: [0.3, 0.5] },
  },
  'web-service': {
    surge: { kind: 'surge', start: [20, 25], length: [10, 13], size: [1.7, 2.1], ramp: [7, 9], warn: [6, 8] },
    crawl: { kind: 'crawl', start: [20, 25], length: [6, 9], size: [1.2, 1.6], ramp: [4, 6] },
    db: { kind: 'db', start: [20, 25], length: [8, 10], size: [0.4, 0.6], ramp: [2, 3] },
    flush: { kind: 'flush', start: [20, 25], size: [0.5, 0.7], ramp: [5, 8] },
    'no-autoscaler': { kind: 'no-autoscaler', start: [0, 0], length: [61, 61] },
    train: { kind: 'train', start: [6, 10], every: [6, 9], count: 7, bad: 3, error: [0.1, 0.16] },
  },
} as Record<SimulatorId, Record<string, Episode>>;

/** What a scenario without shocks gets when its first shock is added: a full shift's setting. */
export const DEFAULT_SETTING: Record<SimulatorId, NonNullable<Draft['shocks']>['setting']> = {
  'payment-switch': {
    groupBMeanS: 0.5,
    ownServers: 12,
    burstPerHour: 120,
    shedRetry: 0.9,
    backoffRetry: 0.5,
    lowPriority: 0.1,
    standInFee: 0.002,
    retryP: 0.6,
    retryUnavailable: false,
  },
  'web-service': { clock: 670, bootMinutes: 4, budget: 0.5 },
} as Record<SimulatorId, NonNullable<Draft['shocks']>['setting']>;

/** A new shock of `kind` (a kind of the draft's model), appended; a scenario with a named timeline leaves it. */
export function addEpisode(draft: Draft, kind: string): void {
  const template = EPISODE_KINDS[draft.simulator][kind];
  if (!template) throw new Error(`${draft.simulator} has no shock "${kind}"`);
  const episode = structuredClone(template);
  if (draft.shocks) (draft.shocks.episodes as Episode[]).push(episode);
  else {
    delete draft.timeline;
    draft.shocks = {
      setting: structuredClone(DEFAULT_SETTING[draft.simulator]),
      episodes: [episode],
    } as Draft['shocks'];
  }
}

/**
 * Removes shock `i`; later references (`after`, `notAs`) to it or beyond are renumbered — a reference to the
 * removed one is left for the checks to name.
 */
export function removeEpisode(draft: Draft, i: number): void {
  if (!draft.shocks) return;
  const list = draft.shocks.episodes as Episode[];
  list.splice(i, 1);
  const shift = (n: number) => (n > i ? n - 1 : n);
  for (const e of list) {
    const x = e as Record<string, unknown>;
    if (typeof x.after === 'number') x.after = shift(x.after);
    const s = x.start as { after?: number } | undefined;
    if (s && typeof s === 'object' && !Array.isArray(s) && typeof s.after === 'number') s.after = shift(s.after);
    for (const f of ['size', 'share', 'meanS']) {
      const v = x[f] as { notAs?: number } | undefined;
      if (v && typeof v === 'object' && !Array.isArray(v) && typeof v.notAs === 'number') v.notAs = shift(v.notAs);
    }
  }
  if (list.length === 0) delete draft.shocks;
}

/** A new goal on `indicator`, with an id not taken. */
export function addGoal(draft: Draft, indicator: string): void {
  const ids = new Set(draft.goals.map((g) => g.id));
  draft.goals.push({
    id: uniqueId(indicator, ids).replace(/-/g, ''),
    indicator,
    aggregate: 'mean',
    op: '>=',
    target: 0,
  });
}

/** Removes goal `i` and its lines in every brief. */
export function removeGoal(draft: Draft, i: number): void {
  const [gone] = draft.goals.splice(i, 1);
  for (const b of Object.values(draft.briefs)) if (b?.goals && gone) delete b.goals[gone.id];
}

/** A target in the desk's units (a share in %), and back to the file's base unit. */
export const toShown = (value: number, ind: IndicatorDef | undefined): number =>
  ind ? Number((value * ind.display.scale).toFixed(Math.max(ind.display.digits, 0) + 2)) : value;
export const fromShown = (value: number, ind: IndicatorDef | undefined): number =>
  ind ? Number((value / ind.display.scale).toPrecision(12)) : value;

/** Where each shock sits on the strip: its possible start, its possible end (minutes), clipped to the round. */
export interface StripItem {
  index: number;
  kind: string;
  span: EpisodeSpan | null;
}
export function stripOf(draft: Draft): StripItem[] {
  const episodes = (draft.shocks?.episodes ?? []) as readonly EpisodeLike[];
  const spans = episodeSpans(episodes);
  return episodes.map((e, index) => ({ index, kind: e.kind, span: spans[index] ?? null }));
}

/** One thing the quick checks found, for the page: where (a field path), what, and whether it blocks saving. */
export interface DraftFinding {
  level: 'error' | 'warning';
  path: string;
  message: string;
  /** Which check: the schema (types, ranges, fields) or the meaning (against the model). */
  depth: 'schema' | 'meaning';
}
export interface DraftCheck {
  findings: DraftFinding[];
  /** The checked file and its definition, to dry-run, when nothing blocks. */
  file: ScenarioFile | null;
  def: ScenarioDef | null;
}

/** The schema and the meaning checks of the draft, as the server runs them on save. */
export function checkDraft(draft: unknown): DraftCheck {
  try {
    const { file, def, findings } = checkScenario(JSON.parse(JSON.stringify(draft)));
    const blocking = findings.some((f) => f.level === 'error');
    const listed = findings.map((f): DraftFinding => ({ ...f, depth: 'meaning' }));
    return blocking ? { findings: listed, file: null, def: null } : { findings: listed, file, def };
  } catch (e) {
    if (!(e instanceof ScenarioFileError)) throw e;
    const findings = e.issues.map((i: Issue): DraftFinding => ({ level: 'error', depth: 'schema', ...i }));
    return { findings, file: null, def: null };
  }
}

/** One term of the shocks' setting (the payment switch's shift terms, the web service's day), as the schema bounds it. */
export interface SettingField {
  key: string;
  type: 'number' | 'integer' | 'boolean';
  min?: number;
  max?: number;
  optional: boolean;
}

const SETTING_DEFS: Record<SimulatorId, string> = {
  'payment-switch': 'paymentSwitchTerms',
  'web-service': 'webServiceDay',
};
let settingCache: Partial<Record<SimulatorId, SettingField[]>> = {};

/** The setting's terms with their bounds, read from the published JSON Schema (one source: format.ts). */
export function settingFields(sim: SimulatorId): SettingField[] {
  const cached = settingCache[sim];
  if (cached) return cached;
  type Prop = { type?: string; minimum?: number; maximum?: number };
  const defs = (scenarioJsonSchema().$defs ?? {}) as Record<
    string,
    { properties: Record<string, Prop>; required?: string[] }
  >;
  const def = defs[SETTING_DEFS[sim]];
  const fields = Object.entries(def?.properties ?? {}).map(([key, p]) => ({
    key,
    type: (p.type ?? 'number') as SettingField['type'],
    ...(p.minimum !== undefined ? { min: p.minimum } : {}),
    ...(p.maximum !== undefined ? { max: p.maximum } : {}),
    optional: !(def?.required ?? []).includes(key),
  }));
  settingCache = { ...settingCache, [sim]: fields };
  return fields;
}

/** A built-in's words as the app has them in one language (its name, brief and each goal's line with `{target}`). */
export interface AppWords {
  name: string;
  brief: string;
  goals: Record<string, string>;
}

/**
 * A copy of a built-in takes the app's words in the reader's language (the server's file of a built-in carries
 * English at most, and a built-in still in code carries its id): the teacher starts from what the class reads.
 */
export function withAppWords(draft: Draft, lang: string, words: AppWords): Draft {
  const goals = Object.fromEntries(draft.goals.filter((g) => words.goals[g.id]).map((g) => [g.id, words.goals[g.id]]));
  const brief = { name: words.name, brief: words.brief, ...(Object.keys(goals).length ? { goals } : {}) };
  return { ...draft, briefs: { ...draft.briefs, [lang]: brief } };
}
