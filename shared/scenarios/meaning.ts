// The second depth of a scenario's checks: what the schema cannot see — references that must resolve (controls,
// indicators, roles, earlier episodes, goals a brief names), times inside the round, starting controls in their
// ranges, a named timeline the model has. Errors block (the file is refused); warnings say what a teacher may
// not have meant. Pure: the browser runs it on the model's description.
import { ControlError, validateChange } from '../sim/controls.ts';
import type { SimMeta } from '../sim/types.ts';
import type { ScenarioFile } from './format.ts';

export interface Finding {
  level: 'error' | 'warning';
  /** The field, e.g. `shocks.episodes[3].start` (empty: the whole scenario). */
  path: string;
  message: string;
}

export interface MeaningOptions {
  /** Checking a built-in: its id is its own, and it may be retired or keep score rule 1. */
  builtIn?: boolean;
}

/** A [low, high] of whole minutes; `after` references an earlier episode's start or end bounds. */
export type Bounds = readonly [number, number];
type StartSpec = Bounds | { after: number; from: 'start' | 'end'; gap: Bounds };
export interface EpisodeLike {
  kind: string;
  start?: StartSpec;
  length?: Bounds;
  after?: number;
  warn?: Bounds;
  count?: number;
  bad?: number;
  size?: unknown;
  share?: unknown;
  meanS?: unknown;
}

export function checkMeaning(meta: SimMeta, file: ScenarioFile, opts: MeaningOptions = {}): Finding[] {
  const out: Finding[] = [];
  const error = (path: string, message: string) => out.push({ level: 'error', path, message });
  const warn = (path: string, message: string) => out.push({ level: 'warning', path, message });
  const minutes = file.minutes ?? meta.defaultMinutes;
  const builtIn = meta.scenarios.find((s) => s.id === file.id);

  if (!opts.builtIn) {
    if (builtIn) error('id', `"${file.id}" is a built-in scenario's id: give your scenario its own`);
    if (file.retired) error('retired', 'only built-in scenarios are retired (kept for their stored rounds)');
    if (file.scoreRule === 1) error('scoreRule', 'score rule 1 is kept for retired built-ins; new scenarios use 2');
  }

  // Starting controls: known, settable, in range and on their step.
  for (const [key, value] of Object.entries(file.controls ?? {})) {
    const def = meta.controls.find((c) => c.key === key);
    if (!def) error(`controls.${key}`, `${meta.id} has no control "${key}"`);
    else if (def.kind === 'action') error(`controls.${key}`, `"${key}" is a button: it has no starting value`);
    else {
      try {
        validateChange(meta, { key, value });
      } catch (e) {
        if (!(e instanceof ControlError)) throw e;
        error(`controls.${key}`, e.message);
      }
    }
  }

  // What happens: shocks of the model's library, or one of its named timelines — not both.
  const timelines = meta.timelines ?? [];
  if (file.shocks && file.timeline !== undefined)
    error('timeline', 'a scenario has its own shocks or a named timeline, not both');
  if (file.timeline !== undefined && !timelines.includes(file.timeline))
    error('timeline', `${meta.id} has no timeline "${file.timeline}"; timelines are: ${timelines.join(', ')}`);
  const ownTimeline = file.timeline ?? (opts.builtIn ? file.id : undefined);
  if (!file.shocks && (ownTimeline === undefined || !timelines.includes(ownTimeline)) && file.kind !== 'free')
    warn('shocks', 'nothing happens in this scenario: it has no shocks and no timeline');
  if (file.shocks) checkEpisodes(file.shocks.episodes as readonly EpisodeLike[], minutes, error, warn);

  // Goals: on indicators the model has, inside the round, shares between 0 and 1.
  if (file.kind === 'free' && file.goals.length > 0) error('goals', 'free play has no goals');
  if (file.kind !== 'free' && file.goals.length === 0) error('goals', 'a scenario that is not free play needs a goal');
  const goalIds = new Set<string>();
  file.goals.forEach((g, i) => {
    const at = `goals[${i}]`;
    if (goalIds.has(g.id)) error(`${at}.id`, `a second goal "${g.id}"`);
    goalIds.add(g.id);
    const ind = meta.indicators.find((x) => x.key === g.indicator);
    if (!ind) {
      error(`${at}.indicator`, `${meta.id} has no indicator "${g.indicator}"`);
      return;
    }
    if (g.from !== undefined && g.from > minutes)
      error(`${at}.from`, `the window starts at minute ${g.from}, after the round's last minute ${minutes}`);
    if (g.from !== undefined && g.aggregate === 'final')
      warn(`${at}.from`, 'a window only matters to a mean: a final goal reads the last minute');
    const isShare = ind.display.unit === '%' && ind.display.scale === 100;
    if (isShare && (g.target < 0 || g.target > 1))
      error(`${at}.target`, `${g.indicator} is a share: a target between 0 and 1 (0.95 is 95 %)`);
    if (g.target < 0 && !isShare) warn(`${at}.target`, `${g.indicator} is never below 0`);
    if (ind.trend === 'rising' && g.op === '>=' && g.aggregate === 'final')
      warn(`${at}.op`, `${g.indicator} only rises: "at least" at the end is met by waiting`);
  });

  // Messages inside the round.
  file.messages?.forEach((m, i) => {
    if (m.minute > minutes)
      error(`messages[${i}].minute`, `minute ${m.minute} is after the round's last minute ${minutes}`);
  });

  // Roles: the model's, each once, with the model's controls (the autopilot and the role policies play them),
  // seeing indicators the model has.
  if (file.roles) checkRoles(meta, file.roles, error);

  // Words: every goal a brief names exists.
  for (const [lang, b] of Object.entries(file.briefs)) {
    if (!b?.goals) continue;
    for (const id of Object.keys(b.goals))
      if (!goalIds.has(id)) error(`briefs.${lang}.goals.${id}`, `there is no goal "${id}"`);
  }
  return out;
}

