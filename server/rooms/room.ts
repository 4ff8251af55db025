// A room owns its clock, its timer and every team's simulation. All inputs arrive as synchronous
// method calls (the database is synchronous too), so they are handled one at a time; dispose()
// clears everything the room scheduled.
import { randomInt } from 'node:crypto';
import { scenarioDef } from '../../shared/sim/engine.ts';
import { getModel, isSimulatorId } from '../../shared/sim/registry.ts';
import type { ControlValue } from '../../shared/sim/types.ts';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import type { ChangeRecord, ClockAction, RoomMinute, RoomSummary, RoomView, RoundConfig, RoundScores, TeamHistory, Tempo } from '../../shared/protocol/types.ts';
import type { RoundRow, Store } from '../db/store.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { Clock, Timer } from './clock.ts';
import type { RoomOutput } from './output.ts';
import { checkChange } from './changes.ts';
import { Roster, type PlayerState } from './roster.ts';
import { Staffing } from './staffing.ts';
import { commitStep, headlineTrend, loadRoundRun, openTeam, roomMinute, roomSummary, roundScores, stepTeam, teamHistory, teamMinute, type RoundRun, type TeamRun } from './round.ts';

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface RoomDeps {
  store: Store;
  out: RoomOutput;
  clock: Clock;
  log: Logger;
  metrics?: Metrics;
}

const fail = (code: ErrorCode, message: string): never => {
  throw new ClassroomError(code, message);
};

export class Room {
  readonly roster = new Roster();
  round!: RoundRun;
  private timer: Timer | null = null;
  private lastTickAt = 0;
  private disposed = false;
  private watchers = 0;
  private lastActive: number;
  /** Minutes whose re-simulation differed from the stored snapshot, found at recovery. */
  recoveryMismatches: { teamId: number; minutes: number[] }[] = [];

  private readonly staff: Staffing;

  constructor(
    private readonly deps: RoomDeps,
    readonly id: number,
    readonly code: string,
    readonly teacherId: number,
    public config: RoundConfig,
  ) {
    this.lastActive = deps.clock.now();
    this.staff = new Staffing({
      ...deps,
      roomId: id,
      code,
      roster: this.roster,
      model: () => this.round.model,
      teamCount: () => this.config.teamCount,
      historyOf: (teamId) => this.historyOf(teamId),
      playsRound: (teamId) => !this.started || this.round.teams.has(teamId),
    });
  }

  // ── views ────────────────────────────────────────────────────────────
  view(): RoomView {
    const r = this.round;
    return {
      code: this.code,
      config: this.config,
      round: { id: r.id, number: r.number, state: r.state, simulator: r.simulator, scenario: r.scenario, seed: r.seed, minutes: r.minutes, tempo: r.tempo, minute: r.minute, forkOf: r.forkOf },
      teams: this.roster.teamViews(this.config.teamCount),
      players: this.roster.playerViews(),
    };
  }
  private broadcastRoom(): void {
    this.deps.out.emit(this.code, { kind: 'all' }, 'room', this.view());
  }
  get started(): boolean {
    return this.round.state !== 'lobby';
  }
  teamRun(teamId: number): TeamRun | undefined {
    return this.round.teams.get(teamId);
  }
  scores(): RoundScores | null {
    return roundScores(this.round);
  }
  trends(): Record<number, Record<string, number[]>> {
    const out: Record<number, Record<string, number[]>> = {};
    for (const t of this.round.teams.values()) out[t.teamId] = headlineTrend(this.round, t);
    return out;
  }
  latestMinute(): RoomMinute | null {
    return this.started ? roomMinute(this.round, this.deps.clock.now()) : null;
  }
  summary(): RoomSummary | null {
    return this.started ? roomSummary(this.round, this.deps.clock.now()) : null;
  }
  historyOf(teamId: number): TeamHistory | null {
    const t = this.round.teams.get(teamId);
    return t ? teamHistory(this.round.id, t) : null;
  }

