// New rooms as values with their writes: a room with its teams and a first round in the lobby, and a
// what-if fork — one team's exact state at a minute of another round, paused there. Pure.
import { ClassroomError, ErrorCode } from '../../../shared/protocol/errors.ts';
import type { ChangeAuthor, ChangeRecord, RoundConfig, WhatIfOrigin } from '../../../shared/protocol/types.ts';
import { ControlError, validateChange } from '../../../shared/sim/controls.ts';
import type { ScheduledChange, SimMeta } from '../../../shared/sim/types.ts';
import type { MinuteRecord } from '../../db/records.ts';
import type { Write } from '../../db/writes.ts';
import type { RoundRecord } from '../../db/records.ts';
import type { TransitionCtx } from '../commands.ts';
import { contentFor, insertRound, lobbyRound, rebuildTeam, roundRun } from '../round.ts';
import type { ScenarioContent } from '../scenario-content.ts';
import type { RoomState, TeamState } from '../state.ts';

export interface Opened {
  state: RoomState;
  writes: Write[];
}

/** A new room; its first round plays the built-in its configuration names, or `authored` (the teacher's own). */
export function openRoom(
  room: { code: string; teacherId: number; config: RoundConfig },
  ctx: Pick<TransitionCtx, 'now' | 'ids'>,
  authored?: ScenarioContent,
): Opened {
  const { code, teacherId, config } = room;
  const content = contentFor(config, authored);
  const id = ctx.ids.next('rooms');
  const teams: TeamState[] = Array.from({ length: config.teamCount }, (_, idx) => ({
    id: ctx.ids.next('teams'),
    idx,
    name: '',
    whatIf: null,
  }));
  const row = lobbyRound(config, { id: ctx.ids.next('rounds'), roomId: id, number: 1, createdAt: ctx.now }, content);
  return {
    state: {
      id,
      code,
      teacherId,
      config,
      teams,
      players: new Map(),
      round: roundRun(row, content),
      locked: false,
      replayShared: false,
    },
    writes: [
      { op: 'insertRoom', id, code, teacherId, config, createdAt: ctx.now },
      ...teams.map((t): Write => ({ op: 'insertTeam', id: t.id, roomId: id, idx: t.idx, name: t.name })),
      ...insertRound(row, content, ctx.now),
    ],
  };
}

export interface ForkSource {
  round: RoundRecord & { seed: number };
  /** The team forked, as it played that round (a what-if of a what-if names the first team). */
  team: { teamId: number; idx: number; name: string; whatIf: WhatIfOrigin | null };
  minute: number;
  /** The team's changes up to `minute`, in arrival order. */
  changes: readonly ChangeRecord[];
  /** The team's stored minutes up to `minute`. */
  snapshots: readonly MinuteRecord[];
  /** The content the round played (read by its hash; none for a round stored before contents were). */
  content?: ScenarioContent;
  /**
   * Changes to record as pending in the fork (each after `minute`, checked: `checkPending`): the hindsight
   * coach's play. One the team itself made at that minute keeps its author; the others are the coach's.
   */
  pending?: readonly (ScheduledChange & { author?: ChangeAuthor })[];
}

/** Who a what-if's pending changes are from (the hindsight coach's play). */
export const COACH_AUTHOR = { playerId: null, name: 'Coach' } as const;

/** Changes for a fork: each a control of the model with a valid value, after `minute` and within the round. Throws BAD_REQUEST. */
export function checkPending(
  model: SimMeta,
  pending: readonly ScheduledChange[],
  minute: number,
  minutes: number,
): ScheduledChange[] {
  return pending.map((c) => {
    if (!Number.isInteger(c.minute) || c.minute <= minute || c.minute > minutes) {
      throw new ClassroomError(
        ErrorCode.BAD_REQUEST,
        `a change of ${c.key} at minute ${c.minute}: changes must come after minute ${minute} and by minute ${minutes}`,
      );
    }
    try {
      return { minute: c.minute, ...validateChange(model, { key: c.key, value: c.value }) };
    } catch (e) {
      if (e instanceof ControlError) throw new ClassroomError(ErrorCode.BAD_REQUEST, e.message);
      throw e;
    }
  });
}

/** The fork, rebuilt by re-simulation; `mismatches` lists minutes that do not re-simulate to the original. */
export function forkRoom(
  room: { code: string; teacherId: number; config: RoundConfig },
  from: ForkSource,
  ctx: Pick<TransitionCtx, 'now' | 'ids'>,
): Opened & { mismatches: number[] } {
  const { code, teacherId, config } = room;
  const id = ctx.ids.next('rooms');
  const o = from.round;
  // The new team has no name of its own: screens call it after the original ("Team 2 — what-if from minute 10").
  const named = from.team.name === '' && from.team.whatIf ? from.team.whatIf : from.team;
  const whatIf: WhatIfOrigin = {
    roundId: o.id,
    teamId: from.team.teamId,
    idx: named.idx,
    name: named.name,
    minute: from.minute,
  };
  const team: TeamState = { id: ctx.ids.next('teams'), idx: 0, name: '', whatIf };
  const row: RoundRecord = {
    id: ctx.ids.next('rounds'),
    roomId: id,
    number: 1,
    simulator: o.simulator,
    scenario: o.scenario,
    scenarioHash: o.scenarioHash,
    seed: o.seed,
    minutes: o.minutes,
    tempo: o.tempo,
    noise: o.noise,
    state: 'paused',
    minute: from.minute,
    createdAt: ctx.now,
    startedAt: ctx.now,
    finishedAt: null,
    forkOf: { roundId: o.id, teamId: from.team.teamId, minute: from.minute },
  };
  // The changes become the fork's own, authored by name only (the original players are not in it), in their order.
  const changes: ChangeRecord[] = from.changes.map((c, i) => ({
    ...c,
    id: ctx.ids.next('changes'),
    seq: i + 1,
    roundId: row.id,
    teamId: team.id,
    author: { ...c.author, playerId: null },
  }));
  // The pending play is the what-if's own (its actor says so), whoever's name it keeps.
  for (const { author, ...c } of from.pending ?? [])
    changes.push({
      ...c,
      id: ctx.ids.next('changes'),
      seq: changes.length + 1,
      roundId: row.id,
      teamId: team.id,
      author: author ? { ...author, playerId: null } : { ...COACH_AUTHOR },
      actor: { kind: 'what-if' },
      at: ctx.now,
    });
  const base = roundRun(row, from.content);
  const seat = { teamId: team.id, idx: 0, name: team.name };
  const stored = new Map(from.snapshots.map((s) => [s.minute, s.data]));
  const rebuilt = rebuildTeam(base, seat, o.seed, changes, stored, from.minute);
  return {
    state: {
      id,
      code,
      teacherId,
      config,
      teams: [team],
      players: new Map(),
      locked: false,
      replayShared: false,
      round: { ...base, teams: new Map([[team.id, rebuilt.team]]), changeSeq: changes.length },
    },
    writes: [
      { op: 'insertRoom', id, code, teacherId, config, createdAt: ctx.now },
      { op: 'insertTeam', id: team.id, roomId: id, idx: 0, name: team.name, whatIf },
      ...insertRound(row, from.content ?? null, ctx.now),
      { op: 'insertRoundTeams', roundId: row.id, teams: [seat] },
      { op: 'insertChanges', changes },
      {
        op: 'insertSnapshots',
        roundId: row.id,
        rows: from.snapshots.map((s) => ({ teamId: team.id, minute: s.minute, data: s.data })),
      },
    ],
    mismatches: rebuilt.mismatches,
  };
}
