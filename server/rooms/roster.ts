// Who is in a room: players, their teams and the roles dealt to them.
import { dealRoles } from '../../shared/classroom/roles.ts';
import type { PlayerView, TeamView } from '../../shared/protocol/types.ts';
import type { SimModel } from '../../shared/sim/types.ts';

export interface PlayerState {
  id: number;
  name: string;
  teamId: number | null;
  seq: number;
  roles: string[];
  removed: boolean;
}

export interface TeamState {
  id: number;
  idx: number;
  name: string;
}

export class Roster {
  readonly players = new Map<number, PlayerState>();
  /** All team rows of the room; the first `teamCount` (by idx) are in play. */
  teams: TeamState[] = [];
  private connections = new Map<number, number>();

  activeTeams(teamCount: number): TeamState[] {
    return this.teams.filter((t) => t.idx < teamCount);
  }
  team(id: number): TeamState | undefined {
    return this.teams.find((t) => t.id === id);
  }
  members(teamId: number): PlayerState[] {
    return [...this.players.values()].filter((p) => !p.removed && p.teamId === teamId).sort((a, b) => a.seq - b.seq);
  }
  activePlayers(): PlayerState[] {
    return [...this.players.values()].filter((p) => !p.removed);
  }
  /** The playing team with the fewest members (lowest index on ties) that still has a seat. */
  teamWithRoom(teamCount: number, maxTeamSize: number): TeamState | undefined {
    let best: TeamState | undefined;
    let bestSize = Infinity;
    for (const t of this.activeTeams(teamCount)) {
      const n = this.members(t.id).length;
      if (n < maxTeamSize && n < bestSize) {
        best = t;
        bestSize = n;
      }
    }
    return best;
  }
  nextSeq(teamId: number): number {
    return this.members(teamId).reduce((m, p) => Math.max(m, p.seq), 0) + 1;
  }
  /** Deals the model's roles to a team's members in join order; returns the players whose roles changed. */
  redeal(teamId: number, model: SimModel<any>): PlayerState[] {
    const members = this.members(teamId);
    const dealt = dealRoles(model.roles.map((r) => r.id), members.length);
    const changed: PlayerState[] = [];
    members.forEach((p, i) => {
      if (p.roles.join() !== dealt[i].join()) {
        p.roles = dealt[i];
        changed.push(p);
      }
    });
    return changed;
  }

  connect(playerId: number): boolean {
    const n = (this.connections.get(playerId) ?? 0) + 1;
    this.connections.set(playerId, n);
    return n === 1;
  }
  disconnect(playerId: number): boolean {
    const n = (this.connections.get(playerId) ?? 0) - 1;
    if (n <= 0) this.connections.delete(playerId);
    else this.connections.set(playerId, n);
    return n <= 0;
  }
  isConnected(playerId: number): boolean {
    return this.connections.has(playerId);
  }
  get connectedCount(): number {
    return this.connections.size;
  }

  teamViews(teamCount: number): TeamView[] {
    return this.activeTeams(teamCount).map((t) => ({ id: t.id, idx: t.idx, name: t.name }));
  }
  playerViews(): PlayerView[] {
    return this.activePlayers()
      .sort((a, b) => a.id - b.id)
      .map((p) => ({ id: p.id, name: p.name, teamId: p.teamId, roles: p.roles, connected: this.isConnected(p.id) }));
  }
}
