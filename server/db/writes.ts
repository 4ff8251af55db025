// What a room asks the database to do, as data, and — in one place for both engines — the SQL each write becomes.
// A transition returns a list of writes; the Store applies a batch of lists in one transaction (`statements`).
// Rows that others refer to carry the id the transition drew from the Store's id source, so that the next state
// can name them before they are written.
import type {
  ChangeRecord,
  RoleChange,
  RosterEntry,
  RoundConfig,
  SeatTurn,
  TeacherMessage,
  WhatIfOrigin,
} from '../../shared/protocol/types.ts';
import type {
  AuthoredRecord,
  MinuteRecord,
  NewRound,
  ScenarioContentRecord,
  PlayerPatch,
  RoundMemberRecord,
  RoundPatch,
  TeamResultRecord,
} from './records.ts';

/** Tables whose rows get their id from the id source. */
export type IdTable = 'teachers' | 'rooms' | 'teams' | 'players' | 'rounds' | 'changes' | 'messages';

/**
 * Fresh ids, handed out synchronously while a transition runs. `ready()` is awaited before each batch of
 * transitions: PostgreSQL's sequences refill a pool there; SQLite counts on from `max(id)` read at open (this
 * process being the file's only writer).
 */
export interface IdSource {
  next(table: IdTable): number;
  ready(): Promise<void>;
}

export type Write =
  | { op: 'insertTeacher'; id: number; keyHash: string; createdAt: number }
  | { op: 'insertRoom'; id: number; code: string; teacherId: number; config: RoundConfig; createdAt: number }
  | { op: 'setRoomConfig'; roomId: number; config: RoundConfig }
  | { op: 'setRoomFlags'; roomId: number; set: { locked?: boolean; replayShared?: boolean } }
  | { op: 'insertTeam'; id: number; roomId: number; idx: number; name: string; whatIf?: WhatIfOrigin | null }
  | { op: 'renameTeam'; teamId: number; name: string }
  | {
      op: 'insertPlayer';
      id: number;
      roomId: number;
      teamId: number | null;
      name: string;
      tokenHash: string;
      seq: number;
      roles: readonly string[];
      joinedAt: number;
    }
  | { op: 'updatePlayer'; id: number; set: PlayerPatch }
  | { op: 'insertRound'; round: NewRound }
  | { op: 'updateRound'; id: number; set: RoundPatch }
  | { op: 'insertRoundTeams'; roundId: number; teams: readonly { teamId: number; idx: number; name: string }[] }
  | { op: 'renameRoundTeam'; roundId: number; teamId: number; name: string }
  | { op: 'insertChanges'; changes: readonly ChangeRecord[] }
  | { op: 'insertSnapshots'; roundId: number; rows: readonly MinuteRecord[] }
  | { op: 'insertResults'; roundId: number; results: readonly TeamResultRecord[] }
  | { op: 'insertRoleChanges'; changes: readonly RoleChange[] }
  /** Inserts each member, or replaces their name and roles. */
  | { op: 'upsertRoundMembers'; roundId: number; members: readonly RoundMemberRecord[] }
  | { op: 'insertMessage'; message: TeacherMessage }
  | { op: 'insertSeatTurns'; turns: readonly SeatTurn[] }
  /** The room's whole roster mapping (the school's ids of its students), replacing the one stored. */
  | { op: 'setRoster'; roomId: number; entries: readonly RosterEntry[] }
  /** A scenario's content, unless already stored (contents never change: the same text has the same hash). */
  | { op: 'insertContent'; content: ScenarioContentRecord; at: number }
  /** A content nothing refers to any more (no round, no teacher's scenario) is dropped; one still referred to stays. */
  | { op: 'dropContent'; hash: string }
  /** A teacher's new scenario, at version 1; refused (ScenarioConflict, nothing stored) if they have one of this id. */
  | { op: 'insertScenario'; scenario: Omit<AuthoredRecord, 'version' | 'shareToken' | 'updatedAt'> }
  /**
   * A teacher's scenario saved again: its content, title and version, only if its stored version is `version − 1`
   * (a save made meanwhile refuses this one: ScenarioConflict).
   */
  | {
      op: 'updateScenario';
      teacherId: number;
      id: string;
      set: Pick<AuthoredRecord, 'hash' | 'title' | 'version' | 'updatedAt'>;
    }
  | { op: 'deleteScenario'; teacherId: number; id: string }
  /** The scenario's share token, unless it has one. */
  | { op: 'shareScenario'; teacherId: number; id: string; token: string }
  /** A room and everything recorded in it: its rounds, teams, players, minutes, changes, scores and messages. */
  | { op: 'deleteRoom'; roomId: number }
  /**
   * Cluster mode: the room's fencing token, checked and stored in the same transaction as the room's other
   * writes — refused (FencedError, nothing stored) when a higher token is stored, i.e. another process owns the room.
   */
  | { op: 'fence'; roomId: number; token: number; at: number };

