// Re-simulates stored rounds from seed and recorded changes and compares every minute with what was stored.
import type { Store } from '../db/store.ts';
import { loadRoundRun } from '../rooms/round.ts';

export interface VerifyReport {
  roundId: number;
  roomCode: string;
  simulator: string;
  scenario: string;
  teams: number;
  minutes: number;
  /** Team → minutes whose re-simulation differs from the stored snapshot. */
  mismatches: { teamId: number; minutes: number[] }[];
}

export function verifyRounds(store: Store, states: ('finished' | 'paused' | 'running')[] = ['finished']): VerifyReport[] {
  return store.roundsInState(states).map((row) => {
    const { round, mismatches } = loadRoundRun(store, row);
    return {
      roundId: row.id,
      roomCode: store.roomById(row.roomId)!.code,
      simulator: row.simulator,
      scenario: row.scenario,
      teams: round.teams.size,
      minutes: row.minute,
      mismatches,
    };
  });
}
