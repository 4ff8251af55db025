// All rooms of the process: creation, look-up by code (loading from the database on demand),
// student tokens and teacher keys, what-if forks, and recovery of interrupted rounds at start-up.
// Secrets, codes and creation limits are in creation.ts; what a fork is read from, fork.ts; recovery, recover.ts.
// In cluster mode an Ownership (ownership.ts) decides which rooms this process may hold: each room is
// claimed when created or loaded, and dropped here when another process has taken it.
import { normalizeCode } from '../../shared/classroom/code.ts';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import { type ClockAction, DEFAULT_PURPOSE, type RoomView, type RoundConfig } from '../../shared/protocol/types.ts';
import type { ScheduledChange } from '../../shared/sim/types.ts';
import type { Write } from '../db/writes.ts';
import type { RoomRecord, RoundRecord } from '../db/records.ts';
import type { Timer } from '../lib/clock.ts';
import type { Command, ConfigPatch } from './commands.ts';
import { DEFAULT_CONFIG, resolveConfig } from './config.ts';
import { CreationGate, DEFAULT_ROOM_LIMITS, hashSecret, newCode, newSecret, type RoomLimits } from './creation.ts';
import { makeFork } from './fork.ts';
import { type Requester, RoundQuotas } from './quotas.ts';
import { loadRoom } from './load.ts';
import { type Loaded, recoverRooms } from './recover.ts';
import { type GuardEvents, NotOwnerError, type Ownership, type RoomGuard, unsure } from './ownership.ts';
import { Room, type RoomDeps } from './room.ts';
import { isBuiltIn, readContent, type ScenarioContent } from './scenario-content.ts';
import { sweepIdle } from './sweep.ts';
import { openRoom } from './transitions/open.ts';
import { Turns } from '../lib/turns.ts';

const notFound = () => new ClassroomError(ErrorCode.ROOM_NOT_FOUND, 'no room has this code');
const closed = () => new ClassroomError(ErrorCode.ROOM_CLOSED, "this room's last round ended over an hour ago");
// A transient code: the page tries again, and reaches a process that goes on (or this one, restarted).
const stoppingError = () =>
  new ClassroomError(ErrorCode.STORAGE_FAILED, 'this server is stopping: nothing changed, try again in a moment');

export class RoomManager {
  private rooms = new Map<string, Room>();
  /** Rooms being read from the database, so two look-ups of one code load it once. */
  private loading = new Map<string, Promise<Room>>();
  /** Rooms being created: a stop waits for them, so that none is added after the rooms were closed. */
  private creating = new Set<Promise<unknown>>();
  /** Set when the process begins to stop: no room is loaded, taken or created from then on. */
  private halting = false;
  private sweepTimer: Timer | null = null;
  private readonly gate: CreationGate;
  /** Rooms and what-ifs are built one a turn (lib/turns.ts). */
  private readonly turns = new Turns();
  private readonly quotas: RoundQuotas;

  constructor(
    readonly deps: RoomDeps,
    readonly limits: RoomLimits = DEFAULT_ROOM_LIMITS,
    /** Cluster mode: which rooms this process may hold. */
    readonly ownership: Ownership | null = null,
  ) {
    this.gate = new CreationGate(deps, limits);
    this.quotas = new RoundQuotas(deps, limits.rounds);
  }

  /**
   * A teacher's clock action is about to be dispatched: a start is refused past the round allowances of the teacher
   * and of the address it came from, or past the teacher's storage quota (quotas.ts). Nothing is taken for an action
   * the round's state refuses anyway.
   */
  async allowClock(room: Room, action: ClockAction, from: Requester = {}): Promise<void> {
    if (action !== 'start' || room.round.state !== 'lobby') return;
    const { config } = room.state;
    await this.quotas.allowStart(room.teacherId, from, config.teamCount, room.round.minutes);
  }

  private async stored(writes: readonly Write[], what = 'store a new room'): Promise<void> {
    try {
      await this.deps.committer.commit(writes);
    } catch (e) {
      this.deps.log.error({ err: e }, `could not ${what}`);
      throw new ClassroomError(ErrorCode.STORAGE_FAILED, 'the server could not store this: nothing changed');
    }
  }

