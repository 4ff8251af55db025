// The shell around a room's state. Inputs queue; the room takes every input waiting at once, applies their pure
// transitions in order, stores all their writes in one commit, and only then swaps in the next state and sends the
// messages — stored before seen. A refused input changes nothing; a failed commit changes nothing either (each
// input is then tried alone, so that one bad write fails only its own input). The room also owns its timers (its
// Beats and the grace of dropped seats, stopped in dispose()) and who is at each seat (presence.ts): a seat dropped
// past the room's grace is handed to the autopilot (or offered to the team) through the same commands as anyone's.
import { ClassroomError, ErrorCode, NoticeCode } from '../../shared/protocol/errors.ts';
import type {
  RoleChange,
  RoomMinute,
  RoomSummary,
  RoomView,
  RoundScores,
  SeatTurn,
  TeacherMessage,
  TeamHistory,
} from '../../shared/protocol/types.ts';
import type { Committer } from '../db/commit.ts';
import type { Store } from '../db/store.ts';
import { FencedError, type Write } from '../db/writes.ts';
import type { Clock, Timer } from '../lib/clock.ts';
import type { Logger } from '../lib/log.ts';
import type { Metrics } from '../lib/metrics.ts';
import { Beats } from './beats.ts';
import type { Command, CommandOf, Commands, CommandType, Message, Outcome } from './commands.ts';
import { logLife } from './life.ts';
import type { Mismatches } from './load.ts';
import { readTeamMinutes, type TeamMinutes } from './minutes.ts';
import { emit, type RoomOutput } from './output.ts';
import { NotOwnerError, type RoomGuard } from './ownership.ts';
import { Presence } from './presence.ts';
import { historyFor, teamMinutes, type ViewChannel, viewMoves, viewOf } from './split-view.ts';
import type { PlayerState, RoomState, RoundRun } from './state.ts';
import { transition } from './transitions/index.ts';
import {
  headlineTrends,
  messagesFor,
  roleChangesOf,
  roomMinute,
  roomSummary,
  roomView,
  roundScores,
  seatTurnsOf,
  teamHistory,
  type Audience,
  type SeatPresence,
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
}

/** An input waiting for its turn, with whoever waits for its reply. */
interface Pending {
  cmd: Command;
  resolve(reply: unknown): void;
  reject(e: unknown): void;
}

/** An input's transition, computed from the state the inputs before it in the batch left. */
interface Step {
  pending: Pending;
  before: RoomState;
  out: Outcome<unknown>;
}

export class Room {
  private current: RoomState;
  private readonly presence: Presence;
  /** Inputs waiting for the room's next turn. */
  private inbox: Pending[] = [];
  /** The turn under way (inputs taken, stored, sent), if any. */
  private turn: Promise<void> | null = null;
  /** Messages read from the database before they are sent (a moved player's history), under way. */
  private readonly sending = new Set<Promise<void>>();
  private readonly beats: Beats;
  private disposed: Error | null = null;
  /** Why the room takes no input now (its owner cannot be sure it is still its own), or null. */
  private held: ClassroomError | null = null;
  /** Its last commit failed (the database out of reach or full): logged once until one succeeds. */
  private storing: 'ok' | 'failing' = 'ok';
  /** A minute could not be stored and everyone was told so: the next commit that succeeds says the round goes on. */
  private storageSaid = false;
  /** The round the room was loaded with (recoveryMismatches are of its teams). */
  private readonly loadedRound: number;
  /** When the next dropped seat's grace runs out. */
  private graceTimer: Timer | null = null;
  /** Dropped seats whose grace ran out in this absence (the rule applied once; cleared when the student is back). */
  private readonly expired = new Set<number>();

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
    this.beats = new Beats(deps.clock, (at) => this.beat(at));
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

  // ── inputs ───────────────────────────────────────────────────────────
  /**
   * Queues an input: it is handled with every other input waiting when the room's turn comes (those of the same
   * turn of the event loop among them), after the ones before it; the reply comes back once its writes are stored
   * and its messages sent. A refused input (ClassroomError) or a failed commit (STORAGE_FAILED) changes nothing.
   */
  dispatch<K extends CommandType>(cmd: CommandOf<K>): Promise<Commands[K]['reply']> {
    return new Promise((resolve, reject) => {
      this.inbox.push({ cmd: cmd as Command, resolve: resolve as (reply: unknown) => void, reject });
      // After this turn of the event loop, so that the inputs that arrive in it go together.
      this.turn ??= new Promise<void>((done) => setImmediate(done)).then(() => this.drain());
    });
  }

