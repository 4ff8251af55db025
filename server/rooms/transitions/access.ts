// The teacher's hold on the room: locking it to new students, sharing its replays with them, and
// short messages to one team or to all.
import { ClassroomError, ErrorCode } from '../../../shared/protocol/errors.ts';
import { LIMITS, type TeacherMessage } from '../../../shared/protocol/types.ts';
import { emit } from '../output.ts';
import { unchanged, type Transition } from '../commands.ts';
import { activeTeams } from '../roster.ts';
import { Draft } from './draft.ts';

export const lock: Transition<'lock'> = (s, cmd) => {
  if (s.locked === cmd.locked) return unchanged(s);
  const d = new Draft(s);
  d.patch({ locked: cmd.locked });
  d.write({ op: 'setRoomFlags', roomId: s.id, set: { locked: cmd.locked } });
  d.send({ kind: 'room' });
  return d.done(undefined);
};

export const share: Transition<'share'> = (s, cmd) => {
  if (s.replayShared === cmd.shared) return unchanged(s);
  const d = new Draft(s);
  d.patch({ replayShared: cmd.shared });
  d.write({ op: 'setRoomFlags', roomId: s.id, set: { replayShared: cmd.shared } });
  d.send({ kind: 'room' });
  return d.done(undefined);
};

/** Stored with the round, so a desk reloaded before the round ends shows it again. */
export const message: Transition<'message'> = (s, cmd, ctx) => {
  const r = s.round;
  if (cmd.teamId !== null && !activeTeams(s, s.config.teamCount).some((t) => t.id === cmd.teamId)) {
    throw new ClassroomError(ErrorCode.TEAM_NOT_FOUND, `no team ${cmd.teamId} plays in this room`);
  }
  if (r.messages.length >= LIMITS.messagesPerRound) {
    throw new ClassroomError(ErrorCode.RATE_LIMITED, `a round keeps ${LIMITS.messagesPerRound} messages at most`);
  }
  const msg: TeacherMessage = {
    id: ctx.ids.next('messages'),
    roundId: r.id,
    teamId: cmd.teamId,
    text: cmd.text,
    at: ctx.now,
  };
  const d = new Draft(s);
  d.patchRound({ messages: r.messages.append(msg) });
  d.write({ op: 'insertMessage', message: msg });
  if (cmd.teamId === null) d.send(emit({ kind: 'all' }, 'message', msg));
  else d.send(emit({ kind: 'team', teamId: cmd.teamId }, 'message', msg), emit({ kind: 'teacher' }, 'message', msg));
  return d.done(msg);
};
