// All rooms of the process: creation, look-up by code (loading from the database on demand),
// student tokens and teacher keys, and recovery of interrupted rounds at start-up.
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { CODE_ALPHABET, CODE_LENGTH, normalizeCode } from '../../shared/classroom/code.ts';
import { ClassroomError, ErrorCode } from '../../shared/protocol/errors.ts';
import type { RoundConfig } from '../../shared/protocol/types.ts';
import { getModel, isSimulatorId } from '../../shared/sim/registry.ts';
import type { RoomRow } from '../db/store.ts';
import { Room, type RoomDeps } from './room.ts';
import type { Timer } from './clock.ts';
import type { PlayerState } from './roster.ts';

export const DEFAULT_CONFIG: RoundConfig = { simulator: 'payment-switch', scenario: 'sale-surge', minutes: 60, tempo: 5, seed: null, teamCount: 2 };

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function newCode(): string {
  let c = '';
  for (let i = 0; i < CODE_LENGTH; i++) c += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return c;
}

export class RoomManager {
  private rooms = new Map<string, Room>();

  constructor(readonly deps: RoomDeps) {}

  /** Checks a full configuration (simulator and scenario exist). */
  static checkConfig(cfg: RoundConfig): RoundConfig {
    if (!isSimulatorId(cfg.simulator)) throw new ClassroomError(ErrorCode.BAD_REQUEST, `unknown simulator "${cfg.simulator}"`);
    const model = getModel(cfg.simulator);
    if (!model.scenarios.some((s) => s.id === cfg.scenario)) throw new ClassroomError(ErrorCode.BAD_REQUEST, `unknown scenario "${cfg.scenario}" for ${cfg.simulator}`);
    return cfg;
  }

  /** A new room with its teams and a first round in the lobby. A valid key reuses its teacher. */
  create(patch: Partial<RoundConfig>, teacherKey?: string): { room: Room; teacherKey: string } {
    const { store, clock } = this.deps;
    const simulatorChanged = patch.simulator !== undefined && patch.simulator !== DEFAULT_CONFIG.simulator;
    const config = RoomManager.checkConfig({ ...DEFAULT_CONFIG, ...(simulatorChanged && !patch.scenario ? { scenario: 'free' } : {}), ...patch } as RoundConfig);
    const now = clock.now();
    let key = teacherKey;
    const room = store.transaction(() => {
      let teacherId = key ? store.teacherByKeyHash(hashSecret(key)) : undefined;
      if (teacherId === undefined) {
        key = newSecret();
        teacherId = store.createTeacher(hashSecret(key), now);
      }
      let code = newCode();
      while (store.codeExists(code)) code = newCode();
      const row = store.createRoom(code, teacherId, config, now);
      for (let i = 0; i < config.teamCount; i++) store.createTeam(row.id, i, '');
      store.createRound({ roomId: row.id, number: 1, simulator: config.simulator, scenario: config.scenario, seed: config.seed, minutes: config.minutes, tempo: config.tempo, state: 'lobby', createdAt: now });
      return this.load(row);
    });
    return { room, teacherKey: key! };
  }

  private load(row: RoomRow): Room {
    const { store } = this.deps;
    const room = new Room(this.deps, row.id, row.code, row.teacherId, JSON.parse(row.config));
    room.reloadRoster();
    const round = store.latestRound(row.id);
    if (!round) throw new Error(`room ${row.code} has no round`);
    room.loadRound(round);
    this.rooms.set(row.code, room);
    return room;
  }

  /** The room with this code (typed loosely, as people type it), loading it if needed. */
  get(codeInput: string): Room {
    const code = normalizeCode(codeInput);
    if (!code) throw new ClassroomError(ErrorCode.ROOM_NOT_FOUND, 'no room has this code');
    const room = this.rooms.get(code);
    if (room) return room;
    const row = this.deps.store.roomByCode(code);
    if (!row) throw new ClassroomError(ErrorCode.ROOM_NOT_FOUND, 'no room has this code');
    return this.load(row);
  }

  /** A room in memory, without loading. */
  peek(code: string): Room | undefined {
    return this.rooms.get(code);
  }

  joinStudent(code: string, name: string): { room: Room; player: PlayerState; token: string } {
    const room = this.get(code);
    const token = newSecret();
    const player = room.addStudent(name, hashSecret(token));
    return { room, player, token };
  }

  /** The room and player of a student token (a refresh, a new device, a restarted server). */
  rejoin(token: string, code?: string): { room: Room; player: PlayerState } {
    const row = this.deps.store.playerByTokenHash(hashSecret(token));
    if (!row || row.removed) throw new ClassroomError(ErrorCode.BAD_TOKEN, 'this student token is not valid');
    const roomRow = this.deps.store.roomById(row.roomId)!;
    if (code !== undefined && normalizeCode(code) !== roomRow.code) throw new ClassroomError(ErrorCode.BAD_TOKEN, 'this student token belongs to another room');
    const room = this.get(roomRow.code);
    const player = room.roster.players.get(row.id);
    if (!player || player.removed) throw new ClassroomError(ErrorCode.BAD_TOKEN, 'this student token is not valid');
    return { room, player };
  }