  /** Resolves when every input queued so far (and any queued meanwhile) has been handled, and what it sent is out. */
  async settled(): Promise<void> {
    while (this.turn || this.sending.size > 0) {
      await this.turn;
      await Promise.all(this.sending);
    }
  }

  /** Nothing waiting and nothing under way. */
  private get idle(): boolean {
    return this.turn === null && this.inbox.length === 0;
  }

  private async drain(): Promise<void> {
    try {
      while (this.inbox.length > 0) {
        const batch = this.inbox;
        this.inbox = [];
        await this.take(batch);
      }
    } finally {
      this.turn = null;
    }
  }

  /** One turn: the batch's transitions in order, one commit, the new state, the messages, the replies. */
  private async take(batch: readonly Pending[]): Promise<void> {
    const refused = this.disposed ?? this.held;
    if (refused) {
      for (const p of batch) p.reject(refused);
      return;
    }
    const { store, clock, drawSeed } = this.deps;
    const t0 = performance.now();
    try {
      await store.ids.ready();
    } catch (e) {
      for (const p of batch) p.reject(e);
      return;
    }
    const now = clock.now();
    const connected = (id: number) => this.presence.isConnected(id);
    const absentFor = (id: number) => this.presence.absentFor(id, now);
    const ctx = { now, ids: store.ids, drawSeed, connected, absentFor };
    const steps: Step[] = [];
    let state = this.current;
    for (const pending of batch) {
      try {
        const out = transition(state, pending.cmd, ctx);
        steps.push({ pending, before: state, out });
        state = out.next;
      } catch (e) {
        pending.reject(e);
      }
    }
    if (steps.length === 0) return;
    try {
      await this.store(steps);
    } catch (e) {
      // Tried again one by one, each from the state the ones before it left: one input's bad write fails it alone.
      if (steps.length > 1 && e instanceof ClassroomError && !this.disposed) {
        for (const s of steps) await this.take([s.pending]);
        return;
      }
      for (const s of steps) {
        if (s.pending.cmd.type === 'tick') this.deps.metrics?.tick(performance.now() - t0);
        s.pending.reject(e);
      }
      return;
    }
    this.current = state;
    for (const { before, out } of steps) {
      // The timer follows each input in turn (a pause then a resume plans from the resume).
      this.beats.follow(before.round, out.next.round, now);
      // Sockets follow their player's view first, so that a minute sent by this input reaches them.
      for (const v of viewMoves(before, out.next)) this.deps.out.viewPlayer(this.code, v.playerId, v.from, v.to);
      this.send(out.messages);
      logLife(this.deps.log, this.code, before.round, out.next.round);
    }
    this.followPresence(steps);
    this.armGrace();
    const metrics = this.deps.metrics;
    for (const { pending, before, out } of steps) {
      pending.resolve(out.reply);
      if (pending.cmd.type !== 'tick') continue;
      metrics?.tick(performance.now() - t0);
      // A beat that found its round paused or ended played no minute: nothing reached a class late.
      if (out.next.round.minute !== before.round.minute) metrics?.minuteDelay(clock.now() - pending.cmd.dueAt);
    }
  }

