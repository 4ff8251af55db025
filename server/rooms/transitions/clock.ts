// The teacher's clock: start, pause, resume, step, end, next round — each allowed in one state of the
// round — and the pause of a round found running after a restart.
import { ClassroomError, ErrorCode } from '../../../shared/protocol/errors.ts';
import { type ClockAction, LIMITS, type RoundState } from '../../../shared/protocol/types.ts';
import { unchanged, type Transition, type TransitionCtx } from '../commands.ts';
import { activeTeams } from '../roster.ts';
import { baselineOf, contentFor, insertRound, lobbyRound, openTeam, roundRun } from '../round.ts';
import type { ScenarioContent } from '../scenario-content.ts';
import type { RoomState } from '../state.ts';
import { Draft } from './draft.ts';
import { recordStart } from './roles.ts';
import { carryPilots } from './seat-turn.ts';
import { finish, playMinute, sendMinute } from './tick.ts';

/** In which round states each action is allowed, and what to say otherwise. */
const ALLOWED: Record<ClockAction, { from: readonly RoundState[]; hint?: string }> = {
  start: { from: ['lobby'] },
  pause: { from: ['running'] },
  resume: { from: ['paused'] },
  step: { from: ['paused'], hint: 'pause first' },
  end: { from: ['running', 'paused'] },
  next: { from: ['finished'], hint: 'end the round first' },
};

function setState(d: Draft, state: 'running' | 'paused'): void {
  d.patchRound({ state });
  d.write({ op: 'updateRound', id: d.state.round.id, set: { state } });
  d.send({ kind: 'room' });
}

function start(d: Draft, ctx: TransitionCtx): void {
  const s = d.state;
  const r = s.round;
  const seed = r.seed ?? ctx.drawSeed();
  const seats = activeTeams(s, s.config.teamCount).map((t) => ({ teamId: t.id, idx: t.idx, name: t.name }));
  d.patchRound({ seed, state: 'running', minute: 0 });
  d.patchRound({ baseline: baselineOf(d.state.round) });
  const teams = new Map(seats.map((seat) => [seat.teamId, openTeam(d.state.round, seat, seed)]));
  d.patchRound({ teams });
  d.write(
    { op: 'insertRoundTeams', roundId: r.id, teams: seats },
    { op: 'updateRound', id: r.id, set: { seed, state: 'running', minute: 0, startedAt: ctx.now } },
    {
      op: 'insertSnapshots',
      roundId: r.id,
      rows: [...teams.values()].map((t) => ({
        teamId: t.teamId,
        minute: 0,
        data: JSON.stringify(t.snapshot),
        at: ctx.now,
      })),
    },
  );
  recordStart(d, ctx);
  d.send({ kind: 'room' });
  sendMinute(d, d.state.round, ctx.now);
}

/** A new round in the lobby, with the room's configuration and the same teams. */
function nextRound(d: Draft, ctx: TransitionCtx, authored: ScenarioContent | undefined): void {
  // The teacher's own scenario at its version now (read by the shell), else at the one this room has.
  const content = contentFor(d.state.config, authored ?? d.state.round.content);
  const row = lobbyRound(
    d.state.config,
    { id: ctx.ids.next('rounds'), roomId: d.state.id, number: d.state.round.number + 1, createdAt: ctx.now },
    content,
  );
  d.write(...insertRound(row, content, ctx.now));
  d.patchRound(roundRun(row, content));
  // Seats still piloted go on so in the new round: its record says so from its lobby.
  carryPilots(d, ctx.now);
  d.send({ kind: 'room' });
}

export const clock: Transition<'clock'> = (s: RoomState, { action, content }, ctx) => {
  const state = s.round.state;
  const allowed = ALLOWED[action];
  if (!allowed.from.includes(state)) {
    throw new ClassroomError(
      ErrorCode.BAD_STATE,
      `cannot ${action}: the round is ${state}${allowed.hint ? `; ${allowed.hint}` : ''}`,
    );
  }
  if (action === 'next' && s.round.number >= LIMITS.roundsPerRoom)
    throw new ClassroomError(
      ErrorCode.ROUND_LIMIT,
      `this room has had ${s.round.number} rounds, the most one room keeps: open a new room for the next one`,
    );
  const d = new Draft(s);
  switch (action) {
    case 'start':
      start(d, ctx);
      break;
    case 'pause':
      setState(d, 'paused');
      break;
    case 'resume':
      setState(d, 'running');
      break;
    case 'step':
      playMinute(d, ctx.now, ctx);
      break;
    case 'end':
      finish(d, ctx.now);
      break;
    case 'next':
      nextRound(d, ctx, content);
      break;
  }
  return d.done(undefined);
};

export const recover: Transition<'recover'> = (s) => {
  // Nobody ticks a round while its process is down: it resumes paused, for the teacher to restart.
  if (s.round.state !== 'running') return unchanged(s);
  const d = new Draft(s);
  setState(d, 'paused');
  return d.done(undefined);
};
