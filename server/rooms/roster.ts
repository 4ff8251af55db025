// Who is in a room, read from its state: playing teams, members in join order, free seats, the deal
// of roles. Pure functions; the transitions that seat people are in transitions/roster.ts.
import { dealRoles } from '../../shared/classroom/roles.ts';
import type { SimModel } from '../../shared/sim/types.ts';
import type { PlayerUpdate } from './transitions/draft.ts';
import type { PlayerState, RoomState, TeamState } from './state.ts';

type Roster = Pick<RoomState, 'teams' | 'players'>;

/** The teams in play: the first `teamCount` by index. */
export function activeTeams(s: Roster, teamCount: number): TeamState[] {
  return s.teams.filter((t) => t.idx < teamCount);
}

export function activePlayers(s: Roster): PlayerState[] {
  return [...s.players.values()].filter((p) => !p.removed);
}

export function members(s: Roster, teamId: number): PlayerState[] {
  return activePlayers(s)
    .filter((p) => p.teamId === teamId)
    .sort((a, b) => a.seq - b.seq);
}

/** The playing team with the fewest members (lowest index on ties) that still has a seat. */
export function teamWithRoom(s: Roster, teamCount: number, maxTeamSize: number): TeamState | undefined {
  let best: TeamState | undefined;
  let bestSize = Infinity;
  for (const t of activeTeams(s, teamCount)) {
    const n = members(s, t.id).length;
    if (n < maxTeamSize && n < bestSize) {
      best = t;
      bestSize = n;
    }
  }
  return best;
}

export function nextSeq(s: Roster, teamId: number): number {
  return members(s, teamId).reduce((m, p) => Math.max(m, p.seq), 0) + 1;
}

/** The model's roles dealt to a team's members in join order: the members whose roles change, with their new roles. */
export function redeal(s: Roster, teamId: number, model: SimModel): PlayerUpdate[] {
  const list = members(s, teamId);
  const dealt = dealRoles(
    model.roles.map((r) => r.id),
    list.length,
  );
  return list.flatMap((p, i) => (p.roles.join() === dealt[i].join() ? [] : [{ id: p.id, set: { roles: dealt[i] } }]));
}
