// The shell around a room's state: it handles one command at a time (a promise queue), stores what
// the command's transition asks to store, and only then swaps in the next state and sends the
// messages — stored before seen. A failed commit changes nothing. It also owns the room's timers (its
// Beats, and the DueHold of a minute stored ahead of its time; both stopped in dispose()) and who is connected.
export type { Logger } from './life.ts';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import type {
  RoleChange,
  RoomMinute,
  RoomSummary,
  RoomView,
  RoundScores,
  TeacherMessage,
  TeamHistory,
} from '../../shared/protocol/types.ts';
import type { Committer } from '../db/commit.ts';
import type { Store } from '../db/store.ts';
import { FencedError, type Write } from '../db/writes.ts';
import type { Metrics } from '../ops/metrics.ts';
import { Beats, DueHold } from './beats.ts';
import type { Clock } from './clock.ts';
import { emit, type CommandOf, type Commands, type CommandType, type Message } from './commands.ts';
import type { Mismatches } from './load.ts';
import { deliver, type RoomOutput } from './output.ts';
import { logLife, type Logger } from './life.ts';
import { NotOwnerError, type RoomGuard } from './ownership.ts';
import { Presence } from './presence.ts';
import { readTeamMinutes, type TeamMinutes } from './minutes.ts';
import type { PlayerState, RoomState, RoundRun } from './state.ts';
import { historyFor, teamMinutes, viewMoves, viewOf, type ViewChannel } from './split-view.ts';
import { transition } from './transitions/index.ts';
import {
  headlineTrends,
  messagesFor,
  roleChangesOf,
  roomMinute,
  roomSummary,
  roomView,
  roundScores,
  teamHistory,
  type Audience,
} from './views.ts';

export interface RoomDeps {
  /** Reads and fresh ids. */
  store: Store;
  /** Writes, grouped with other rooms' into one transaction per turn. */
  committer: Committer;
  out: RoomOutput;
  clock: Clock;
  log: Logger;
  /** A seed for a round whose configuration leaves it to chance. */
  drawSeed(): number;
  /** Tick duration, lag and failures (ops/metrics.ts); none by default. */
  metrics?: Metrics;
  /**
   * Minutes that fall due within the same slot of this many milliseconds of the clock are played together, at
   * the slot's end: one timer, one transaction and one fsync for all those rooms instead of one each. 0 (the
   * default): each minute at its own time.
   */
  beatSlotMs?: number;
  /**
   * A minute is started this many milliseconds before it falls due, and held once stored until it is due: the
   * class gets it on the beat, not after its computing and its transaction. A change that reaches the room in
   * those last milliseconds of a minute, like one that comes while the minute is being stored, takes effect a
   * minute later. 0 (the default): each minute starts at its due time.
   */
  minuteLeadMs?: number;
}

export class Room {
  private current: RoomState;
  private readonly presence: Presence;
  /** The last command in the queue; the next one starts when it settles. */
  private tail: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private readonly beats: Beats;
  /** A stored minute waiting for its due time (minuteLeadMs). */
  private readonly hold: DueHold;
  private disposed: Error | null = null;
  /** The round the room was loaded with (recoveryMismatches are of its teams). */
  private readonly loadedRound: number;

  constructor(
    private readonly deps: RoomDeps,
    state: RoomState,
    /** Minutes whose re-simulation differed from the stored snapshot when the room was loaded. */
    readonly recoveryMismatches: Mismatches = [],
    /** Cluster mode: this process's hold on the room; every commit goes through it. */
    readonly guard: RoomGuard | null = null,
  ) {
    this.current = state;
    this.loadedRound = state.round.id;
    this.presence = new Presence(deps.clock.now());
    this.beats = new Beats(deps.clock, deps.beatSlotMs ?? 0, deps.minuteLeadMs ?? 0, (at, startAt) =>
      this.beat(at, startAt),
    );
    this.hold = new DueHold(deps.clock);
  }

  get state(): RoomState {
    return this.current;
  }
  get round(): RoundRun {
    return this.current.round;
  }
  get id(): number {
    return this.current.id;
  }
  get code(): string {
    return this.current.code;
  }
  get teacherId(): number {
    return this.current.teacherId;
  }