  /** The batch's writes in one commit (in cluster mode sealed with the room's fence). */
  private async store(steps: readonly Step[]): Promise<void> {
    const writes: Write[] = [];
    for (const s of steps) writes.push(...s.out.writes);
    // Cluster mode: with the room's fencing write, or not at all when the lease is not surely ours (NotOwnerError).
    let sealed: readonly Write[] = writes;
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
      // Said once while the database keeps refusing (a minute a second would otherwise be a line a second).
      if (this.storing === 'ok')
        this.deps.log.error(
          { room: this.code, inputs: steps.map((s) => s.pending.cmd.type), minute: this.current.round.minute, err: e },
          'could not store a change of the room',
        );
      this.storing = 'failing';
      throw new ClassroomError(ErrorCode.STORAGE_FAILED, 'the server could not store this: nothing changed');
    }
    if (this.storing === 'failing') {
      this.storing = 'ok';
      this.deps.log.info({ room: this.code, minute: this.current.round.minute }, 'the room stores again');
    }
    if (this.storageSaid) {
      this.storageSaid = false;
      this.deps.out.emit(this.code, { kind: 'all' }, 'notice', {
        code: NoticeCode.RESUMED,
        message: 'the server stores again: the round goes on',
      });
    }
  }

  private send(messages: readonly Message[]): void {
    const { out } = this.deps;
    for (const m of messages) {
      switch (m.kind) {
        case 'emit':
          out.emit(this.code, m.to, m.event, m.payload);
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
          {
            const sent = this.sendHistory(m.playerId).finally(() => this.sending.delete(sent));
            this.sending.add(sent);
          }
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
   * Holds the room: its clock stops and its inputs are refused with `why`, nothing changing, until release() — while
   * its owner cannot be sure the room is still its own (cluster mode, Redis out of reach).
   */
  hold(why: ClassroomError): void {
    if (this.held || this.disposed) return;
    this.held = why;
    this.beats.clear();
  }

  /** Goes on after a hold, as after a takeover: the last minute sent again, the next one a tempo from now. */
  release(): void {
    if (!this.held) return;
    this.held = null;
    this.resumeClock();
  }

  /**
   * A minute falls due: the next is planned at once and this one queued. If it cannot be computed or
   * stored, the round stays at its last stored minute, still running, the teacher is told, and the
   * next beat tries again.
   */
  private beat(at: number): void {
    this.deps.metrics?.tickLag(this.deps.clock.now() - at);
    const r = this.current.round;
    // "As fast as it goes" (tempo 0): the next minute is planned once this one is stored, never before.
    if (r.state === 'running' && r.tempo > 0) this.beats.plan(at, r.tempo);
    const tick = this.dispatch({ type: 'tick', dueAt: at });
    if (r.tempo === 0)
      void tick
        .catch(() => {})
        .then(() => {
          const now = this.current.round;
          if (!this.disposed && now.state === 'running' && now.tempo === 0 && !this.beats.planned)
            this.beats.plan(this.deps.clock.now(), 0);
        });
    tick.catch((err: unknown) => {
      // Gone, or on hold: nothing to tell (the hold says it once, for every room of the process).
      if (this.disposed || err === this.held) return;
      this.deps.metrics?.tickFailed();
      const minute = this.current.round.minute + 1;
      if (err instanceof ClassroomError && err.code === ErrorCode.STORAGE_FAILED) {
        // The database cannot be written: the round waits at its last stored minute — everyone is told once, the
        // next beat tries again, and the first commit that succeeds says the round goes on (store()).
        if (!this.storageSaid) {
          this.storageSaid = true;
          this.deps.out.emit(this.code, { kind: 'all' }, 'notice', {
            code: NoticeCode.STORAGE_UNAVAILABLE,
            message: `minute ${minute} cannot be stored now: the round waits and goes on by itself once it can`,
          });
        }
        return;
      }
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
  /**
   * A student back at a seat the room gave the autopilot takes it back — before their page is answered, so that the
   * answer already holds the seat turn that ends the autopilot's (a slow page would otherwise build its desk from an
   * answer older than that turn's broadcast).
   */
  async reclaim(playerId: number): Promise<void> {
    if (this.player(playerId)?.pilot?.reason !== 'dropped') return;
    await this.dispatch({ type: 'pilot', playerId, pilot: null, by: 'room' }).catch((err: unknown) => {
      if (!this.disposed) this.deps.log.warn({ err, room: this.code, playerId }, 'could not turn a seat');
    });
  }
  connect(playerId: number): void {
    if (!this.presence.connect(playerId, this.deps.clock.now())) return;
    this.expired.delete(playerId);
    this.tellPresence(playerId);
    // Back at a seat the room gave the autopilot: the student takes it back at once.
    if (this.player(playerId)?.pilot?.reason === 'dropped') this.roomPilot(playerId, false);
  }
  disconnect(playerId: number, socketId?: string): void {
    if (!this.presence.disconnect(playerId, this.deps.clock.now(), socketId)) return;
    this.tellPresence(playerId);
    this.armGrace();
  }
  /** One of a student's pages was hidden or shown again (only their own socket says so). */
  seen(playerId: number, socketId: string, hidden: boolean): void {
    if (this.presence.setHidden(playerId, socketId, hidden, this.current.config.idleMinutes))
      this.tellPresence(playerId);
  }
  /** A seat's presence as everyone's roster shows it. */
  private seatPresence(playerId: number): SeatPresence {
    const connected = this.presence.isConnected(playerId);
    return {
      connected,
      idle: this.presence.isIdle(playerId, this.current.config.idleMinutes),
      free: !connected && this.current.config.absence === 'ask' && this.expired.has(playerId),
    };
  }
  /**
   * A seat's dot to those who show it: its team's desks, the teacher and the observers (a desk lists only its own
   * team). Sent to the whole room, one student's idle minutes would reach every student of every team.
   */
  private tellPresence(playerId: number): void {
    const payload = { playerId, ...this.seatPresence(playerId) };
    const teamId = this.current.players.get(playerId)?.teamId ?? null;
    const to =
      teamId === null
        ? [{ kind: 'all' } as const]
        : ([{ kind: 'team', teamId }, { kind: 'teacher' }, { kind: 'observers' }] as const);
    for (const channel of to) this.deps.out.emit(this.code, channel, 'presence', payload);
  }
  /** The room's own seat turn: a dropped seat to the autopilot, or its student back. Refused or failed: logged. */
  private roomPilot(playerId: number, on: boolean): void {
    const pilot = on ? ({ kind: 'autopilot', skill: 'careful', reason: 'dropped' } as const) : null;
    this.dispatch({ type: 'pilot', playerId, pilot, by: 'room' }).catch((err: unknown) => {
      if (!this.disposed) this.deps.log.warn({ err, room: this.code, playerId }, 'could not turn a seat');
    });
  }
  /** After a turn: a student's change ends their quiet; a minute with a banner adds to it for the others. */
  private followPresence(steps: readonly Step[]): void {
    const idleMinutes = this.current.config.idleMinutes;
    for (const { pending, before, out } of steps) {
      const cmd = pending.cmd;
      if (cmd.type === 'control' && cmd.by === undefined) {
        if (this.presence.acted(cmd.playerId, idleMinutes)) this.tellPresence(cmd.playerId);
      } else if ((cmd.type === 'tick' || cmd.type === 'clock') && out.next.round.minute > before.round.minute) {
        const r = out.next.round;
        for (const p of out.next.players.values()) {
          if (p.teamId === null || p.pilot || !p.roles.length) continue;
          const banners = r.teams.get(p.teamId)?.snapshot.events.length ?? 0;
          if (banners > 0 && this.presence.quietMinute(p.id, idleMinutes)) this.tellPresence(p.id);
        }
      }
    }
  }
  /**
   * The timer of the next dropped seat's grace, while the round runs: a seat that is gone past it goes to the
   * autopilot, or is offered to the team ("ask"); with "hold" nothing happens and nothing is planned.
   */
  private armGrace(): void {
    const { clock } = this.deps;
    clock.clearTimeout(this.graceTimer);
    this.graceTimer = null;
    const s = this.current;
    if (this.disposed || s.round.state !== 'running' || s.config.absence === 'hold') return;
    const now = clock.now();
    const grace = s.config.graceSeconds * 1000;
    let next = Number.POSITIVE_INFINITY;
    for (const p of this.dropped()) next = Math.min(next, Math.max(0, grace - this.presence.absentFor(p.id, now)));
    if (next < Number.POSITIVE_INFINITY) this.graceTimer = clock.setTimeout(() => this.graceDue(), next);
  }
  /** Seats of a playing team whose student is gone, not piloted, whose grace has not run out yet. */
  private *dropped(): Iterable<PlayerState> {
    const s = this.current;
    for (const p of s.players.values())
      if (
        !p.removed &&
        !p.pilot &&
        p.roles.length > 0 &&
        p.teamId !== null &&
        s.round.teams.has(p.teamId) &&
        !this.presence.isConnected(p.id) &&
        !this.expired.has(p.id)
      )
        yield p;
  }
  private graceDue(): void {
    this.graceTimer = null;
    const s = this.current;
    const now = this.deps.clock.now();
    for (const p of [...this.dropped()]) {
      if (this.presence.absentFor(p.id, now) < s.config.graceSeconds * 1000) continue;
      this.expired.add(p.id);
      if (s.config.absence === 'autopilot') this.roomPilot(p.id, true);
      else this.tellPresence(p.id);
    }
    this.armGrace();
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
    return this.idle && this.current.round.state !== 'running' && this.presence.quietFor(ms, this.deps.clock.now());
  }

  // ── views ────────────────────────────────────────────────────────────
  /** The room as `audience` may see it (only the teacher's has the seed before the round ends). */
  view(audience: Audience): RoomView {
    return roomView(this.current, (id) => this.seatPresence(id), audience);
  }
  /** The round's role changes of one team, or of all (null). */
  roleChanges(teamId: number | null): RoleChange[] {
    return roleChangesOf(this.current.round, teamId);
  }
  /** The round's seat turns of one team, or of all (null). */
  seatTurns(teamId: number | null): SeatTurn[] {
    return seatTurnsOf(this.current.round, teamId);
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
    this.deps.clock.clearTimeout(this.graceTimer);
    this.graceTimer = null;
  }
}