  // ── loading ──────────────────────────────────────────────────────────
  /** Sets the round from its stored row; a started round is rebuilt by re-simulation and checked. */
  loadRound(row: RoundRow): void {
    const { round, mismatches } = loadRoundRun(this.deps.store, row);
    this.round = round;
    this.recoveryMismatches = mismatches;
    if (mismatches.length) {
      this.deps.log.error({ room: this.code, round: row.id, mismatches }, 're-simulation differs from the stored snapshots');
    }
    // Nobody ticks a round while the server is down: it resumes paused, for the teacher to restart.
    if (round.state === 'running') {
      round.state = 'paused';
      this.deps.store.updateRound(row.id, { state: 'paused' });
    }
  }

  // ── students ─────────────────────────────────────────────────────────
  addStudent(name: string, tokenHash: string): PlayerState {
    const p = this.staff.addStudent(name, tokenHash);
    this.broadcastRoom();
    return p;
  }
  connect(playerId: number): void {
    this.touch();
    if (this.roster.connect(playerId)) this.broadcastRoom();
  }
  disconnect(playerId: number): void {
    this.touch();
    if (this.roster.disconnect(playerId)) this.broadcastRoom();
  }
  /** A teacher or observer socket joined (students are counted by the roster). */
  watch(): void {
    this.touch();
    this.watchers++;
  }
  unwatch(): void {
    this.touch();
    this.watchers = Math.max(0, this.watchers - 1);
  }
  private touch(): void {
    this.lastActive = this.deps.clock.now();
  }
  /** Nobody connected, nothing running, for at least `ms`: the room can leave memory (it reloads from the database). */
  idleFor(ms: number): boolean {
    return this.round.state !== 'running' && this.watchers === 0 && this.roster.connectedCount === 0 && this.deps.clock.now() - this.lastActive >= ms;
  }

  /** A student's change: owner and range checked, recorded, shown to the team as pending. */
  control(playerId: number, key: string, value: ControlValue): ChangeRecord {
    const r = this.round;
    const p = this.roster.players.get(playerId);
    const teamId = checkChange(r, p, key, value);
    // Stored when accepted: a change survives a crash even before its minute comes.
    const change = this.deps.store.recordChange({ roundId: r.id, teamId, minute: r.minute + 1, key, value, author: { playerId, name: p!.name }, at: this.deps.clock.now() });
    r.teams.get(teamId)!.changes.push(change);
    this.deps.out.emit(this.code, { kind: 'team', teamId }, 'pending', change);
    this.deps.out.emit(this.code, { kind: 'teacher' }, 'pending', change);
    return change;
  }

  // ── teacher ──────────────────────────────────────────────────────────
  configure(patch: Partial<RoundConfig>): void {
    const r = this.round;
    const onlyTempo = Object.keys(patch).every((k) => k === 'tempo');
    if (r.state !== 'lobby' && !onlyTempo) fail(ErrorCode.BAD_STATE, 'the round has started: only the tempo can change now (use next round)');
    if (r.state !== 'lobby') {
      if (patch.tempo !== undefined) this.setTempo(patch.tempo);
      return;
    }
    const next: RoundConfig = { ...this.config, ...patch } as RoundConfig;
    if (!isSimulatorId(next.simulator)) return fail(ErrorCode.BAD_REQUEST, `unknown simulator "${next.simulator}"`);
    const model = getModel(next.simulator);
    if (patch.simulator && patch.simulator !== this.config.simulator && patch.scenario === undefined) next.scenario = 'free';
    if (!model.scenarios.some((s) => s.id === next.scenario)) fail(ErrorCode.BAD_REQUEST, `unknown scenario "${next.scenario}" for ${next.simulator}`);
    const { store } = this.deps;
    const before = { config: this.config, round: this.round };
    try {
      store.transaction(() => {
        store.setRoomConfig(this.id, next);
        store.updateRound(r.id, { simulator: next.simulator, scenario: next.scenario, seed: next.seed, minutes: next.minutes, tempo: next.tempo });
        this.config = next;
        this.round = { ...r, simulator: next.simulator, scenario: next.scenario, seed: next.seed, minutes: next.minutes, tempo: next.tempo, model, scenarioDef: scenarioDef(model, next.scenario) };
        this.staff.setTeamCount(next.teamCount);
      });
    } catch (e) {
      // The transaction rolled back: so does the room.
      this.config = before.config;
      this.round = before.round;
      this.reloadRoster();
      throw e;
    }
    this.broadcastRoom();
  }

