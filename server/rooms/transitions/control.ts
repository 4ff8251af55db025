// A student's change: checked, stored when accepted (so it survives a crash before its minute comes),
// shown to the team and the teacher as pending until the next minute applies it.
import type { ChangeRecord } from '../../../shared/protocol/types.ts';
import { emit, type Transition } from '../commands.ts';
import { checkChange } from '../changes.ts';
import { refuseUnavailable } from '../../../shared/classroom/story.ts';
import { withTeam } from '../round.ts';
import { Draft } from './draft.ts';

export const control: Transition<'control'> = (s, cmd, ctx) => {
  const r = s.round;
  const p = s.players.get(cmd.playerId);
  const { teamId, value } = checkChange(r, p, cmd.key, cmd.value);
  const run = r.teams.get(teamId);
  if (!p || !run) throw new Error(`room ${s.code}: team ${teamId} vanished while checking a change`);
  refuseUnavailable(run.snapshot, cmd.key);
  const change: ChangeRecord = {
    ...{ id: ctx.ids.next('changes'), roundId: r.id, teamId, minute: r.minute + 1, key: cmd.key, value },
    ...{ author: { playerId: p.id, name: p.name }, at: ctx.now },
  };
  const d = new Draft(s);
  d.patchRound({ teams: new Map(r.teams).set(teamId, withTeam(run, { changes: run.changes.append(change) })) });
  d.write({ op: 'insertChanges', changes: [change] });
  d.send(emit({ kind: 'team', teamId }, 'pending', change), emit({ kind: 'teacher' }, 'pending', change));
  return d.done(change);
};