  private async freeCode(): Promise<string> {
    let code = newCode();
    while (this.rooms.has(code) || (await this.deps.store.codeExists(code))) code = newCode();
    return code;
  }

  /**
   * A new room with its teams and a first round in the lobby. A known key reuses its teacher, within
   * their creation limit and live-room quota; every creation counts against the address's limit.
   */
  async create(
    patch: ConfigPatch,
    teacherKey?: string,
    from: Requester = {},
  ): Promise<{ room: Room; teacherKey: string }> {
    if (this.halting) throw stoppingError();
    const { scenario, simulator = DEFAULT_CONFIG.simulator } = patch;
    // A teacher's own scenario is read with their key; any other is checked before anything is counted.
    const own = scenario !== undefined && !isBuiltIn(simulator, scenario);
    const config = own ? null : resolveConfig(DEFAULT_CONFIG, patch);
    const created = (async () => {
      const known = teacherKey === undefined ? undefined : await this.teacherOf(teacherKey);
      const content = own && known !== undefined ? await this.ownContent(known, scenario, patch.simulator) : undefined;
      const resolved =
        config ?? resolveConfig(DEFAULT_CONFIG, content ? { ...patch, simulator: content.simulator } : patch, content);
      this.gate.allow(from, known);
      if (known === undefined) return this.createFor(resolved, teacherKey);
      return this.gate.withinQuota(known, () => this.createFor(resolved, teacherKey, known, content));
    })();
    this.creating.add(created);
    return created.finally(() => this.creating.delete(created));
  }

  private async createFor(
    config: RoundConfig,
    teacherKey: string | undefined,
    known?: number,
    content?: ScenarioContent,
  ): Promise<{ room: Room; teacherKey: string }> {
    const { store, clock } = this.deps;
    const code = await this.freeCode();
    await store.ids.ready();
    // Building a room of thirty teams is milliseconds of CPU: a burst of creations (an address's allowance at once)
    // is built a turn of the event loop at a time, with the running rooms' minutes in between.
    await this.turns.take();
    const now = clock.now();
    const writes: Write[] = [];
    let key = teacherKey;
    let teacherId = known;
    if (key === undefined || teacherId === undefined) {
      key = newSecret();
      teacherId = store.ids.next('teachers');
      writes.push({ op: 'insertTeacher', id: teacherId, keyHash: hashSecret(key), createdAt: now });
    }
    const opened = openRoom({ code, teacherId, config }, { now, ids: store.ids }, content);
    const guard = await this.claimNew(code);
    await this.storedNew(guard, opened.state.id, [...writes, ...opened.writes]);
    const room = this.add(new Room(this.deps, opened.state, [], guard));
    this.deps.log.info(
      { room: room.code, simulator: config.simulator, scenario: config.scenario, teams: config.teamCount },
      'room created',
    );
    return { room, teacherKey: key };
  }

  private add(room: Room): Room {
    this.rooms.set(room.code, room);
    return room;
  }

  /** Cluster mode: the lease of a room being created (its code is new). */
  private claimNew(code: string): Promise<RoomGuard | null> {
    return this.ownership ? this.ownership.claimNew(code, this.guardEvents(code)) : Promise.resolve(null);
  }

  /** What the room's guard says (cluster mode): lost to another process, or whether this process can be sure of it. */
  private guardEvents(code: string): GuardEvents {
    return {
      lost: (why) => this.drop(code, why),
      sure: (held) => {
        const room = this.rooms.get(code);
        if (held) room?.release();
        else room?.hold(unsure());
      },
    };
  }

  /** Stores a new room's writes (with its fence in cluster mode); the claim is given up if that fails. */
  private async storedNew(guard: RoomGuard | null, roomId: number, writes: readonly Write[]): Promise<void> {
    try {
      await this.stored(guard ? guard.seal(roomId, writes) : writes);
    } catch (e) {
      await guard?.release();
      throw e;
    }
  }

