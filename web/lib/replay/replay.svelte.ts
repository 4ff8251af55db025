// A replay being watched: which team, which minute, playing or not, and the team's desk as it was
// at that minute — the same DeskState the live desk draws, loaded from the stored round instead of
// the socket. Nothing here is sent anywhere; a replay only reads.
import {
  type LedgerFigures,
  type PlayerView,
  type RoomView,
  type RoundReplay,
  SEAT_DEFAULTS,
} from '$shared/protocol/types.ts';
import { fromColumns } from '$shared/replay/columns.ts';
import { evaluateWithSeries, ledgerAt } from '$shared/classroom/ledger.ts';
import { scoreRuleOf } from '$shared/sim/score.ts';
import type { ScenarioDef, Snapshot } from '$shared/sim/types.ts';
import { type Shown, shownScenario } from '$lib/sims/shown.ts';
import type { Sim } from '$lib/sims/types.ts';
import { DeskState } from '$lib/state/desk.svelte.ts';
import { changesUpTo, clampMinute, lastMinuteOf, rosterOf, snapshotsUpTo, stateAt } from './logic.ts';

/** Simulated minutes per real second while playing. */
export const SPEEDS = [1, 2, 5] as const;

export class ReplayView {
  readonly desk = new DeskState();
  readonly last: number;
  readonly players: PlayerView[];
  teamId = $state(0);
  minute = $state(0);
  playing = $state(false);
  speed = $state<number>(SPEEDS[0]);
  /** The room as the desk wants it: this round's teams, the authors as members, the state at the minute. */
  room = $derived.by((): RoomView => this.roomAt(this.minute));
  private snapshots = new Map<number, Snapshot[]>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    readonly replay: RoundReplay,
    readonly sim: Sim,
    start: { teamId?: number; minute?: number } = {},
  ) {
    this.last = lastMinuteOf(replay);
    this.players = rosterOf(replay.teams);
    const team = replay.teams.find((t) => t.teamId === start.teamId) ?? replay.teams[0];
    this.teamId = team?.teamId ?? 0;
    this.minute = clampMinute(start.minute ?? 0, this.last);
    this.show();
  }

  get team() {
    return this.replay.teams.find((t) => t.teamId === this.teamId);
  }

  setMinute(minute: number): void {
    this.minute = clampMinute(minute, this.last);
    this.show();
  }

  setTeam(teamId: number): void {
    if (!this.replay.teams.some((t) => t.teamId === teamId)) return;
    this.teamId = teamId;
    this.show();
  }

  /** Plays from the minute shown (from the start when at the end), `speed` minutes per second. */
  play(): void {
    if (this.minute >= this.last) this.setMinute(0);
    this.playing = true;
    this.restartTimer();
  }

  pause(): void {
    this.playing = false;
    this.stopTimer();
  }

  setSpeed(speed: number): void {
    this.speed = speed;
    if (this.playing) this.restartTimer();
  }

  dispose(): void {
    this.stopTimer();
  }

  private restartTimer(): void {
    this.stopTimer();
    this.timer = setInterval(() => {
      if (this.minute >= this.last) this.pause();
      else this.setMinute(this.minute + 1);
    }, 1000 / this.speed);
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The scenario the round played, as its screens show it (a teacher's own when it was one). */
  get scenario(): Shown {
    return shownScenario(this.sim, this.replay.round.scenario, this.replay.own);
  }

  /** The goals and score rule of the round's scenario: a teacher's own when it played one, else the built-in. */
  private scenarioDef(): Pick<ScenarioDef, 'goals' | 'scoreRule'> | undefined {
    return this.replay.own ?? this.sim.model.scenarios.find((s) => s.id === this.replay.round.scenario);
  }

  /** Every team's ledger at its last minute against doing nothing then (the results' money column). */
  endLedgers(): Map<number, LedgerFigures> {
    const out = new Map<number, LedgerFigures>();
    const def = this.scenarioDef();
    const ruleOf = def ? scoreRuleOf(def) : 1;
    for (const t of this.replay.teams) {
      const last = this.snapshotsOf(t.teamId).at(-1);
      if (last && t.baseline.total.length > last.minute)
        out.set(t.teamId, ledgerAt(last, this.sim.model.ledger.total, t.baseline, ruleOf));
    }
    return out;
  }

  private snapshotsOf(teamId: number): Snapshot[] {
    let list = this.snapshots.get(teamId);
    if (!list) {
      const t = this.replay.teams.find((x) => x.teamId === teamId);
      list = t ? fromColumns(t.columns) : [];
      this.snapshots.set(teamId, list);
    }
    return list;
  }

  /** Loads the desk with the team's minutes and changes up to the minute, and the goals evaluated over them. */
  private show(): void {
    const team = this.team;
    if (!team) return;
    const snapshots = snapshotsUpTo(this.snapshotsOf(team.teamId), this.minute);
    const scenario = this.scenarioDef();
    // At the end of a finished round the stored verdict is shown; before, the progress as it was live.
    const final = this.minute >= this.last && this.replay.round.state === 'finished' ? team.result : null;
    // Live figures against the round's references at the same minute (a round not started has none).
    const covered = snapshots.length > 0 && team.baseline.total.length >= snapshots.length;
    const live =
      scenario && covered ? evaluateWithSeries(scenario, snapshots, team.baseline, this.sim.model.ledger.total) : null;
    this.desk.load({
      roundId: this.replay.round.id,
      teamId: team.teamId,
      snapshots,
      changes: changesUpTo(team.changes, this.minute),
      roleChanges: team.roleChanges.filter((c) => c.minute <= this.minute),
      seatTurns: team.seatTurns.filter((s) => s.minute <= this.minute),
      progress: final?.goals ?? live?.goals ?? [],
      score: final ? final.score : (live?.score ?? null),
      ledger: live?.ledger ?? { total: 0, baseline: 0, calm: 0, saving: 0 },
      baseline: team.baseline,
    });
  }

  private roomAt(minute: number): RoomView {
    const r = this.replay.round;
    return {
      code: this.replay.roomCode,
      // The history does not keep the tempo, and nothing the desk draws depends on it.
      config: {
        simulator: r.simulator,
        scenario: r.scenario,
        minutes: r.minutes,
        tempo: r.tempo,
        seed: r.seed,
        teamCount: this.replay.teams.length,
        splitView: false,
        ...SEAT_DEFAULTS,
        purpose: 'class',
      },
      round: {
        ...{
          id: r.id,
          number: r.number,
          state: stateAt(r, minute, this.last),
          simulator: r.simulator,
          scenario: r.scenario,
          seed: r.seed,
        },
        ...{ minutes: r.minutes, tempo: r.tempo, minute, forkOf: r.forkOf, endedEarlyAt: r.endedEarlyAt },
        ...(this.replay.own ? { own: this.replay.own } : {}),
      },
      teams: this.replay.teams.map((t) => ({ id: t.teamId, idx: t.idx, name: t.name, whatIf: t.whatIf })),
      players: rosterOf(this.replay.teams, minute),
      locked: false,
      replayShared: false,
    };
  }
}
