// What a what-if room is made from: the round, team and minute asked for, checked against what is stored (the
// round is the teacher's, has started and reached that minute; the team played it), and the team's recorded
// changes and minutes up to there. transitions/open.ts's forkRoom then builds the room from it, and makeFork
// stores it.
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import type { RoomView, RoundConfig } from '../../shared/protocol/types.ts';
import type { ScheduledChange } from '../../shared/sim/types.ts';
import type { Store } from '../db/store.ts';
import type { Write } from '../db/writes.ts';
import type { Turns } from '../lib/turns.ts';
import { resolveConfig, storedConfig } from './config.ts';
import type { RoomDeps } from './room.ts';
import { playOf, roundContent } from './scenario-content.ts';
import { checkPending, forkRoom, type ForkSource } from './transitions/open.ts';
import { roomView } from './views.ts';

export interface ForkAsk {
  teacherId: number;
  roundId: number;
  teamId: number;
  minute: number;
  /** Changes to record in the fork as pending, each after `minute` (the hindsight coach's play). */
  pending: readonly ScheduledChange[];
}

/** The fork's configuration (one team, split view) and its source; a clear error if it cannot be made. */
export async function readFork(store: Store, ask: ForkAsk): Promise<{ config: RoundConfig; from: ForkSource }> {
  const { teacherId, roundId, teamId, minute, pending } = ask;
  const origin = await store.roundById(roundId);
  const originRoom = origin && (await store.roomById(origin.roomId));
  if (!origin || !originRoom || originRoom.teacherId !== teacherId)
    throw new ClassroomError(ErrorCode.ROUND_NOT_FOUND, `no round ${roundId} of yours`);
  const seed = origin.seed;
  if (origin.state === 'lobby' || seed === null)
    throw new ClassroomError(ErrorCode.BAD_STATE, 'this round has not started');
  if (!Number.isInteger(minute) || minute < 0 || minute > origin.minute) {
    throw new ClassroomError(ErrorCode.BAD_REQUEST, `minute must be between 0 and ${origin.minute}`);
  }
  const team = (await store.roundTeams(roundId)).find((t) => t.teamId === teamId);
  if (!team) throw new ClassroomError(ErrorCode.TEAM_NOT_FOUND, `team ${teamId} did not play round ${roundId}`);
  const { simulator, scenario, minutes, tempo } = origin;
  const content = await roundContent(store, origin);
  const config = resolveConfig(
    storedConfig({ simulator, scenario, minutes, tempo, seed, teamCount: 1 }, content),
    {},
    content,
  );
  // The team's changes to the end, not only to the fork's minute: a pending change the team itself made
  // later keeps its author's name, so only the coach's own change reads "by Coach".
  const [all, snapshots] = await Promise.all([
    store.changesOfRound(roundId, { teamId, upToMinute: origin.minute }),
    store.snapshotsOfRound(roundId, { teamId, upToMinute: minute }),
  ]);
  const changes = all.filter((c) => c.minute <= minute);
  const authorOf = (c: ScheduledChange) =>
    all.findLast((x) => x.minute === c.minute && x.key === c.key && x.value === c.value)?.author;
  return {
    config,
    from: {
      round: { ...origin, seed },
      team,
      minute,
      changes,
      snapshots,
      content,
      pending: checkPending(playOf(simulator, scenario, content).model, pending, minute, minutes).map((c) => ({
        ...c,
        author: authorOf(c),
      })),
    },
  };
}

/** Reads, builds and stores a what-if room (RoomManager.fork, within the creation limits); it is loaded when opened. */
export async function makeFork(
  deps: Pick<RoomDeps, 'store' | 'clock' | 'log'>,
  ask: ForkAsk,
  manager: { freeCode(): Promise<string>; stored(writes: readonly Write[]): Promise<void>; turns: Turns },
): Promise<{ code: string; roundId: number; room: RoomView }> {
  const { store, clock } = deps;
  const { teacherId, roundId, teamId, minute } = ask;
  const [{ config, from }, code] = await Promise.all([readFork(store, ask), manager.freeCode()]);
  await store.ids.ready();
  // Re-simulating and checking the team is milliseconds of CPU: one what-if or room is built a turn at a time.
  await manager.turns.take();
  const forked = forkRoom({ code, teacherId, config }, from, { now: clock.now(), ids: store.ids });
  if (forked.mismatches.length)
    throw new Error(
      `fork of round ${roundId} does not re-simulate to the original (minutes ${forked.mismatches.join(', ')})`,
    );
  await manager.stored(forked.writes);
  deps.log.info({ room: code, from: { round: roundId, team: teamId, minute } }, 'what-if room created');
  return {
    code,
    roundId: forked.state.round.id,
    room: roomView(forked.state, () => ({ connected: false, idle: false, free: false }), 'teacher'),
  };
}