  /** Reads players and teams from the database. */
  reloadRoster(): void {
    this.staff.reload();
  }
  move(playerId: number, teamId: number): void {
    this.staff.move(playerId, teamId);
    this.broadcastRoom();
  }
  rename(teamId: number, name: string): void {
    this.staff.rename(teamId, name);
    const run = this.round.teams.get(teamId);
    if (run) run.name = name;
    this.broadcastRoom();
  }
  remove(playerId: number): void {
    this.staff.remove(playerId);
    this.broadcastRoom();
  }

  clock(action: ClockAction): void {
    const state = this.round.state;
    const need = (ok: boolean, what: string) => ok || fail(ErrorCode.BAD_STATE, `cannot ${action}: the round is ${state}${what ? `; ${what}` : ''}`);
    switch (action) {
      case 'start':
        need(state === 'lobby', '');
        this.start();
        break;
      case 'pause':
        need(state === 'running', '');
        this.clearTimer();
        this.setState('paused');
        break;
      case 'resume':
        need(state === 'paused', '');
        this.setState('running');
        this.schedule(this.deps.clock.now());
        break;
      case 'step':
        need(state === 'paused', 'pause first');
        this.tick();
        break;
      case 'end':
        need(state === 'running' || state === 'paused', '');
        this.finish();
        break;
      case 'next':
        need(state === 'finished', 'end the round first');
        this.nextRound();
        break;
    }
  }

  setTempo(tempo: Tempo): void {
    const r = this.round;
    r.tempo = tempo;
    this.config = { ...this.config, tempo };
    this.deps.store.transaction(() => {
      this.deps.store.updateRound(r.id, { tempo });
      this.deps.store.setRoomConfig(this.id, this.config);
    });
    if (r.state === 'running') {
      // The next minute comes one new tempo after the last one (at once if that is already past).
      this.clearTimer();
      this.schedule(this.lastTickAt);
    }
    this.broadcastRoom();
  }

  private setState(state: RoundRun['state']): void {
    this.round.state = state;
    this.deps.store.updateRound(this.round.id, { state });
    this.broadcastRoom();
  }

  private start(): void {
    const r = this.round;
    const { store, clock } = this.deps;
    const seed = r.seed ?? randomInt(0, 2 ** 32);
    const teams = this.roster.activeTeams(this.config.teamCount);
    const now = clock.now();
    const runs = teams.map((t) => openTeam(r, { teamId: t.id, idx: t.idx, name: t.name }, seed));
    store.transaction(() => {
      store.setRoundTeams(r.id, teams.map((t) => ({ teamId: t.id, idx: t.idx, name: t.name })));
      store.updateRound(r.id, { seed, state: 'running', startedAt: now });
      store.saveMinute(r.id, 0, runs.map((t) => ({ teamId: t.teamId, minute: 0, data: JSON.stringify(t.sim.snapshot) })));
    });
    r.seed = seed;
    r.state = 'running';
    r.minute = 0;
    for (const t of runs) r.teams.set(t.teamId, t);
    this.broadcastRoom();
    this.broadcastMinute(now);
    this.schedule(now);
    this.deps.log.info({ room: this.code, round: r.id, simulator: r.simulator, scenario: r.scenario, teams: runs.length, seed }, 'round started');
  }

  private nextRound(): void {
    const r = this.round;
    const row = this.deps.store.createRound({
      roomId: this.id,
      number: r.number + 1,
      simulator: this.config.simulator,
      scenario: this.config.scenario,
      seed: this.config.seed,
      minutes: this.config.minutes,
      tempo: this.config.tempo,
      state: 'lobby',
      createdAt: this.deps.clock.now(),
    });
    this.loadRound(row);
    this.broadcastRoom();
  }