  // ── commands ─────────────────────────────────────────────────────────
  /**
   * Queues a command: it runs after the ones before it, its writes are stored, then its next state
   * and messages take effect, and the reply comes back. A refused command (ClassroomError) or a
   * failed commit (STORAGE_FAILED) changes nothing.
   */
  dispatch<K extends CommandType>(cmd: CommandOf<K>): Promise<Commands[K]['reply']> {
    this.queued++;
    const run = this.tail.then(() => this.run(cmd)).finally(() => this.queued--);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Resolves when every command queued so far (and any queued meanwhile) has been handled. */
  async settled(): Promise<void> {
    let t: Promise<unknown>;
    do {
      t = this.tail;
      await t;
    } while (t !== this.tail);
  }

  private async run<K extends CommandType>(cmd: CommandOf<K>): Promise<Commands[K]['reply']> {
    if (this.disposed) throw this.disposed;
    const { store, clock, drawSeed } = this.deps;
    await store.ids.ready();
    const t0 = performance.now();
    /** Time a stored minute waited for its due time: not the room's work, left out of its durations. */
    let heldMs = 0;
    try {
      const prev = this.current;
      const now = clock.now();
      const connected = (id: number) => this.presence.isConnected(id);
      const out = transition(prev, cmd, { now, ids: store.ids, drawSeed, connected });
      const t1 = performance.now();
      await this.store(out.writes, cmd.type);
      const t2 = performance.now();
      // A minute started ahead of its time is seen at its time: stored, then held (with the commands behind it).
      const held = cmd.type === 'tick' && !this.disposed && this.hold.until((cmd as CommandOf<'tick'>).dueAt);
      if (held) {
        await held;
        if (this.disposed) throw this.disposed;
        heldMs = performance.now() - t2;
      }
      this.current = out.next;
      this.beats.follow(prev.round, out.next.round, now);
      // Sockets follow their player's view first, so that a minute sent by this command reaches them.
      for (const v of viewMoves(prev, out.next)) this.deps.out.viewPlayer(this.code, v.playerId, v.from, v.to);
      this.send(out.messages);
      logLife(this.deps.log, this.code, prev.round, out.next.round);
      if (cmd.type === 'tick') {
        this.deps.metrics?.tickPhases(t1 - t0, t2 - t1, performance.now() - t2 - heldMs);
        // A beat that found its round paused or ended played no minute: nothing reached a class late.
        const { dueAt } = cmd as CommandOf<'tick'>;
        if (out.next.round.minute !== prev.round.minute) this.deps.metrics?.minuteDelay(clock.now() - dueAt);
      }
      return out.reply;
    } finally {
      if (cmd.type === 'tick') this.deps.metrics?.tick(performance.now() - t0 - heldMs);
    }
  }

  private async store(writes: readonly Write[], command: CommandType): Promise<void> {
    // Cluster mode: with the room's fencing write, or not at all when the lease is not surely ours (NotOwnerError).
    let sealed = writes;
    if (this.guard) {
      try {
        sealed = this.guard.seal(this.id, writes);
      } catch (e) {
        if (e instanceof NotOwnerError) this.guard.lost(e.reason);
        throw e;
      }
    }
    try {
      await this.deps.committer.commit(sealed);
    } catch (e) {
      if (e instanceof FencedError) {
        // Another process owns the room now: nothing was stored, nothing is sent; the room leaves this process.
        this.guard?.lost('a commit was refused: another process stored a newer fence');
        throw e;
      }
      this.deps.log.error(
        { room: this.code, command, minute: this.current.round.minute, err: e },
        'could not store a change of the room',
      );
      throw new ClassroomError(ErrorCode.STORAGE_FAILED, 'the server could not store this: nothing changed');
    }
  }

  private send(messages: readonly Message[]): void {
    const { out } = this.deps;
    for (const m of messages) {
      switch (m.kind) {
        case 'emit':
          deliver(out, this.code, m);
          break;
        case 'room':
          out.emit(this.code, { kind: 'teacher' }, 'room', this.view('teacher'));
          out.emit(this.code, { kind: 'public' }, 'room', this.view('public'));
          break;
        case 'summary':
          if (out.listens?.(this.code, { kind: 'observers' }) !== false)
            out.emit(this.code, { kind: 'observers' }, 'summary', roomSummary(m.round, m.sentAt));
          break;
        case 'history':
          void this.sendHistory(m.playerId);
          break;
        case 'place':
          out.placePlayer(
            this.code,
            m.playerId,
            m.teamId,
            this.current.teams.map((t) => t.id),
          );
          break;
        case 'drop':
          out.dropPlayer(this.code, m.playerId);
          break;
      }
    }
  }

  // ── the clock ────────────────────────────────────────────────────────
  /**
   * A running round taken over from a process that died (cluster mode): its last stored minute is sent again —
   * that process may have died after storing it and before sending it; a page takes a minute it already has as
   * a no-op — and the next minutes go on from one tempo from now.
   */
  resumeClock(): void {
    const r = this.current.round;
    if (r.state !== 'running' || this.beats.planned) return;
    const now = this.deps.clock.now();
    this.send([
      ...teamMinutes(this.current, r, now),
      emit({ kind: 'teacher' }, 'room:minute', roomMinute(r, now)),
      { kind: 'summary', round: r, sentAt: now },
    ]);
    this.beats.plan(now, r.tempo);
  }

  /**
   * A minute falls due: the next is planned at once and this one queued. If it cannot be computed or
   * stored, the round stays at its last stored minute, still running, the teacher is told, and the
   * next beat tries again.
   */
  private beat(at: number, startAt: number): void {
    // Late against when it was to start: its due time less the minute's lead.
    this.deps.metrics?.tickLag(this.deps.clock.now() - startAt);
    const r = this.current.round;
    if (r.state === 'running') this.beats.plan(at, r.tempo);
    this.dispatch({ type: 'tick', firedAt: this.deps.clock.now(), dueAt: at }).catch((err: unknown) => {
      if (this.disposed) return;
      this.deps.metrics?.tickFailed();
      const minute = this.current.round.minute + 1;
      // A storage failure was logged with its cause where it happened; anything else is logged here.
      if (!(err instanceof ClassroomError))
        this.deps.log.error({ room: this.code, round: this.current.round.id, minute, err }, 'tick failed');
      this.deps.out.emit(this.code, { kind: 'teacher' }, 'notice', {
        code: ErrorCode.TICK_FAILED,
        message: `minute ${minute} could not be computed or stored; it is tried again at the next beat`,
      });
    });
  }

  // ── presence ─────────────────────────────────────────────────────────
  connect(playerId: number): void {
    if (this.presence.connect(playerId, this.deps.clock.now()))
      this.deps.out.emit(this.code, { kind: 'all' }, 'presence', { playerId, connected: true });
  }
  disconnect(playerId: number): void {
    if (this.presence.disconnect(playerId, this.deps.clock.now()))
      this.deps.out.emit(this.code, { kind: 'all' }, 'presence', { playerId, connected: false });
  }
  /** A teacher or observer socket joined (students are counted by connect). */
  watch(): void {
    this.presence.watch(this.deps.clock.now());
  }
  unwatch(): void {
    this.presence.unwatch(this.deps.clock.now());
  }
  /**
   * Cluster mode: who is connected, counted again from every process's sockets (one entry per student socket),
   * after a takeover or when a process went away; everyone gets the room again.
   */
  recount(studentSockets: readonly number[], watchers: number): void {
    this.presence.reset(studentSockets, watchers, this.deps.clock.now());
    this.send([{ kind: 'room' }]);
  }
  /** Nothing queued, nothing running, nobody connected for at least `ms`: the room can leave memory. */
  idleFor(ms: number): boolean {
    return (
      this.queued === 0 && this.current.round.state !== 'running' && this.presence.quietFor(ms, this.deps.clock.now())
    );
  }

  // ── views ────────────────────────────────────────────────────────────
  /** The room as `audience` may see it (only the teacher's has the seed before the round ends). */
  view(audience: Audience): RoomView {
    return roomView(this.current, (id) => this.presence.isConnected(id), audience);
  }
  /** The round's role changes of one team, or of all (null). */
  roleChanges(teamId: number | null): RoleChange[] {
    return roleChangesOf(this.current.round, teamId);
  }
  /** The messages a desk shows again after a reload (none once the round is over); `'all'`: the teacher's. */
  messages(teamId: number | null | 'all'): TeacherMessage[] {
    return messagesFor(this.current.round, teamId);
  }
  /** The room's last round ended at least `ms` ago: it is no longer shown to anonymous viewers. */
  closedFor(ms: number): boolean {
    const r = this.current.round;
    return r.state === 'finished' && r.finishedAt !== null && this.deps.clock.now() - r.finishedAt >= ms;
  }
  player(playerId: number): PlayerState | undefined {
    const p = this.current.players.get(playerId);
    return p && !p.removed ? p : undefined;
  }
  get started(): boolean {
    return this.current.round.state !== 'lobby';
  }
  scores(): RoundScores | null {
    return this.current.round.state === 'finished' ? roundScores(this.current.round) : null;
  }
  trends(): Record<number, Record<string, number[]>> {
    return headlineTrends(this.current.round);
  }
  latestMinute(): RoomMinute | null {
    return this.started ? roomMinute(this.current.round, this.deps.clock.now()) : null;
  }
  summary(): RoomSummary | null {
    return this.started ? roomSummary(this.current.round, this.deps.clock.now()) : null;
  }
  async historyOf(teamId: number): Promise<TeamHistory | null> {
    const read = await this.minutesOf(teamId);
    return read && teamHistory(read.state.round, read.team, read.snapshots);
  }
  /** A student's team's history as they may see it (split view keeps what their roles see). */
  async historyFor(playerId: number): Promise<TeamHistory | null> {
    const teamId = this.player(playerId)?.teamId;
    const read = teamId != null ? await this.minutesOf(teamId) : null;
    // The player as they are once the minutes are read: their roles may have moved meanwhile.
    const p = this.player(playerId);
    return read && p && p.teamId === teamId ? historyFor(read.state, read.team, p, read.snapshots) : null;
  }

  /** Whether a history read earlier still ends at its team's latest minute, in the room's current round. */
  isLatest(h: TeamHistory): boolean {
    const { round } = this.current;
    return round.id === h.roundId && round.teams.get(h.teamId)?.snapshot.minute === h.snapshots.at(-1)?.minute;
  }

  /** A moved player's new team history to their sockets, once read (a reload's join reads it the same way). */
  private async sendHistory(playerId: number): Promise<void> {
    try {
      const h = await this.historyFor(playerId);
      if (h && !this.disposed) this.deps.out.emit(this.code, { kind: 'player', playerId }, 'history', h);
    } catch (err) {
      // The desk finds out at its next minute, which is not its team's, and joins again for its history.
      this.deps.log.warn({ err, code: this.code, playerId }, 'could not read a moved player’s history');
    }
  }

  /** A team's minutes `0…` its latest, read back from the database, with the state they go with (minutes.ts). */
  private minutesOf(teamId: number): Promise<TeamMinutes | null> {
    const differed = (roundId: number) =>
      roundId === this.loadedRound && this.recoveryMismatches.some((m) => m.teamId === teamId);
    return readTeamMinutes(() => this.current, this.deps.store, teamId, differed);
  }
  /** The view channel a student's sockets belong in now (split-view.ts). */
  viewOf(playerId: number): ViewChannel | null {
    const p = this.player(playerId);
    return p ? viewOf(this.current.round.model, p) : null;
  }

  /** Clears the room's timer; commands after this are refused (with `reason`, when the room moved elsewhere). */
  dispose(reason?: Error): void {
    this.disposed = reason ?? new ClassroomError(ErrorCode.ROOM_NOT_FOUND, 'this room has closed: join it again');
    this.beats.stop();
    // A held minute is stored: it is not sent from here (a reload, a restart or the next owner shows it).
    this.hold.release();
  }
}