  /**
   * Reads a room (unless already read). A round found running (its process stopped) is paused first, and stored so — except in
   * cluster mode right after its owner died (a failover), where it goes on.
   */
  private async load(found: RoomRecord, read?: Loaded): Promise<Room> {
    let row = found;
    let guard: RoomGuard | null = null;
    let failover = false;
    if (this.ownership) {
      // Fenced before it is read: whatever the previous owner committed is in what is read, and nothing later can be.
      const claim = await this.ownership.claim(found, this.guardEvents(found.code));
      ({ guard, row } = claim);
      failover = claim.recent;
    }
    let room: Room | undefined;
    try {
      // A read made before the claim (recover()) is not used in cluster mode: only one made under the fence is sure.
      const { state, mismatches } = read && !this.ownership ? read : await loadRoom(this.deps.store, row);
      if (mismatches.length)
        this.deps.log.error(
          { room: row.code, round: state.round.id, mismatches },
          're-simulation differs from the stored snapshots',
        );
      room = new Room(this.deps, state, mismatches, guard);
      if (failover && state.round.state === 'running') room.resumeClock();
      else await room.dispatch({ type: 'recover' });
    } catch (e) {
      room?.dispose();
      await guard?.release();
      throw e;
    }
    this.add(room);
    if (this.ownership) {
      const { round } = room;
      this.deps.log.info(
        { room: row.code, round: round.id, minute: round.minute, state: round.state, failover },
        'room taken by this process',
      );
      await this.ownership.adopted(room);
    }
    return room;
  }

  private loadOnce(row: RoomRecord, read?: Loaded): Promise<Room> {
    const inMemory = this.rooms.get(row.code);
    if (inMemory) return Promise.resolve(inMemory);
    let p = this.loading.get(row.code);
    if (!p) {
      if (this.halting) return Promise.reject(stoppingError());
      p = this.load(row, read).finally(() => this.loading.delete(row.code));
      this.loading.set(row.code, p);
    }
    return p;
  }

  /**
   * A teacher's configure, or next round, with the content of the teacher's own scenario it names (its version now),
   * read from the database before the command is dispatched — the transition stays pure. In cluster mode the
   * process that holds the room reads it from the database every process shares. A built-in, or an id the teacher
   * has no scenario of, is left to the transition (which refuses an unknown one).
   */
  async withContent<C extends Command>(room: Room, command: C): Promise<C> {
    const { config } = room.state;
    let id: string | undefined;
    let simulator: string | undefined;
    if (command.type === 'configure') {
      id = command.patch.scenario;
      simulator = command.patch.simulator;
    } else if (command.type === 'clock' && command.action === 'next') {
      id = config.scenario;
      simulator = config.simulator;
    }
    if (id === undefined || isBuiltIn(simulator ?? config.simulator, id)) return command;
    const content = await this.ownContent(room.teacherId, id, simulator);
    if (!content) return command;
    if (command.type === 'configure')
      return { ...command, patch: { ...command.patch, simulator: content.simulator }, content };
    return command.type === 'clock' ? { ...command, content } : command;
  }

  /** The teacher's own scenario of this id (of `simulator` if given), at its version now. */
  private async ownContent(teacherId: number, id: string, simulator?: string): Promise<ScenarioContent | undefined> {
    const own = await this.deps.store.scenarioOfTeacher(teacherId, id);
    if (!own || (simulator !== undefined && simulator !== own.simulator)) return undefined;
    return readContent({ hash: own.hash, simulator: own.simulator, text: own.text });
  }

  /** The room with this code (typed loosely, as people type it), loading it if needed. */
  async get(codeInput: string): Promise<Room> {
    const code = normalizeCode(codeInput);
    if (!code) throw notFound();
    const room = this.rooms.get(code);
    if (room) return room;
    const pending = this.loading.get(code);
    if (pending) return pending;
    const row = await this.deps.store.roomByCode(code);
    if (!row) throw notFound();
    return this.loadOnce(row);
  }

  /** A room in memory, without loading. */
  peek(code: string): Room | undefined {
    return this.rooms.get(code);
  }

