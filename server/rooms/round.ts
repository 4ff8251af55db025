// A round's teams as values: minute 0 of a team, its next minute, a team rebuilt by re-simulation, and
// a finished team read back from its stored minutes.
import { createRound, stepRound } from '../../shared/sim/engine.ts';
import { ledgerAt } from '../../shared/classroom/ledger.ts';
import { evaluateTallies, noTallies, scoreRuleOf, tallyGoals, type GoalTallies } from '../../shared/sim/score.ts';
import type { ChangeRecord, RoundConfig } from '../../shared/protocol/types.ts';
import type { ControlChange, SimStateBase, Snapshot } from '../../shared/sim/types.ts';
import type { RoundRecord } from '../db/records.ts';
import type { TeamResultRecord } from '../db/records.ts';
import type { Write } from '../db/writes.ts';
import { AppendOnly } from './append-only.ts';
import { roundBaseline, type RoundBaseline } from './baseline.ts';
import { builtInContent, playOf, type ScenarioContent } from './scenario-content.ts';
import type { RoundRun, TeamRun } from './state.ts';

export interface TeamSeat {
  teamId: number;
  idx: number;
  name: string;
}

/** The references of a round that has started (its seed and length are fixed then). */
export function baselineOf(round: Pick<RoundRun, 'model' | 'scenario' | 'seed' | 'minutes' | 'noise'>): RoundBaseline {
  if (round.seed === null) throw new Error('a round without a seed has no baseline');
  return roundBaseline(round.model, {
    scenario: round.scenario,
    seed: round.seed,
    minutes: round.minutes,
    noise: round.noise,
  });
}

/**
 * The content a new round of this configuration plays: a built-in's as this code has it, else the teacher's own
 * scenario given (`authored`, when its id is the configuration's). Throws for a scenario that is neither.
 */
export function contentFor(
  config: Pick<RoundConfig, 'simulator' | 'scenario'>,
  authored?: ScenarioContent | null,
): ScenarioContent {
  const builtIn = builtInContent(config.simulator, config.scenario);
  if (builtIn) return builtIn;
  if (authored && authored.file.id === config.scenario && authored.simulator === config.simulator) return authored;
  throw new Error(`no content for scenario "${config.scenario}" of ${config.simulator}`);
}

/** A new round's row, in the lobby with the room's configuration: a room's first round, or the next one. */
export function lobbyRound(
  config: RoundConfig,
  round: { id: number; roomId: number; number: number; createdAt: number },
  content: ScenarioContent,
): RoundRecord {
  const { simulator, scenario, seed, minutes, tempo } = config;
  return {
    id: round.id,
    roomId: round.roomId,
    number: round.number,
    simulator,
    scenario,
    scenarioHash: content.hash,
    seed,
    minutes,
    tempo,
    noise: true,
    state: 'lobby',
    minute: -1,
    createdAt: round.createdAt,
    startedAt: null,
    finishedAt: null,
    forkOf: null,
  };
}

/** A new round's writes: its content (unless stored already), then its row, which refers to it. */
export function insertRound(row: RoundRecord, content: ScenarioContent | null, at: number): Write[] {
  if (!content) return [{ op: 'insertRound', round: row }];
  const { hash, simulator, text } = content;
  return [
    { op: 'insertContent', content: { hash, simulator, text }, at },
    { op: 'insertRound', round: row },
  ];
}

/**
 * A round as stored, with no team playing yet (a lobby, or before its teams are rebuilt), playing `content` (the
 * content of its hash, read by the caller; a built-in's is found here).
 */
