// The teacher's settings: the next round's configuration (lobby only) and the tempo (at any time).
import { ClassroomError, ErrorCode } from '../../../shared/protocol/errors.ts';
import { SEAT_DEFAULTS } from '../../../shared/protocol/types.ts';
import { unchanged, type Transition } from '../commands.ts';
import { checkTempo, resolveConfig } from '../config.ts';
import { contentFor } from '../round.ts';
import { playOf } from '../scenario-content.ts';
import { Draft } from './draft.ts';
import { dealEveryTeam } from './roles.ts';
import { setTeamCount } from './roster.ts';

export const tempo: Transition<'tempo'> = (s, cmd) => {
  checkTempo({ tempo: cmd.tempo, purpose: s.config.purpose });
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

/** The seats' rules: the teacher may change them at any time (what happens to a seat that drops, and when). */
const ANYTIME: ReadonlySet<string> = new Set(Object.keys(SEAT_DEFAULTS));

export const configure: Transition<'configure'> = (s, cmd, ctx) => {
  const { patch } = cmd;
  if (s.round.state !== 'lobby') {
    if (Object.keys(patch).some((k) => k !== 'tempo' && !ANYTIME.has(k))) {
      throw new ClassroomError(
        ErrorCode.BAD_STATE,
        'the round has started: only the tempo and the seats’ rules can change now (use next round)',
      );
    }
    const { tempo: t, absence, graceSeconds, idleMinutes } = patch;
    const after = t === undefined ? unchanged(s) : tempo(s, { type: 'tempo', tempo: t }, ctx);
    if (absence === undefined && graceSeconds === undefined && idleMinutes === undefined) return after;
    const d = new Draft(after.next);
    d.write(...after.writes);
    d.send(...after.messages);
    const c = d.state.config;
    const config = {
      ...c,
      absence: absence ?? c.absence,
      graceSeconds: graceSeconds ?? c.graceSeconds,
      idleMinutes: idleMinutes ?? c.idleMinutes,
    };
    d.patch({ config });
    d.write({ op: 'setRoomConfig', roomId: s.id, config });
    d.send({ kind: 'room' });
    return d.done(undefined);
  }
  // The teacher's own scenario named now (read by the shell), or the one the round has.
  const authored = cmd.content ?? s.round.content;
  const config = resolveConfig(s.config, patch, authored);
  const content = contentFor(config, authored);
  // What the round in the lobby takes from the configuration (the team count, split view and the seats' rules are
  // the room's).
  const { simulator, scenario, minutes, tempo: t, seed } = config;
  const round = { simulator, scenario, minutes, tempo: t, seed };
  const { model, def } = playOf(simulator, scenario, content);
  const d = new Draft(s);
  d.patch({ config });
  const { hash, text } = content;
  if (hash !== s.round.content?.hash) d.write({ op: 'insertContent', content: { hash, simulator, text }, at: ctx.now });
  d.write(
    { op: 'setRoomConfig', roomId: s.id, config },
    { op: 'updateRound', id: s.round.id, set: { ...round, scenarioHash: hash } },
  );
  // Seats change under the roles people hold now; another simulator then deals its own roles.
  setTeamCount(d, config.teamCount, ctx);
  d.patchRound({ ...round, model, scenarioDef: def, content });
  if (round.simulator !== s.round.simulator) dealEveryTeam(d, ctx);
  d.send({ kind: 'room' });
  return d.done(undefined);
};
