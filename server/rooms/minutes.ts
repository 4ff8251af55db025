// A team's past minutes, read back from the database: a room keeps only each team's latest (state.ts), and every
// minute seen was stored first. For a history (a join, a reload, a moved player) and nothing on the clock's path.
import type { Snapshot } from '../../shared/sim/types.ts';
import type { Store } from '../db/store.ts';
import { storedMinutes } from './round.ts';
import type { RoomState, TeamRun } from './state.ts';

export interface TeamMinutes {
  /** The room's state the minutes go with. */
  state: RoomState;
  team: TeamRun;
  /** Minutes 0… the team's latest in `state`. */
  snapshots: Snapshot[];
}

/**
 * The team's minutes with the state they go with: should the round move on while they are read, its new latest
 * minute is added (or, a minute further or a new round, read again), so that what is returned is whole and as
 * current as the room once the promise settles. `current()` is the room's state now; `differed(roundId)`: the
 * team went on from its re-simulation in that round (its stored minutes differed at the load), so its history is
 * the simulation's, with nothing to read.
 */
export async function readTeamMinutes(
  current: () => RoomState,
  store: Pick<Store, 'snapshotsOfRound'>,
  teamId: number,
  differed: (roundId: number) => boolean,
): Promise<TeamMinutes | null> {
  for (;;) {
    const { round } = current();
    const team = round.teams.get(teamId);
    if (!team) return null;
    const upTo = team.snapshot.minute;
    const rows = differed(round.id) ? [] : await store.snapshotsOfRound(round.id, { teamId, upToMinute: upTo });
    const state = current();
    const now = state.round.teams.get(teamId);
    if (state.round.id !== round.id || !now || now.snapshot.minute > upTo + 1) continue;
    const snapshots = storedMinutes(round, team, rows);
    if (now.snapshot.minute === upTo + 1) snapshots.push(now.snapshot);
    return { state, team: now, snapshots };
  }
}