export function roundRun(row: RoundRecord, content?: ScenarioContent): RoundRun {
  const own = content ?? (row.scenarioHash === null ? undefined : builtInContent(row.simulator, row.scenario));
  if (row.scenarioHash !== null && own?.hash !== row.scenarioHash)
    throw new Error(`round ${row.id}: its scenario content ${row.scenarioHash} was not read`);
  const { model, def } = playOf(row.simulator, row.scenario, own);
  const started = row.state !== 'lobby' && row.seed !== null;
  return {
    id: row.id,
    number: row.number,
    state: row.state,
    simulator: row.simulator,
    scenario: row.scenario,
    seed: row.seed,
    noise: row.noise,
    minutes: row.minutes,
    tempo: row.tempo,
    minute: row.minute,
    forkOf: row.forkOf,
    model,
    scenarioDef: def,
    content: own ?? null,
    baseline: started
      ? baselineOf({ model, scenario: row.scenario, seed: row.seed, minutes: row.minutes, noise: row.noise })
      : null,
    teams: new Map(),
    finishedAt: row.finishedAt,
    roleChanges: AppendOnly.of(),
    members: new Map(),
    messages: AppendOnly.of(),
    changeSeq: 0,
    seatTurns: AppendOnly.of(),
    autopilot: new Map(),
  };
}

/** The model's headline indicators, in order: the teacher's trends keep these of every minute (TeamRun.headlines). */
export function headlineKeys(model: RoundRun['model']): readonly string[] {
  return model.indicators.filter((i) => i.headline).map((i) => i.key);
}
const headlinesOf = (model: RoundRun['model'], s: Snapshot): number[] =>
  headlineKeys(model).map((k) => s.indicators[k]);

/** A team's minutes `0…n` at once (minute 0 of a round, or a round read back or re-simulated): tallied over all of them. */
function fromMinutes(
  round: RoundRun,
  seat: TeamSeat,
  sim: TeamRun['sim'],
  minutes: readonly Snapshot[],
  changes: readonly ChangeRecord[],
): TeamRun {
  const headlines: number[] = [];
  for (const s of minutes) headlines.push(...headlinesOf(round.model, s));
  const goals = round.scenarioDef.goals;
  let now = noTallies(goals);
  for (const s of minutes) now = tallyGoals(goals, now, s);
  const last = minutes.at(-1);
  if (!last) throw new RangeError(`team ${seat.teamId} of round ${round.id} has no minute`);
  const { idx, name } = seat;
  return evaluated(round, seat.teamId, idx, name, sim, last, AppendOnly.of(headlines), AppendOnly.of(changes), now);
}

/**
 * The team evaluated over its minutes so far against the round's baseline (live progress, or the verdict at
 * the end), its fields given one by one: a minute makes one TeamRun (a literal of one shape), not a copy of the
 * last one spread and spread again (the tick's path, 2,500 team-minutes a second at 10,000 students).
 * `now`: the goals' tallies up to `last`.
 */
function evaluated(
  round: RoundRun,
  teamId: number,
  idx: number,
  name: string,
  sim: TeamRun['sim'],
  last: Snapshot,
  headlines: TeamRun['headlines'],
  changes: TeamRun['changes'],
  now: GoalTallies,
): TeamRun {
  const base = round.baseline;
  if (!base) throw new Error(`round ${round.id} has teams but no baseline`);
  const r = evaluateTallies(round.scenarioDef, now, last, base.run);
  const team: TeamRun = {
    teamId,
    idx,
    name,
    sim,
    snapshot: last,
    headlines,
    changes,
    progress: r.goals,
    score: r.score,
    ledger: ledgerAt(last, round.model.ledger.total, base.series, scoreRuleOf(round.scenarioDef)),
    tallies: now,
  };
  return team;
}

/** A team at minute 0 of a round. */
export function openTeam(
  round: RoundRun,
  seat: TeamSeat,
  seed: number,
  changes: readonly ChangeRecord[] = [],
): TeamRun {
  const sim = createRound(round.model, { scenario: round.scenario, seed, noise: round.noise });
  return fromMinutes(round, seat, sim, [sim.snapshot], changes);
}

/** The team one minute on, with the changes recorded for that minute. */
export function advanceTeam(round: RoundRun, t: TeamRun, minute: number): TeamRun {
  if (!t.sim) throw new Error(`team ${t.teamId} of round ${round.id} was read from its stored minutes: it cannot step`);
  const due: ControlChange[] = [];
  // Indexed, not iterated: no iterator allocated per team-minute on the tick's path.
  for (let i = 0; i < t.changes.length; i++) {
    const c = t.changes.at(i);
    if (c?.minute === minute) due.push({ key: c.key, value: c.value });
  }
  const sim: SimStateBase = stepRound(round.model, t.sim, due);
  const s = sim.snapshot;
  const now = tallyGoals(round.scenarioDef.goals, t.tallies, s);
  const headlines = t.headlines.appendAll(headlinesOf(round.model, s));
  return evaluated(round, t.teamId, t.idx, t.name, sim, s, headlines, t.changes, now);
}

