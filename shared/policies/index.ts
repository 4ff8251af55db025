// Role policies, as a library: a seat plays one role of a team from what that role's desk shows. The autopilot
// of an empty seat, rehearsal bots, the design report's teams and a scenario's teaching checks call it.
export { openSeat, PolicyError, seatMinute } from './seat.ts';
export { playTeam, teamOf } from './team.ts';
export { MAX_DELAY, SKILLS, type Seat, type SeatState, type Skill } from './types.ts';
