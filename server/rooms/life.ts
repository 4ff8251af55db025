// What a room tells the log about its rounds' lives.
import type { Logger } from '../lib/log.ts';
import type { RoundRun } from './state.ts';

/** Room life at info, with the room code: a round started or finished. */
export function logLife(log: Logger, room: string, prev: RoundRun, next: RoundRun): void {
  const round = { room, round: next.id, minute: next.minute };
  if (prev.state === 'lobby' && next.state === 'running')
    log.info({ ...round, simulator: next.simulator, scenario: next.scenario, teams: next.teams.size }, 'round started');
  else if (prev.state !== 'finished' && next.state === 'finished')
    log.info({ ...round, early: next.minute < next.minutes }, 'round finished');
}
