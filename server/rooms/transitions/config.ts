// The teacher's settings: the next round's configuration (lobby only) and the tempo (at any time).
import { scenarioDef } from '../../../shared/sim/engine.ts';
import { ClassroomError, ErrorCode } from '../../../shared/protocol/errors.ts';
import { getModel } from '../../../shared/sim/registry.ts';
import { unchanged, type Transition } from '../commands.ts';
import { resolveConfig } from '../config.ts';
import { Draft } from './draft.ts';
import { dealEveryTeam } from './roles.ts';
import { setTeamCount } from './roster.ts';

export const tempo: Transition<'tempo'> = (s, cmd) => {
  const d = new Draft(s);
  const config = { ...s.config, tempo: cmd.tempo };
  d.patch({ config });
  d.patchRound({ tempo: cmd.tempo });
  d.write(
    { op: 'updateRound', id: s.round.id, set: { tempo: cmd.tempo } },
    { op: 'setRoomConfig', roomId: s.id, config },
  );
  d.send({ kind: 'room' });
  return d.done(undefined);
};

export const configure: Transition<'configure'> = (s, cmd, ctx) => {
  const { patch } = cmd;
  if (s.round.state !== 'lobby') {
    if (Object.keys(patch).some((k) => k !== 'tempo')) {
      throw new ClassroomError(
        ErrorCode.BAD_STATE,
        'the round has started: only the tempo can change now (use next round)',
      );
    }
    return patch.tempo === undefined ? unchanged(s) : tempo(s, { type: 'tempo', tempo: patch.tempo }, ctx);
  }
  const config = resolveConfig(s.config, patch);
  // What the round in the lobby takes from the configuration (the team count and split view are the room's).
  const { teamCount: _, splitView: __, ...round } = config;
  const model = getModel(round.simulator);
  const d = new Draft(s);
  d.patch({ config });
  d.write({ op: 'setRoomConfig', roomId: s.id, config }, { op: 'updateRound', id: s.round.id, set: round });
  // Seats change under the roles people hold now; another simulator then deals its own roles.
  setTeamCount(d, config.teamCount, ctx);
  d.patchRound({ ...round, model, scenarioDef: scenarioDef(model, round.scenario) });
  if (round.simulator !== s.round.simulator) dealEveryTeam(d, ctx);
  d.send({ kind: 'room' });
  return d.done(undefined);
};