/** A commit refused because another process has taken the room since (its fencing token is higher). */
export class FencedError extends Error {
  override readonly name = 'FencedError';
  constructor(
    readonly roomId: number,
    readonly token: number,
  ) {
    super(`room ${roomId}: fencing token ${token} is stale; another process owns the room`);
  }
}

/** A teacher's scenario write that found another in its way: an id already taken, or a save made meanwhile. */
export class ScenarioConflict extends Error {
  override readonly name = 'ScenarioConflict';
  constructor(readonly id: string) {
    super(`scenario ${id} was saved meanwhile, or its id is taken`);
  }
}

/** One SQL statement with `?` placeholders, in the subset of SQL that SQLite and PostgreSQL share. */
export interface Statement {
  sql: string;
  params: readonly unknown[];
  /** Checks the rows the statement returned; throwing rolls the transaction back. */
  check?: (rows: readonly { id: number }[]) => void;
}

/** Rows for one table: consecutive inserts of the same shape become one statement. */
interface Insert {
  table: string;
  columns: readonly string[];
  rows: unknown[][];
  /** An upsert's ON CONFLICT clause; the key's columns are the first `key` columns (a later row wins). */
  upsert?: { key: number; set: readonly string[] };
}

type Part = Insert | Statement;

const json = JSON.stringify;
const rows = (table: string, columns: readonly string[], values: unknown[][]): Insert => ({
  table,
  columns,
  rows: values,
});
const sql = (text: string, ...params: unknown[]): Statement => ({ sql: text, params });

/** `UPDATE table SET a = ?, b = ? WHERE id = ?` for the fields of a patch that are set, named by `columns`. */
function update<P extends object>(
  table: string,
  columns: { [K in keyof P]-?: string },
  patch: P,
  id: number,
  value: (key: keyof P, v: unknown) => unknown = (_k, v) => v,
): Part[] {
  const keys = (Object.keys(patch) as (keyof P)[]).filter((k) => patch[k] !== undefined);
  if (keys.length === 0) return [];
  const set = keys.map((k) => `${columns[k]} = ?`).join(', ');
  return [sql(`UPDATE ${table} SET ${set} WHERE id = ?`, ...keys.map((k) => value(k, patch[k])), id)];
}

const PLAYER_COLUMNS = { name: 'name', teamId: 'team_id', seq: 'seq', roles: 'roles', removed: 'removed' } as const;
const ROUND_COLUMNS = {
  simulator: 'simulator',
  scenario: 'scenario',
  scenarioHash: 'scenario_hash',
  seed: 'seed',
  minutes: 'minutes',
  tempo: 'tempo',
  state: 'state',
  minute: 'minute',
  startedAt: 'started_at',
  finishedAt: 'finished_at',
} as const;
const FLAG_COLUMNS = { locked: 'locked', replayShared: 'replay_shared' } as const;

