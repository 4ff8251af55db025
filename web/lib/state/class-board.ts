// The teacher's class at a glance: each team's seats and what state each is in, the roles nobody holds,
// and the headline figures that are not normal. Pure: node tests load it.
//
// A seat's state is one of SEAT_STATES, derived from what the server says of a player. Today the server
// knows whether a student's page is connected; a state the server learns later (a seat left idle, one
// played by an autopilot) is one more entry here, with its symbol, tone and order, and one more word in
// the board's `SEAT_WORDS` — the board draws whatever states this list has.
import type { PlayerView, TeamView } from '$shared/protocol/types.ts';
import type { SimMeta, Snapshot, Status } from '$shared/sim/types.ts';
import { headlineStatuses } from './desk-logic.ts';

export const SEAT_STATES = {
  /** The student's page is connected. */
  connected: { symbol: '●', tone: 'ok', order: 0 },
  /** The student's page is not connected (closed, asleep, out of Wi-Fi): their roles wait for them. */
  dropped: { symbol: '○', tone: 'warn', order: 1 },
} as const satisfies Record<string, { symbol: string; tone: 'ok' | 'warn' | 'muted'; order: number }>;
export type SeatState = keyof typeof SEAT_STATES;

export function seatState(p: Pick<PlayerView, 'connected'>): SeatState {
  return p.connected ? 'connected' : 'dropped';
}

export interface Seat {
  player: PlayerView;
  state: SeatState;
}

export interface TeamSeats {
  team: TeamView;
  seats: Seat[];
  /** How many seats are in each state. */
  counts: Record<SeatState, number>;
  /** The model's roles nobody in the team holds (none for a team nobody is in). */
  freeRoles: string[];
}

/** Every team with its seats, in the room's order; students with no team, if any, last (team null). */
export function classSeats(
  model: Pick<SimMeta, 'roles'>,
  teams: readonly TeamView[],
  players: readonly PlayerView[],
): { teams: TeamSeats[]; unplaced: Seat[] } {
  const seat = (p: PlayerView): Seat => ({ player: p, state: seatState(p) });
  const out = teams.map((team): TeamSeats => {
    const seats = players.filter((p) => p.teamId === team.id).map(seat);
    const counts = Object.fromEntries(Object.keys(SEAT_STATES).map((s) => [s, 0])) as Record<SeatState, number>;
    for (const s of seats) counts[s.state]++;
    const held = new Set(seats.flatMap((s) => s.player.roles));
    const freeRoles = seats.length ? model.roles.map((r) => r.id).filter((r) => !held.has(r)) : [];
    return { team, seats, counts, freeRoles };
  });
  const known = new Set(teams.map((t) => t.id));
  const unplaced = players.filter((p) => p.teamId === null || !known.has(p.teamId)).map(seat);
  return { teams: out, unplaced };
}

/**
 * A team's headline figures that are not normal, worst first, each with its own status; and whether the
 * minute reads critical throughout because most attempts failed (see `headlineStatuses`).
 */
export function troubleOf(
  model: Pick<SimMeta, 'indicators' | 'ownStatus'>,
  s: Pick<Snapshot, 'indicators' | 'status' | 'na'>,
): { collapse: boolean; figures: { key: string; status: Status }[] } {
  const { own, collapse } = headlineStatuses(model, s);
  const rank: Record<Status, number> = { critical: 0, warning: 1, normal: 2 };
  const figures = Object.entries(own)
    .filter((e): e is [string, Status] => e[1] !== null && e[1] !== 'normal')
    .map(([key, status]) => ({ key, status }))
    .sort((a, b) => rank[a.status] - rank[b.status]);
  return { collapse, figures };
}
