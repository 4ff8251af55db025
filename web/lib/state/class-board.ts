// The teacher's class at a glance: each team's seats and what state each is in, the roles nobody holds,
// and the headline figures that are not normal. Pure: node tests load it.
//
// A seat's state is one of SEAT_STATES, derived from what the server says of a player: whether their page is
// connected, idle (hidden, or no change while banners showed), and who plays the seat if not its student (the
// autopilot, the teacher). Each state has its symbol, tone and order here and a word in the board's `SEAT_WORDS`:
// the board draws whatever states this list has, and lists every seat not `connected` first, where the teacher
// sees it without scrolling.
import type { PlayerView, TeamView } from '$shared/protocol/types.ts';
import type { SimMeta, Snapshot, Status } from '$shared/sim/types.ts';
import { headlineStatuses } from './desk-logic.ts';

export const SEAT_STATES = {
  /** The student's page is connected. */
  connected: { symbol: '●', tone: 'ok', order: 0 },
  /** Connected, but the page is hidden or nothing was changed while banners showed: the teacher may hand it over. */
  idle: { symbol: '◐', tone: 'warn', order: 1 },
  /** The student's page is not connected (closed, asleep, out of Wi-Fi): the room's rule applies after the grace. */
  dropped: { symbol: '○', tone: 'warn', order: 2 },
  /** The autopilot plays the seat (its student gone past the grace, stepped out, or handed over by the teacher). */
  auto: { symbol: '⚙', tone: 'auto', order: 3 },
  /** The teacher plays the seat from the dashboard. */
  teacher: { symbol: '✎', tone: 'auto', order: 4 },
} as const satisfies Record<string, { symbol: string; tone: 'ok' | 'warn' | 'muted' | 'auto'; order: number }>;
export type SeatState = keyof typeof SEAT_STATES;

/** The teacher's hand on a seat: the autopilot, playing it, back to its student, or opening the desk they play. */
export type SeatAction = 'autopilot' | 'teacher' | 'student' | 'open';

export function seatState(p: Pick<PlayerView, 'connected' | 'idle' | 'pilot'>): SeatState {
  if (p.pilot) return p.pilot.kind === 'teacher' ? 'teacher' : 'auto';
  if (!p.connected) return 'dropped';
  return p.idle ? 'idle' : 'connected';
}

/**
 * Every student's seat not simply connected (idle, dropped, played by the autopilot or the teacher), by state, then
 * team. A rehearsal's bots are not students: their seats are on their tiles, not here.
 */
export function seatsToWatch(board: { teams: TeamSeats[] }): (Seat & { team: TeamView })[] {
  return board.teams
    .flatMap((t) =>
      t.seats
        .filter((s) => s.state !== 'connected' && s.player.pilot?.reason !== 'bot')
        .map((s) => ({ ...s, team: t.team })),
    )
    .sort((a, b) => SEAT_STATES[a.state].order - SEAT_STATES[b.state].order);
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