/**
 * The minute a write moves its round to, when that is all it does: what every tick writes besides its snapshots.
 * Such moves only raise a round's minute, so the batch's are applied together at its end (one statement).
 */
function minuteMove(w: Write): { id: number; minute: number } | null {
  if (w.op !== 'updateRound' || w.set.minute === undefined) return null;
  for (const k in w.set) if (k !== 'minute') return null;
  return { id: w.id, minute: w.set.minute };
}

/** The SQL of one write (every write but a fence, a minute's snapshots and a minute move: see `statements`). */
function partsOf(w: Exclude<Write, { op: 'fence' | 'insertSnapshots' }>): Part[] {
  switch (w.op) {
    case 'insertTeacher':
      return [rows('teachers', ['id', 'key_hash', 'created_at'], [[w.id, w.keyHash, w.createdAt]])];
    case 'insertRoom':
      return [
        rows(
          'rooms',
          ['id', 'code', 'teacher_id', 'config', 'created_at'],
          [[w.id, w.code, w.teacherId, json(w.config), w.createdAt]],
        ),
      ];
    case 'setRoomConfig':
      return [sql('UPDATE rooms SET config = ? WHERE id = ?', json(w.config), w.roomId)];
    case 'setRoomFlags':
      return update('rooms', FLAG_COLUMNS, w.set, w.roomId);
    case 'insertTeam':
      return [
        rows(
          'teams',
          ['id', 'room_id', 'idx', 'name', 'what_if'],
          [[w.id, w.roomId, w.idx, w.name, w.whatIf ? json(w.whatIf) : null]],
        ),
      ];
    case 'deleteRoom':
      return deleteRoom(w.roomId);
    case 'renameTeam':
      return [sql('UPDATE teams SET name = ? WHERE id = ?', w.name, w.teamId)];
    case 'insertPlayer':
      return [
        rows(
          'players',
          ['id', 'room_id', 'team_id', 'name', 'token_hash', 'seq', 'roles', 'joined_at'],
          [[w.id, w.roomId, w.teamId, w.name, w.tokenHash, w.seq, json(w.roles), w.joinedAt]],
        ),
      ];
    case 'updatePlayer':
      return update('players', PLAYER_COLUMNS, w.set, w.id, (k, v) => (k === 'roles' ? json(v) : v));
    case 'insertRound': {
      const r = w.round;
      return [
        rows(
          'rounds',
          [
            'id',
            'room_id',
            'number',
            'simulator',
            'scenario',
            'scenario_hash',
            'seed',
            'minutes',
            'tempo',
            'noise',
            'state',
            'minute',
            'created_at',
            'started_at',
            'fork_of_round_id',
            'fork_of_team_id',
            'fork_minute',
          ],
          [
            [
              r.id,
              r.roomId,
              r.number,
              r.simulator,
              r.scenario,
              r.scenarioHash,
              r.seed,
              r.minutes,
              r.tempo,
              r.noise,
              r.state,
              r.minute,
              r.createdAt,
              r.startedAt,
              r.forkOf?.roundId ?? null,
              r.forkOf?.teamId ?? null,
              r.forkOf?.minute ?? null,
            ],
          ],
        ),
      ];
    }
    case 'updateRound':
      return update('rounds', ROUND_COLUMNS, w.set, w.id);
    case 'insertRoundTeams':
      return [
        rows(
          'round_teams',
          ['round_id', 'team_id', 'idx', 'name'],
          w.teams.map((t) => [w.roundId, t.teamId, t.idx, t.name]),
        ),
      ];
    case 'renameRoundTeam':
      return [sql('UPDATE round_teams SET name = ? WHERE round_id = ? AND team_id = ?', w.name, w.roundId, w.teamId)];
    case 'insertChanges':
      return [
        rows(
          'changes',
          ['id', 'round_id', 'team_id', 'minute', 'seq', 'key', 'value', 'player_id', 'author_name', 'at', 'actor'],
          w.changes.map((c) => [
            c.id,
            c.roundId,
            c.teamId,
            c.minute,
            c.seq,
            c.key,
            json(c.value),
            c.author.playerId,
            c.author.name,
            c.at,
            json(c.actor),
          ]),
        ),
      ];
    case 'insertResults':
      return [
        rows(
          'scores',
          ['round_id', 'team_id', 'score'],
          w.results.map((r) => [w.roundId, r.teamId, r.score]),
        ),
        rows(
          'goal_results',
          ['round_id', 'team_id', 'goal_id', 'indicator', 'op', 'value', 'target', 'met'],
          w.results.flatMap((r) =>
            r.goals.map((g) => [w.roundId, r.teamId, g.id, g.indicator, g.op, g.value, g.target, g.met]),
          ),
        ),
      ];
    case 'insertRoleChanges':
      return [
        rows(
          'role_changes',
          [
            'round_id',
            'team_id',
            'minute',
            'role',
            'reason',
            'at',
            'from_player_id',
            'from_name',
            'to_player_id',
            'to_name',
          ],
          w.changes.map((c) => [
            c.roundId,
            c.teamId,
            c.minute,
            c.role,
            c.reason,
            c.at,
            c.from?.playerId ?? null,
            c.from?.name ?? null,
            c.to?.playerId ?? null,
            c.to?.name ?? null,
          ]),
        ),
      ];
    case 'upsertRoundMembers':
      return [
        {
          ...rows(
            'round_members',
            ['round_id', 'team_id', 'player_id', 'seq', 'name', 'roles'],
            w.members.map((m) => [w.roundId, m.teamId, m.playerId, m.seq, m.name, json(m.roles)]),
          ),
          upsert: { key: 3, set: ['name', 'roles'] },
        },
      ];
    case 'insertSeatTurns':
      return [
        rows(
          'seat_turns',
          ['round_id', 'team_id', 'player_id', 'name', 'roles', 'minute', 'pilot', 'at'],
          w.turns.map((t) => [
            t.roundId,
            t.teamId,
            t.playerId,
            t.name,
            json(t.roles),
            t.minute,
            t.pilot ? json(t.pilot) : null,
            t.at,
          ]),
        ),
      ];
    case 'insertMessage': {
      const m = w.message;
      return [
        rows('messages', ['id', 'round_id', 'team_id', 'text', 'at'], [[m.id, m.roundId, m.teamId, m.text, m.at]]),
      ];
    }
    case 'insertContent': {
      const c = w.content;
      return [
        sql(
          'INSERT INTO scenario_contents (hash, simulator, content, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING',
          c.hash,
          c.simulator,
          c.text,
          w.at,
        ),
      ];
    }
    case 'dropContent':
      return [
        sql(
          `DELETE FROM scenario_contents WHERE hash = ?
             AND NOT EXISTS (SELECT 1 FROM rounds WHERE scenario_hash = ?)
             AND NOT EXISTS (SELECT 1 FROM scenarios WHERE hash = ?)`,
          w.hash,
          w.hash,
          w.hash,
        ),
      ];
    case 'insertScenario': {
      const a = w.scenario;
      return [
        conflictChecked(
          a.id,
          sql(
            `INSERT INTO scenarios (teacher_id, scenario_id, simulator, title, hash, version, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, 1, ?, ?) ON CONFLICT (teacher_id, scenario_id) DO NOTHING RETURNING 1 AS id`,
            a.teacherId,
            a.id,
            a.simulator,
            a.title,
            a.hash,
            a.createdAt,
            a.createdAt,
          ),
        ),
      ];
    }
    case 'updateScenario':
      return [
        conflictChecked(
          w.id,
          sql(
            `UPDATE scenarios SET hash = ?, title = ?, version = ?, updated_at = ?
             WHERE teacher_id = ? AND scenario_id = ? AND version = ? RETURNING 1 AS id`,
            w.set.hash,
            w.set.title,
            w.set.version,
            w.set.updatedAt,
            w.teacherId,
            w.id,
            w.set.version - 1,
          ),
        ),
      ];
    case 'deleteScenario':
      return [sql('DELETE FROM scenarios WHERE teacher_id = ? AND scenario_id = ?', w.teacherId, w.id)];
    case 'shareScenario':
      return [
        sql(
          'UPDATE scenarios SET share_token = ? WHERE teacher_id = ? AND scenario_id = ? AND share_token IS NULL',
          w.token,
          w.teacherId,
          w.id,
        ),
      ];
    case 'setRoster':
      return [
        sql('DELETE FROM roster_ids WHERE room_id = ?', w.roomId),
        ...(w.entries.length
          ? [
              rows(
                'roster_ids',
                ['room_id', 'player_id', 'school_id', 'email'],
                w.entries.map((e) => [w.roomId, e.playerId, e.schoolId, e.email]),
              ),
            ]
          : []),
      ];
  }
}

