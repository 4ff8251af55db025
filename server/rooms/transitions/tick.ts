// One simulated minute for every team: stepped with the changes recorded for it, stored in one
// transaction with the round's minute (and, at the last minute, its scores and finished state),
// then sent. The room's timer asks for it; the teacher's `step` plays it while paused.
import { emit } from '../output.ts';
import { unchanged, type Transition, type TransitionCtx } from '../commands.ts';
import { advanceTeam, results } from '../round.ts';
import type { MinuteRecord } from '../../db/records.ts';
import type { RoundRun, TeamRun } from '../state.ts';
import { teamMinutes } from '../split-view.ts';
import { roomMinute, roundScores } from '../views.ts';
import type { Snapshot } from '../../../shared/sim/types.ts';
import { Draft } from './draft.ts';
import { autopilotMinute } from './pilot.ts';

/** Every team's minute to its members (split-view.ts), the teacher's view of all of them, the observers' summary. */
export function sendMinute(d: Draft, r: RoundRun, sentAt: number): void {
  d.send(...teamMinutes(d.state, r, sentAt));
  d.send(emit({ kind: 'teacher' }, 'room:minute', roomMinute(r, sentAt)), { kind: 'summary', round: r, sentAt });
}

/** The round's end: its state and every team's result stored, the scores sent to everyone. */
export function finish(d: Draft, at: number, also: { minute?: number } = {}): void {
  d.patchRound({ state: 'finished', finishedAt: at });
  const r = d.state.round;
  d.write(
    { op: 'updateRound', id: r.id, set: { ...also, state: 'finished', finishedAt: at } },
    { op: 'insertResults', roundId: r.id, results: results(r) },
  );
  d.send({ kind: 'room' }, emit({ kind: 'all' }, 'scores', roundScores(r)));
}

export function playMinute(d: Draft, sentAt: number, ctx: TransitionCtx): void {
  const r = d.state.round;
  const minute = r.minute + 1;
  // One pass, no intermediate arrays: this runs for every team of every room every minute.
  const teams = new Map<number, TeamRun>();
  const rows: MinuteRecord[] = [];
  const before = new Map<number, Snapshot>();
  for (const [id, was] of r.teams) before.set(id, was.snapshot);
  for (const [id, was] of r.teams) {
    const t = advanceTeam(r, was, minute);
    teams.set(id, t);
    rows.push({ teamId: t.teamId, minute, data: JSON.stringify(t.snapshot), at: sentAt });
  }
  d.patchRound({ minute, teams });
  d.write({ op: 'insertSnapshots', roundId: r.id, rows });
  sendMinute(d, d.state.round, sentAt);
  if (minute >= r.minutes) {
    finish(d, sentAt, { minute });
    return;
  }
  d.write({ op: 'updateRound', id: r.id, set: { minute } });
  // Seats on autopilot read the minute just sent and decide, as a student would, for the next one.
  autopilotMinute(d, before, ctx);
}

export const tick: Transition<'tick'> = (s, cmd, ctx) => {
  // A beat that was queued behind a pause, an end or the last minute finds nothing to do.
  if (s.round.state !== 'running') return unchanged(s);
  const d = new Draft(s);
  playMinute(d, cmd.dueAt, ctx);
  return d.done(undefined);
};