  /** The room, if the key is its teacher's. */
  teacherRoom(code: string, key: string): Room {
    const room = this.get(code);
    const id = this.deps.store.teacherByKeyHash(hashSecret(key));
    // Keys are 256-bit secrets looked up by hash: comparing the ids leaks nothing useful.
    if (id === undefined || id !== room.teacherId) throw new ClassroomError(ErrorCode.BAD_KEY, 'this teacher key does not open this room');
    return room;
  }

  teacherId(key: string): number {
    const id = this.deps.store.teacherByKeyHash(hashSecret(key));
    if (id === undefined) throw new ClassroomError(ErrorCode.BAD_KEY, 'unknown teacher key');
    return id;
  }

  /**
   * A what-if: a new room of the same teacher whose single round starts from one team's exact state
   * at `minute` of another round (same seed, the recorded changes up to that minute), paused there.
   */
  fork(teacherId: number, roundId: number, teamId: number, minute: number): Room {
    const { store, clock } = this.deps;
    const origin = store.roundById(roundId);
    const originRoom = origin && store.roomById(origin.roomId);
    if (!origin || !originRoom || originRoom.teacherId !== teacherId) throw new ClassroomError(ErrorCode.ROUND_NOT_FOUND, `no round ${roundId} of yours`);
    if (origin.state === 'lobby' || origin.seed === null) throw new ClassroomError(ErrorCode.BAD_STATE, 'this round has not started');
    if (!Number.isInteger(minute) || minute < 0 || minute > origin.minute) {
      throw new ClassroomError(ErrorCode.BAD_REQUEST, `minute must be between 0 and ${origin.minute}`);
    }
    const team = store.roundTeams(roundId).find((t) => t.teamId === teamId);
    if (!team) throw new ClassroomError(ErrorCode.TEAM_NOT_FOUND, `team ${teamId} did not play round ${roundId}`);
    const config = RoomManager.checkConfig({
      simulator: origin.simulator as RoundConfig['simulator'],
      scenario: origin.scenario,
      minutes: origin.minutes,
      tempo: origin.tempo as RoundConfig['tempo'],
      seed: origin.seed,
      teamCount: 1,
    });
    const now = clock.now();
    return store.transaction(() => {
      let code = newCode();
      while (store.codeExists(code)) code = newCode();
      const row = store.createRoom(code, teacherId, config, now);
      const newTeam = store.createTeam(row.id, 0, team.name);
      const round = store.createRound({
        roomId: row.id,
        number: 1,
        simulator: config.simulator,
        scenario: config.scenario,
        seed: config.seed,
        minutes: config.minutes,
        tempo: config.tempo,
        state: 'paused',
        createdAt: now,
        forkOf: { roundId, teamId, minute },
      });
      store.updateRound(round.id, { minute, startedAt: now });
      store.setRoundTeams(round.id, [{ teamId: newTeam.id, idx: 0, name: team.name }]);
      store.copyTeamRecords({ roundId, teamId }, { roundId: round.id, teamId: newTeam.id }, minute);
      const room = this.load(row);
      if (room.recoveryMismatches.length) throw new Error(`fork of round ${roundId} does not re-simulate to the original`);
      return room;
    });
  }

  /** Loads every room whose round was running or paused: rebuilt by re-simulation, left paused. */
  recover(): Room[] {
    const { store } = this.deps;
    const out: Room[] = [];
    for (const r of store.roundsInState(['running', 'paused'])) {
      // One round that cannot be rebuilt (a corrupt page, a bad row) is logged and skipped: the rest are served.
      try {
        const latest = store.latestRound(r.roomId);
        if (latest?.id !== r.id) continue;
        const row = store.roomById(r.roomId)!;
        if (!this.rooms.has(row.code)) out.push(this.load(row));
      } catch (err) {
        this.deps.log.error({ err, round: r.id, roomId: r.roomId }, 'round cannot be recovered: skipped');
      }
    }
    return out;
  }

  all(): Room[] {
    return [...this.rooms.values()];
  }

  /** Drops rooms nobody has used for `idleMs` from memory; they reload from the database when needed. */
  sweep(idleMs: number): number {
    let n = 0;
    for (const [code, room] of this.rooms) {
      if (!room.idleFor(idleMs)) continue;
      room.dispose();
      this.rooms.delete(code);
      n++;
    }
    return n;
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
  private sweepTimer: Timer | null = null;

  dispose(): void {
    this.deps.clock.clearTimeout(this.sweepTimer);
    this.sweepTimer = null;
    for (const r of this.rooms.values()) r.dispose();
    this.rooms.clear();
  }
}