/** The statement, refused (ScenarioConflict, the transaction rolled back) when it touched no row. */
function conflictChecked(id: string, st: Statement): Statement {
  return {
    ...st,
    check(rows) {
      if (rows.length === 0) throw new ScenarioConflict(id);
    },
  };
}

/** Most parameters in one statement: SQLite takes 32,766, PostgreSQL 65,535. */
const MAX_PARAMS = 30_000;

/**
 * Rows per statement, largest first: an insert of any number of rows is a few statements of these sizes, so that an
 * engine sees the same few SQL texts again (SQLite prepares each text once) whatever the number of rows.
 */
const CHUNKS = [256, 64, 16, 4, 1];

/** An insert's statements: its rows in chunks of CHUNKS' sizes (an upsert's later rows winning). */
function insertStatements(ins: Insert): Statement[] {
  let values = ins.rows;
  if (ins.upsert) {
    const { key } = ins.upsert;
    const last = new Map(values.map((r) => [json(r.slice(0, key)), r]));
    values = [...last.values()];
  }
  const row = `(${ins.columns.map(() => '?').join(', ')})`;
  const tail = ins.upsert
    ? ` ON CONFLICT (${ins.columns.slice(0, ins.upsert.key).join(', ')}) DO UPDATE SET ${ins.upsert.set.map((c) => `${c} = excluded.${c}`).join(', ')}`
    : '';
  const out: Statement[] = [];
  for (let i = 0; i < values.length; ) {
    const left = values.length - i;
    const n = CHUNKS.find((c) => c <= left && c * ins.columns.length <= MAX_PARAMS) ?? 1;
    const chunk = values.slice(i, i + n);
    out.push({
      sql: `INSERT INTO ${ins.table} (${ins.columns.join(', ')}) VALUES ${chunk.map(() => row).join(', ')}${tail}`,
      params: chunk.flat(),
    });
    i += n;
  }
  return out;
}