function checkRoles(
  meta: SimMeta,
  roles: NonNullable<ScenarioFile['roles']>,
  error: (path: string, message: string) => void,
): void {
  const seen = new Set<string>();
  roles.forEach((r, i) => {
    const model = meta.roles.find((x) => x.id === r.id);
    if (!model) {
      error(`roles[${i}].id`, `${meta.id} has no role "${r.id}"; roles are: ${meta.roles.map((x) => x.id).join(', ')}`);
      return;
    }
    if (seen.has(r.id)) error(`roles[${i}].id`, `role "${r.id}" is listed twice`);
    seen.add(r.id);
    const own = [...model.controls].sort().join(', ');
    if ([...r.controls].sort().join(', ') !== own)
      error(
        `roles[${i}].controls`,
        `${r.id} owns ${own}: a role keeps its controls (the autopilot and the bots play them)`,
      );
    r.sees.forEach((k, j) => {
      if (!meta.indicators.some((x) => x.key === k))
        error(`roles[${i}].sees[${j}]`, `${meta.id} has no indicator "${k}"`);
    });
  });
  for (const r of meta.roles)
    if (!seen.has(r.id)) error('roles', `role "${r.id}" is missing: list every role, or none (the model's)`);
}

/** When an episode can happen: the earliest and latest minute it starts and ends (null: it refers to no earlier one). */
export interface EpisodeSpan {
  start: Bounds;
  end: Bounds;
}

/**
 * Each episode's span, as the draws allow it (an editor's timeline draws them): a release train spans its first
 * build to its last; a backlog follows the episode it names. `after` and `notAs` count drawn episodes, which a
 * train is not.
 */
