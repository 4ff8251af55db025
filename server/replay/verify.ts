// Re-simulates stored rounds from seed and recorded changes and compares every minute with what was stored.
import type { Store } from '../db/store.ts';
import { loadRound, type Mismatches } from '../rooms/load.ts';

export interface VerifyReport {
  roundId: number;
  roomCode: string;
  simulator: string;
  scenario: string;
  teams: number;
  minutes: number;
  /** Team → minutes whose re-simulation differs from the stored snapshot. */
  mismatches: Mismatches;
}

export async function verifyRounds(
  store: Store,
  states: ('finished' | 'paused' | 'running')[] = ['finished'],
): Promise<VerifyReport[]> {
  const out: VerifyReport[] = [];
  for (const row of await store.roundsInState(states)) {
    const { round, mismatches } = await loadRound(store, row, { resimulate: true });
    out.push({
      roundId: row.id,
      roomCode: (await store.roomById(row.roomId))?.code ?? '?',
      simulator: row.simulator,
      scenario: row.scenario,
      teams: round.teams.size,
      minutes: row.minute,
      mismatches,
    });
  }
  return out;
}