/** `(VALUES (CAST(? AS type), …), …) AS v`, whose columns both engines name column1, column2, … */
function valuesTable(types: readonly string[], values: readonly unknown[][]): Statement {
  const row = `(${types.map((t) => `CAST(? AS ${t})`).join(', ')})`;
  return { sql: `(VALUES ${values.map(() => row).join(', ')}) AS v`, params: values.flat() };
}

/** Each room's fence stored unless a higher one is; the rooms it was stored for come back, else FencedError. */
function fenceStatement(fences: readonly Extract<Write, { op: 'fence' }>[]): Statement[] {
  if (fences.length === 0) return [];
  const byRoom = new Map<number, Extract<Write, { op: 'fence' }>>();
  for (const f of fences) if ((byRoom.get(f.roomId)?.token ?? -1) < f.token) byRoom.set(f.roomId, f);
  // In room order, so that two transactions lock the rooms they share in the same order.
  const list = [...byRoom.values()].sort((a, b) => a.roomId - b.roomId);
  const v = valuesTable(
    ['integer', 'integer', 'bigint'],
    list.map((f) => [f.roomId, f.token, f.at]),
  );
  return [
    {
      sql: `UPDATE rooms SET fence = v.column2, fenced_at = v.column3 FROM ${v.sql} WHERE rooms.id = v.column1 AND rooms.fence <= v.column2 RETURNING rooms.id AS id`,
      params: v.params,
      check(stored) {
        const ok = new Set(stored.map((r) => Number(r.id)));
        const stale = list.find((f) => !ok.has(f.roomId));
        if (stale) throw new FencedError(stale.roomId, stale.token);
      },
    },
  ];
}