export function episodeSpans(episodes: readonly EpisodeLike[]): (EpisodeSpan | null)[] {
  const drawn: EpisodeSpan[] = [];
  return episodes.map((e) => {
    if (e.kind === 'train') {
      const s = e.start as Bounds;
      const every = (e as { every?: Bounds }).every ?? [0, 0];
      const n = Math.max(0, (e.count ?? 1) - 1);
      return { start: s, end: [s[0] + n * every[0], s[1] + n * every[1]] };
    }
    const len = e.length ?? [0, 0];
    const ref = e.kind === 'backlog' ? drawn[e.after ?? -1] : undefined;
    const start = e.kind === 'backlog' ? (ref?.end ?? null) : e.start ? startBounds(e.start, drawn) : null;
    const span = start ? { start, end: [start[0] + len[0], start[1] + len[1]] as Bounds } : null;
    drawn.push(span ?? { start: [0, 0], end: [0, 0] });
    return span;
  });
}

/** Earliest and latest minute a start can fall on, with the episodes before it known. */
function startBounds(s: StartSpec, drawn: readonly { start: Bounds; end: Bounds }[]): Bounds | null {
  if (Array.isArray(s)) return s as Bounds;
  const spec = s as Exclude<StartSpec, Bounds>;
  const ref = drawn[spec.after];
  if (!ref) return null;
  const base = spec.from === 'start' ? ref.start : ref.end;
  return [base[0] + spec.gap[0], base[1] + spec.gap[1]];
}

function checkEpisodes(
  episodes: readonly EpisodeLike[],
  minutes: number,
  error: (path: string, message: string) => void,
  warn: (path: string, message: string) => void,
): void {
  // What `after` and `notAs` count: the drawn episodes (a web service's release train is not one of them).
  const drawn: { start: Bounds; end: Bounds }[] = [];
  episodes.forEach((e, i) => {
    const at = `shocks.episodes[${i}]`;
    const index = drawn.length;
    for (const field of ['size', 'share', 'meanS'] as const) {
      const spec = e[field] as { notAs?: number; oneOf?: unknown[] } | undefined;
      if (spec && typeof spec === 'object' && 'notAs' in spec && spec.notAs !== undefined) {
        if (spec.notAs >= index)
          error(`${at}.${field}.notAs`, `episode ${spec.notAs} is not an earlier episode (this one is ${index})`);
        else if ((spec.oneOf?.length ?? 0) < 2)
          error(`${at}.${field}.oneOf`, 'notAs needs at least two ranges to choose from');
      }
    }
    if (e.kind === 'train') {
      const s = e.start as Bounds;
      if (s[0] > minutes) error(`${at}.start`, `the first build is due after the round's last minute ${minutes}`);
      if ((e.bad ?? 0) > (e.count ?? 0)) error(`${at}.bad`, `${e.bad} bad builds of ${e.count}`);
      return;
    }
    if (e.kind === 'backlog') {
      const ref = drawn[e.after ?? -1];
      if (!ref || (e.after ?? 0) >= index) {
        error(`${at}.after`, `episode ${e.after} is not an earlier episode (this one is ${index})`);
        drawn.push({ start: [0, 0], end: [0, 0] });
        return;
      }
      const len = e.length ?? [0, 0];
      drawn.push({ start: ref.end, end: [ref.end[0] + len[0], ref.end[1] + len[1]] });
      if (ref.end[0] > minutes) warn(`${at}.after`, 'it follows an episode that ends after the round');
      return;
    }
    const bounds = e.start ? startBounds(e.start, drawn) : null;
    if (!bounds) {
      const after = (e.start as { after: number }).after;
      error(`${at}.start.after`, `episode ${after} is not an earlier episode (this one is ${index})`);
      drawn.push({ start: [0, 0], end: [0, 0] });
      return;
    }
    const len = e.length ?? [0, 0];
    drawn.push({ start: bounds, end: [bounds[0] + len[0], bounds[1] + len[1]] });
    if (bounds[0] > minutes) error(`${at}.start`, `it starts after the round's last minute ${minutes}`);
    else if (bounds[1] > minutes)
      warn(`${at}.start`, `on some seeds it starts after the round's last minute ${minutes}`);
    if (e.warn && bounds[0] - e.warn[1] < 0)
      warn(`${at}.warn`, 'on some seeds its announcement would fall before minute 0 (nobody sees it)');
  });
}