/** A team re-simulated from `seed` and its recorded changes up to `minute`; `each` sees every minute on the way. */
function replayTeam(
  round: RoundRun,
  seat: TeamSeat,
  seed: number,
  changes: readonly ChangeRecord[],
  minute: number,
  each: (s: Snapshot) => void,
): TeamRun {
  let t = openTeam(round, seat, seed, changes);
  each(t.snapshot);
  for (let m = 1; m <= minute; m++) {
    t = advanceTeam(round, t, m);
    each(t.snapshot);
  }
  return t;
}

/**
 * Re-simulates a team from its seed and recorded changes up to `minute` and compares each minute
 * with what was stored. Returns the rebuilt team and the minutes that differ.
 */
export function rebuildTeam(
  round: RoundRun,
  seat: TeamSeat,
  seed: number,
  changes: readonly ChangeRecord[],
  stored: ReadonlyMap<number, string>,
  minute: number,
): { team: TeamRun; mismatches: number[] } {
  const mismatches: number[] = [];
  const team = replayTeam(round, seat, seed, changes, minute, (s) => {
    if (stored.get(s.minute) !== JSON.stringify(s)) mismatches.push(s.minute);
  });
  return { team, mismatches };
}

/**
 * A team's minutes `0…` its latest from their stored rows (MinuteRecord), as they were seen. Should one be
 * missing (a finished round whose load re-simulated it, load.ts), they are all re-simulated from the round's
 * seed and the team's changes.
 */
export function storedMinutes(
  round: RoundRun,
  t: TeamRun,
  rows: readonly { minute: number; data: string }[],
): Snapshot[] {
  const upTo = t.snapshot.minute;
  const byMinute = new Map(rows.map((r) => [r.minute, r.data]));
  const out: Snapshot[] = [];
  for (let m = 0; m <= upTo; m++) {
    const data = byMinute.get(m);
    if (data === undefined) break;
    out.push(JSON.parse(data) as Snapshot);
  }
  if (out.length === upTo + 1) return out;
  if (round.seed === null) throw new Error(`round ${round.id} has teams but no seed`);
  const replayed: Snapshot[] = [];
  replayTeam(round, t, round.seed, t.changes.toArray(), upTo, (s) => replayed.push(s));
  return replayed;
}

/**
 * A team of a finished round as it was stored, without simulating: its minutes `0…minute` parsed from
 * the stored snapshots, goals evaluated once over them. Null when a minute is missing (the caller then
 * re-simulates).
 */
export function storedTeam(
  round: RoundRun,
  seat: TeamSeat,
  changes: readonly ChangeRecord[],
  stored: ReadonlyMap<number, string>,
  minute: number,
): TeamRun | null {
  const snapshots: Snapshot[] = [];
  for (let m = 0; m <= minute; m++) {
    const data = stored.get(m);
    if (data === undefined) return null;
    snapshots.push(JSON.parse(data) as Snapshot);
  }
  return fromMinutes(round, seat, null, snapshots, changes);
}

/**
 * A finished team with the verdict stored when its round ended: rounds scored before the baseline existed
 * keep the score they were given.
 */
export function withStoredResult(t: TeamRun, stored: TeamResultRecord | undefined): TeamRun {
  return stored ? withTeam(t, { progress: stored.goals, score: stored.score }) : t;
}

/** The team with other fields than its minutes (a change recorded, a new name, a stored verdict). */
export function withTeam(
  t: TeamRun,
  patch: Partial<Pick<TeamRun, 'changes' | 'name' | 'progress' | 'score'>>,
): TeamRun {
  return { ...t, ...patch };
}

/** Every team's final goals and score, as stored when a round ends. */
export function results(round: RoundRun): TeamResultRecord[] {
  return [...round.teams.values()].map((t) => ({ teamId: t.teamId, goals: [...t.progress], score: t.score }));
}