/** Rows of a round of the room, then of the room, in the order their references allow (children first). */
const ROUND_TABLES = [
  'messages',
  'seat_turns',
  'round_members',
  'role_changes',
  'goal_results',
  'scores',
  'snapshots',
  'changes',
  'round_teams',
] as const;
function deleteRoom(roomId: number): Statement[] {
  const ofRounds = 'round_id IN (SELECT id FROM rounds WHERE room_id = ?)';
  return [
    ...ROUND_TABLES.map((t) => sql(`DELETE FROM ${t} WHERE ${ofRounds}`, roomId)),
    sql('DELETE FROM rounds WHERE room_id = ?', roomId),
    sql('DELETE FROM roster_ids WHERE room_id = ?', roomId),
    sql('DELETE FROM players WHERE room_id = ?', roomId),
    sql('DELETE FROM teams WHERE room_id = ?', roomId),
    sql('DELETE FROM rooms WHERE id = ?', roomId),
  ];
}

/**
 * The statements of a batch of write lists, in one transaction. In order, with consecutive inserts of one shape
 * merged into one statement; the fences first (a stale owner fails before anything else is sent), those of rooms
 * created in the batch once their rows exist; the minutes' snapshots together at the end, and their rounds'
 * minute moves with them — a batch of minutes, what the clocks bring, is then two statements.
 */
export function statements(lists: readonly (readonly Write[])[]): Statement[] {
  const fences: Extract<Write, { op: 'fence' }>[] = [];
  const created = new Set<number>();
  const snapshots: unknown[][] = [];
  const minutes = new Map<number, number>();
  const parts: Part[] = [];
  for (const list of lists) {
    for (const w of list) {
      const moved = minuteMove(w);
      if (moved) minutes.set(moved.id, Math.max(moved.minute, minutes.get(moved.id) ?? -1));
      else if (w.op === 'fence') fences.push(w);
      else if (w.op === 'insertSnapshots')
        for (const r of w.rows) snapshots.push([w.roundId, r.teamId, r.minute, r.data, r.at ?? null]);
      else {
        if (w.op === 'insertRoom') created.add(w.id);
        parts.push(...partsOf(w));
      }
    }
  }
  const out: Statement[] = fenceStatement(fences.filter((f) => !created.has(f.roomId)));
  let pending: Insert | null = null;
  const flush = () => {
    if (pending) out.push(...insertStatements(pending));
    pending = null;
  };
  for (const p of parts) {
    if (!('table' in p)) {
      flush();
      out.push(p);
    } else if (
      pending &&
      pending.table === p.table &&
      pending.columns.join() === p.columns.join() &&
      !!pending.upsert === !!p.upsert
    )
      pending.rows.push(...p.rows);
    else {
      flush();
      pending = { ...p, rows: [...p.rows] };
    }
  }
  flush();
  out.push(...fenceStatement(fences.filter((f) => created.has(f.roomId))));
  if (snapshots.length)
    out.push(...insertStatements(rows('snapshots', ['round_id', 'team_id', 'minute', 'data', 'at'], snapshots)));
  if (minutes.size) {
    const v = valuesTable(['integer', 'integer'], [...minutes]);
    out.push({
      sql: `UPDATE rounds SET minute = v.column2 FROM ${v.sql} WHERE rounds.id = v.column1 AND rounds.minute < v.column2`,
      params: v.params,
    });
  }
  return out;
}
