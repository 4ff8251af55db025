// New rooms as values with their writes: a room with its teams and a first round in the lobby, and a
// what-if fork — one team's exact state at a minute of another round, paused there. Pure.
import type { ChangeRecord, RoundConfig } from '../../../shared/protocol/types.ts';
import type { MinuteRecord, Write } from '../../db/writes.ts';
import type { RoundRecord } from '../../db/store.ts';
import type { TransitionCtx } from '../commands.ts';
import { rebuildTeam, roundRun } from '../round.ts';
import type { RoomState, TeamState } from '../state.ts';

export interface Opened {
  state: RoomState;
  writes: Write[];
}

export function openRoom(room: { code: string; teacherId: number; config: RoundConfig }, ctx: Pick<TransitionCtx, 'now' | 'ids'>): Opened {
  const { code, teacherId, config } = room;
  const id = ctx.ids.next('rooms');
  const teams: TeamState[] = Array.from({ length: config.teamCount }, (_, idx) => ({ id: ctx.ids.next('teams'), idx, name: '' }));
  const { simulator, scenario, seed, minutes, tempo } = config;
  const row: RoundRecord = {
    id: ctx.ids.next('rounds'),
    roomId: id,
    number: 1,
    simulator,
    scenario,
    seed,
    minutes,
    tempo,
    noise: true,
    state: 'lobby',
    minute: -1,
    createdAt: ctx.now,
    startedAt: null,
    finishedAt: null,
    forkOf: null,
  };
  return {
    state: { id, code, teacherId, config, teams, players: new Map(), round: roundRun(row) },
    writes: [
      { op: 'insertRoom', id, code, teacherId, config, createdAt: ctx.now },
      ...teams.map((t): Write => ({ op: 'insertTeam', id: t.id, roomId: id, idx: t.idx, name: t.name })),
      { op: 'insertRound', round: row },
    ],
  };
}

export interface ForkSource {
  round: RoundRecord & { seed: number };
  team: { teamId: number; name: string };
  minute: number;
  /** The team's changes up to `minute`, in arrival order. */
  changes: readonly ChangeRecord[];
  /** The team's stored minutes up to `minute`. */
  snapshots: readonly MinuteRecord[];
}

/** The fork, rebuilt by re-simulation; `mismatches` lists minutes that do not re-simulate to the original. */
export function forkRoom(
  room: { code: string; teacherId: number; config: RoundConfig },
  from: ForkSource,
  ctx: Pick<TransitionCtx, 'now' | 'ids'>,
): Opened & { mismatches: number[] } {
  const { code, teacherId, config } = room;
  const id = ctx.ids.next('rooms');
  const team: TeamState = { id: ctx.ids.next('teams'), idx: 0, name: from.team.name };
  const o = from.round;
  const row: RoundRecord = {
    id: ctx.ids.next('rounds'),
    roomId: id,
    number: 1,
    simulator: o.simulator,
    scenario: o.scenario,
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
  // The changes become the fork's own, authored by name only (the original players are not in it).
  const changes = from.changes.map((c) => ({ ...c, id: ctx.ids.next('changes'), roundId: row.id, teamId: team.id, author: { ...c.author, playerId: null } }));
  const base = roundRun(row);
  const seat = { teamId: team.id, idx: 0, name: team.name };
  const stored = new Map(from.snapshots.map((s) => [s.minute, s.data]));
  const rebuilt = rebuildTeam(base, seat, o.seed, changes, stored, from.minute);
  return {
    state: { id, code, teacherId, config, teams: [team], players: new Map(), round: { ...base, teams: new Map([[team.id, rebuilt.team]]) } },
    writes: [
      { op: 'insertRoom', id, code, teacherId, config, createdAt: ctx.now },
      { op: 'insertTeam', id: team.id, roomId: id, idx: 0, name: team.name },
      { op: 'insertRound', round: row },
      { op: 'insertRoundTeams', roundId: row.id, teams: [seat] },
      { op: 'insertChanges', changes },
      { op: 'insertSnapshots', roundId: row.id, rows: from.snapshots.map((s) => ({ teamId: team.id, minute: s.minute, data: s.data })) },
    ],
    mismatches: rebuilt.mismatches,
  };
}