  // ── the clock ────────────────────────────────────────────────────────
  /** The next tick one tempo after `from`; timers are planned from the previous plan, so they do not drift. */
  private schedule(from: number): void {
    if (this.disposed) return;
    this.lastTickAt = from;
    const at = from + this.round.tempo * 1000;
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = null;
      this.deps.metrics?.tickLag(this.deps.clock.now() - at);
      this.tick();
      if (this.round.state === 'running') this.schedule(at);
    }, Math.max(0, at - this.deps.clock.now()));
  }
  private clearTimer(): void {
    this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * One simulated minute for every team: compute, store in one transaction, then broadcast. A
   * failure leaves the room at its last stored minute, paused, and tells the teacher.
   */
  tick(): void {
    const r = this.round;
    if (r.state !== 'running' && r.state !== 'paused') return;
    const { store, clock, out, log } = this.deps;
    const started = clock.now();
    const t0 = performance.now();
    const minute = r.minute + 1;
    try {
      const teams = [...r.teams.values()];
      const next = teams.map((t) => stepTeam(r, t, minute));
      const done = minute >= r.minutes;
      // Commit in memory only after the database has it.
      const records = next.map((s, i) => ({ teamId: teams[i].teamId, minute, data: JSON.stringify(s.snapshot) }));
      const saved = teams.map((t) => ({ snapshots: t.snapshots.length, progress: t.progress, score: t.score, sim: t.sim }));
      teams.forEach((t, i) => commitStep(r, t, next[i]));
      try {
        store.saveMinute(r.id, minute, records, done ? { finishedAt: started, results: teams.map((t) => ({ teamId: t.teamId, goals: t.progress, score: t.score })) } : undefined);
      } catch (e) {
        teams.forEach((t, i) => {
          t.snapshots.length = saved[i].snapshots;
          t.sim = saved[i].sim;
          t.progress = saved[i].progress;
          t.score = saved[i].score;
        });
        throw e;
      }
      r.minute = minute;
      this.broadcastMinute(started);
      if (done) {
        this.clearTimer();
        r.state = 'finished';
        this.broadcastRoom();
        out.emit(this.code, { kind: 'all' }, 'scores', this.scores()!);
        log.info({ room: this.code, round: r.id, minute }, 'round finished');
      }
    } catch (e) {
      log.error({ room: this.code, round: r.id, minute, err: e }, 'tick failed');
      this.deps.metrics?.tickFailed();
      this.clearTimer();
      if (r.state === 'running') {
        r.state = 'paused';
        try {
          store.updateRound(r.id, { state: 'paused' });
        } catch {
          // The database is what failed; the in-memory state is still the truth until restart.
        }
      }
      out.emit(this.code, { kind: 'teacher' }, 'notice', { code: ErrorCode.TICK_FAILED, message: `minute ${minute} could not be computed or stored; the round is paused` });
      this.broadcastRoom();
    }
    this.deps.metrics?.tick(performance.now() - t0);
  }

  private broadcastMinute(sentAt: number): void {
    const r = this.round;
    const { out } = this.deps;
    for (const t of r.teams.values()) out.emit(this.code, { kind: 'team', teamId: t.teamId }, 'minute', { roundId: r.id, sentAt, ...teamMinute(t) });
    out.emit(this.code, { kind: 'teacher' }, 'room:minute', roomMinute(r, sentAt));
    out.emit(this.code, { kind: 'observers' }, 'summary', roomSummary(r, sentAt));
  }

  /** Ends the round at its last stored minute and records the scores. */
  private finish(): void {
    const r = this.round;
    this.clearTimer();
    const now = this.deps.clock.now();
    this.deps.store.finishRound(r.id, now, [...r.teams.values()].map((t) => ({ teamId: t.teamId, goals: t.progress, score: t.score })));
    r.state = 'finished';
    this.broadcastRoom();
    this.deps.out.emit(this.code, { kind: 'all' }, 'scores', this.scores()!);
    this.deps.log.info({ room: this.code, round: r.id, minute: r.minute, early: true }, 'round finished');
  }

  get isRunning(): boolean {
    return this.round.state === 'running';
  }

  dispose(): void {
    this.disposed = true;
    this.clearTimer();
  }
}