  /**
   * The room for someone with neither a teacher key nor a student token (an observer, the feed, the
   * public look-up, a new student): refused once its last round ended `viewerWindowMs` ago — checked
   * before such a room is loaded.
   */
  async forViewers(codeInput: string): Promise<Room> {
    const code = normalizeCode(codeInput);
    if (!code) throw notFound();
    const inMemory = this.rooms.get(code);
    if (inMemory) return this.openToViewers(inMemory);
    const row = await this.deps.store.roomByCode(code);
    if (!row) throw notFound();
    if (this.endedBefore(await this.deps.store.latestRound(row.id))) throw closed();
    return this.openToViewers(await this.loadOnce(row));
  }

  /** The room, unless its last round ended `viewerWindowMs` ago (ROOM_CLOSED to anonymous viewers). */
  openToViewers(room: Room): Room {
    if (room.closedFor(this.limits.viewerWindowMs)) throw closed();
    return room;
  }

  private endedBefore(round: RoundRecord | undefined): boolean {
    const at = round?.state === 'finished' ? round.finishedAt : null;
    return at !== null && this.deps.clock.now() - at >= this.limits.viewerWindowMs;
  }

  /** The room if this process holds it or is loading it (cluster mode: is taking it), without starting a load. */
  held(code: string): Room | Promise<Room> | undefined {
    return this.rooms.get(code) ?? this.loading.get(code);
  }

  /** Cluster mode: takes a stored room for this process (a running round nobody holds). NotOwnerError if another does. */
  adopt(row: RoomRecord): Promise<Room> {
    return this.loadOnce(row);
  }

  /** Cluster mode: the room was taken by another process; it leaves this one without a word (nothing more is sent). */
  drop(code: string, reason: string): void {
    const room = this.rooms.get(code);
    if (!room) return;
    this.rooms.delete(code);
    room.dispose(new NotOwnerError(code, reason));
    this.deps.log.warn(
      { room: code, round: room.round.id, minute: room.round.minute, reason },
      'room lost to another process',
    );
  }

  /** Refused (RATE_LIMITED), taking nothing, when the address or the teacher can make no room now (creation.ts). */
  checkCreation(from: Requester, teacherId?: number): void {
    this.gate.check(from, teacherId);
  }

  /** The teacher a key belongs to. Keys are 256-bit secrets looked up by hash: comparing ids leaks nothing useful. */
  private teacherOf(key: string): Promise<number | undefined> {
    return this.deps.store.teacherByKeyHash(hashSecret(key));
  }

  async teacherId(key: string): Promise<number> {
    const id = await this.teacherOf(key);
    if (id === undefined) throw new ClassroomError(ErrorCode.BAD_KEY, 'unknown teacher key');
    return id;
  }

  /**
   * A what-if: a new room of the same teacher whose single round starts from one team's exact state
   * at `minute` of another round (same seed, the recorded changes up to that minute), paused there, with
   * `pending` changes (each after `minute`, e.g. the hindsight coach's play) recorded as the coach's.
   * It counts as a new room (the creation limit, the live-room quota) and is only stored: it is loaded
   * when someone opens it.
   */
  async fork(
    teacherId: number,
    roundId: number,
    teamId: number,
    minute: number,
    from: Requester = {},
    pending: readonly ScheduledChange[] = [],
  ): Promise<{ code: string; roundId: number; room: RoomView }> {
    this.gate.allow(from, teacherId);
    // The fork keeps the team's minutes up to `minute`.
    await this.quotas.withinStorage(teacherId, minute + 1);
    return this.gate.withinQuota(teacherId, () =>
      makeFork(
        this.deps,
        { teacherId, roundId, teamId, minute, pending },
        { freeCode: () => this.freeCode(), stored: (writes) => this.stored(writes), turns: this.turns },
      ),
    );
  }

