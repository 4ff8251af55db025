// A team of seats playing a round: every minute each seat reads its own split view and the changes it hands
// back apply from the next minute, validated by the engine like a student's (the round runs in `runPlay`).
import type { ScheduledChange, SimModel, SimStateBase, Snapshot } from '../sim/types.ts';
import { EMPTY_PLAY, runPlay, type Hold, type Play, type RoundSpec } from '../design/play.ts';
import type { Seat, Skill } from './types.ts';

/** One seat per role of the model, all of one skill and delay; seat seeds follow from `seed`. */
export function teamOf(model: SimModel, skill: Skill, delay: number, seed: number): Seat[] {
  return model.roles.map((r, i) => ({ model: model.id, role: r.id, skill, delay, seed: seed * 31 + i }));
}

/**
 * Plays a round with a team of seats (any subset of the roles; roles without a seat change nothing unless
 * `play` changes them). With `hold`, changes of its keys due in its minutes wait until its end.
 */
export function playTeam<S extends SimStateBase>(
  model: SimModel<S>,
  spec: RoundSpec,
  seats: readonly Seat[],
  opts: { play?: Play; hold?: Hold } = {},
): { snapshots: Snapshot[]; applied: ScheduledChange[] } {
  return runPlay(model, spec, opts.play ?? EMPTY_PLAY, { seats, ...(opts.hold ? { hold: opts.hold } : {}) });
}
