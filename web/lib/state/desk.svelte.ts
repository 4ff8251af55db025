// A team's round as the desk draws it: every minute so far, every change, the goals' progress.
// Whole arrays are replaced ($state.raw), never mutated, so charts and lists see each new minute.
import type {
  BaselineSeries,
  ChangeRecord,
  LedgerFigures,
  RoleChange,
  RoleChanges,
  SeatTurn,
  TeamHistory,
  TeamMinute,
} from '$shared/protocol/types.ts';
import type { GoalResult, Snapshot } from '$shared/sim/types.ts';
import { addChange, mergeMinute } from './desk-logic.ts';

export class DeskState {
  roundId = $state<number | null>(null);
  teamId = $state<number | null>(null);
  snapshots = $state.raw<Snapshot[]>([]);
  changes = $state.raw<ChangeRecord[]>([]);
  /** Who got which role from whom this round (the lobby's dealing included), oldest first. */
  roleChanges = $state.raw<RoleChange[]>([]);
  /** Every seat of the team passed to a pilot (the autopilot, the teacher) or taken back, oldest first. */
  seatTurns = $state.raw<SeatTurn[]>([]);
  progress = $state.raw<GoalResult[]>([]);
  score = $state<number | null>(null);
  /** The team's ledger total at the latest minute against doing nothing and a calm hour then; null before minute 0. */
  ledger = $state.raw<LedgerFigures | null>(null);
  /** Doing nothing's and a calm hour's ledger totals by minute: up to the latest one until the round is over. */
  baseline = $state.raw<BaselineSeries | null>(null);
  latest = $derived<Snapshot | null>(this.snapshots.at(-1) ?? null);
  /** Last computed minute; -1 before the round starts. */
  minute = $derived(this.latest?.minute ?? -1);

  load(h: TeamHistory): void {
    this.roundId = h.roundId;
    this.teamId = h.teamId;
    this.snapshots = h.snapshots;
    this.changes = [...h.changes].sort((a, b) => a.seq - b.seq);
    this.roleChanges = h.roleChanges;
    this.seatTurns = h.seatTurns;
    this.progress = h.progress;
    this.score = h.score;
    this.ledger = h.snapshots.length > 0 ? h.ledger : null;
    this.baseline = h.baseline;
  }

  reset(roundId: number | null, teamId: number | null = this.teamId): void {
    this.roundId = roundId;
    this.teamId = teamId;
    this.snapshots = [];
    this.changes = [];
    this.roleChanges = [];
    this.seatTurns = [];
    this.progress = [];
    this.score = null;
    this.ledger = null;
    this.baseline = null;
  }

  /** Adds a minute; false when minutes were missed (the caller fetches the whole history again). */
  applyMinute(
    tm: Pick<TeamMinute, 'teamId' | 'snapshot' | 'progress' | 'score' | 'ledger'> & { roundId: number },
  ): boolean {
    if (tm.roundId !== this.roundId || tm.teamId !== this.teamId) {
      if (tm.snapshot.minute !== 0) return false;
      this.reset(tm.roundId, tm.teamId);
    }
    const { snapshots, gap } = mergeMinute(this.snapshots, tm.snapshot);
    if (gap) return false;
    this.snapshots = snapshots;
    this.progress = tm.progress;
    this.score = tm.score;
    this.ledger = tm.ledger;
    return true;
  }

  /** Roles changed hands (the `roles` event): this team's, of this round. */
  addRoleChanges(r: RoleChanges): void {
    if (r.roundId !== this.roundId || r.teamId !== this.teamId) return;
    this.roleChanges = [...this.roleChanges, ...r.changes];
  }

  /** A seat of this team changed pilot (the `seat` event). */
  addSeatTurn(t: SeatTurn): void {
    if (t.roundId !== this.roundId || t.teamId !== this.teamId) return;
    this.seatTurns = [...this.seatTurns, t];
  }

  addChange(c: ChangeRecord): void {
    if (c.roundId !== this.roundId || c.teamId !== this.teamId) return;
    this.changes = addChange(this.changes, c);
  }
}