  /**
   * Deletes a rehearsal or a practice room of the teacher, and the what-if rooms forked from its rounds (theirs in
   * turn), with everything recorded in them. A class's room is kept: its rounds are the class's record. A room this
   * process holds is stopped first (its queued commands finish, later ones are refused); one another process holds
   * loses it at its next commit, refused by the room's fence as the row is gone. Returns the codes deleted.
   */
  async remove(teacherId: number, codeInput: string): Promise<string[]> {
    const code = normalizeCode(codeInput);
    const row = code ? await this.deps.store.roomByCode(code) : undefined;
    if (!row || row.teacherId !== teacherId) throw notFound();
    if ((row.config.purpose ?? DEFAULT_PURPOSE) === 'class')
      throw new ClassroomError(
        ErrorCode.NOT_ALLOWED,
        "a class's room is kept: only rehearsals and practice are deleted",
      );
    const doomed = [row];
    for (let i = 0; i < doomed.length; i++) {
      for (const round of await this.deps.store.roundsOfRoom(doomed[i].id)) {
        for (const fork of await this.deps.store.forksOf(round.id)) {
          const forkRoom = await this.deps.store.roomById(fork.roomId);
          if (forkRoom && !doomed.some((r) => r.id === forkRoom.id)) doomed.push(forkRoom);
        }
      }
    }
    const held = await Promise.all(
      doomed.map(async (r) => {
        const room = await Promise.resolve(this.held(r.code)).catch(() => undefined);
        if (!room) return undefined;
        this.rooms.delete(r.code);
        room.dispose(new ClassroomError(ErrorCode.ROOM_NOT_FOUND, 'this room was deleted'));
        await room.settled();
        return room;
      }),
    );
    await this.stored(
      doomed.map((r): Write => ({ op: 'deleteRoom', roomId: r.id })),
      'delete a room',
    );
    await Promise.all(held.map((room) => room?.guard?.release()));
    this.deps.log.info({ room: row.code, with: doomed.length - 1 }, 'room deleted');
    return doomed.map((r) => r.code);
  }

  /** Loads every room whose latest round was running or paused: rebuilt by re-simulation, left paused (recover.ts). */
  recover(): Promise<Room[]> {
    return recoverRooms(this.deps.store, this.deps.log, {
      holds: (code) => this.rooms.has(code),
      load: (row, read) => this.loadOnce(row, read),
    });
  }

  all(): Room[] {
    return [...this.rooms.values()];
  }

  /** Resolves when every room has handled every command queued so far. */
  async settled(): Promise<void> {
    await Promise.all(this.all().map((r) => r.settled()));
  }

  /** The process has begun to stop (stopTaking). */
  get stopping(): boolean {
    return this.halting;
  }

  /**
   * The process begins to stop: from now on no room is loaded (a reconnecting student, an ask forwarded here, a
   * room nobody holds in cluster mode), nor created; asks for them get a transient error. The rooms held go on
   * until close().
   */
  stopTaking(): void {
    this.halting = true;
  }

  /** Drops rooms nobody has used for `idleMs` from memory; they reload from the database when needed. */
  sweep(idleMs: number): number {
    return sweepIdle(this.rooms, idleMs);
  }

  /** Sweeps every `everyMs` on the room clock, until dispose(). */
  startSweeping(everyMs = 5 * 60_000, idleMs = 30 * 60_000): void {
    const next = () => {
      this.sweepTimer = this.deps.clock.setTimeout(() => {
        this.sweep(idleMs);
        next();
      }, everyMs);
    };
    next();
  }

  /**
   * Stops every timer, lets queued commands finish, and forgets the rooms. Cluster mode: then releases their
   * leases, so that other processes take them at once (a running round goes on there).
   */
  async close(): Promise<void> {
    this.stopTaking();
    this.deps.clock.clearTimeout(this.sweepTimer);
    this.sweepTimer = null;
    // A room being loaded or created when the stop began is closed with the others, not added after them.
    await Promise.allSettled([...this.loading.values(), ...this.creating]);
    const rooms = this.all();
    for (const r of rooms) r.dispose();
    await Promise.all(rooms.map((r) => r.settled()));
    this.rooms.clear();
    await Promise.all(rooms.map((r) => r.guard?.release()));
  }
}
