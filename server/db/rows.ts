// Rows as the Store hands them out, and records as rows: the same mapping for SQLite and PostgreSQL, whose row
// types are the same (server/db/schema.pg.ts mirrors schema.ts; test/cluster/schema.test.ts holds them in step).
import type { ChangeRecord, RoleChange, WhatIfOrigin } from '../../shared/protocol/types.ts';
import type { changes, players, roleChanges, rooms, roundMembers, rounds } from './schema.ts';
import type { PlayerRecord, RoomRecord, RoundRecord } from './store.ts';
import type { RoundMemberRecord, Write } from './writes.ts';

type RoomRow = typeof rooms.$inferSelect;
type PlayerRow = typeof players.$inferSelect;
type RoundRow = typeof rounds.$inferSelect;
type ChangeRow = typeof changes.$inferSelect;
type RoleChangeRow = typeof roleChanges.$inferSelect;
type MemberRow = typeof roundMembers.$inferSelect;

export const roomRecord = (r: RoomRow): RoomRecord => ({
  ...{ id: r.id, code: r.code, teacherId: r.teacherId, config: JSON.parse(r.config), createdAt: r.createdAt },
  ...{ locked: r.locked, replayShared: r.replayShared, fence: r.fence, fencedAt: r.fencedAt },
});

export const whatIf = (text: string | null): WhatIfOrigin | null => (text === null ? null : JSON.parse(text));

export const roleChangeRecord = (r: RoleChangeRow): RoleChange => ({
  ...{ roundId: r.roundId, teamId: r.teamId, minute: r.minute, role: r.role, reason: r.reason, at: r.at },
  from: r.fromPlayerId === null ? null : { playerId: r.fromPlayerId, name: r.fromName ?? '' },
  to: r.toPlayerId === null ? null : { playerId: r.toPlayerId, name: r.toName ?? '' },
});

/** A role change as a row: who gave and who took the role flattened. */
export const roleChangeRow = (c: RoleChange) => ({
  ...{ roundId: c.roundId, teamId: c.teamId, minute: c.minute, role: c.role, reason: c.reason, at: c.at },
  ...{
    fromPlayerId: c.from?.playerId ?? null,
    fromName: c.from?.name ?? null,
    toPlayerId: c.to?.playerId ?? null,
    toName: c.to?.name ?? null,
  },
});

export const memberRecord = (m: MemberRow): RoundMemberRecord => ({
  teamId: m.teamId,
  playerId: m.playerId,
  seq: m.seq,
  name: m.name,
  roles: JSON.parse(m.roles),
});

export const playerRecord = (p: PlayerRow): PlayerRecord => ({
  id: p.id,
  roomId: p.roomId,
  teamId: p.teamId,
  name: p.name,
  seq: p.seq,
  roles: JSON.parse(p.roles),
  removed: p.removed,
  joinedAt: p.joinedAt,
});

export function roundRecord(r: RoundRow): RoundRecord {
  const { forkOfRoundId, forkOfTeamId, forkMinute, ...rest } = r;
  const forked = forkOfRoundId !== null && forkOfTeamId !== null && forkMinute !== null;
  return { ...rest, forkOf: forked ? { roundId: forkOfRoundId, teamId: forkOfTeamId, minute: forkMinute } : null };
}

export const changeRecord = (row: ChangeRow): ChangeRecord => ({
  id: row.id,
  roundId: row.roundId,
  teamId: row.teamId,
  minute: row.minute,
  key: row.key,
  value: JSON.parse(row.value),
  author: { playerId: row.playerId, name: row.authorName },
  at: row.at,
});

/** A change as a row: its value and author flattened. */
export const changeRow = (c: ChangeRecord) => ({
  ...{ id: c.id, roundId: c.roundId, teamId: c.teamId, minute: c.minute, key: c.key, value: JSON.stringify(c.value) },
  ...{ playerId: c.author.playerId, authorName: c.author.name, at: c.at },
});

// Writes as rows: what each dialect's applier (sqlite.writes.ts, pg.writes.ts) inserts or sets for them.
type W<K extends Write['op']> = Extract<Write, { op: K }>;

export const roomRow = (w: W<'insertRoom'>) => ({
  ...{ id: w.id, code: w.code, teacherId: w.teacherId },
  ...{ config: JSON.stringify(w.config), createdAt: w.createdAt },
});

export const teamRow = (w: W<'insertTeam'>) => ({
  ...{ id: w.id, roomId: w.roomId, idx: w.idx, name: w.name },
  whatIf: w.whatIf ? JSON.stringify(w.whatIf) : null,
});

export const playerRow = (w: W<'insertPlayer'>) => ({
  ...{ id: w.id, roomId: w.roomId, teamId: w.teamId, name: w.name, tokenHash: w.tokenHash, seq: w.seq },
  ...{ roles: JSON.stringify(w.roles), joinedAt: w.joinedAt },
});

/** A player's changed fields, the roles as their stored text. */
export const playerPatch = ({ roles, ...rest }: W<'updatePlayer'>['set']) => ({
  ...rest,
  ...(roles ? { roles: JSON.stringify(roles) } : {}),
});

/** A round as a row: the fork it came from flattened. */
export const roundRow = ({ forkOf, ...r }: W<'insertRound'>['round']) => ({
  ...r,
  forkOfRoundId: forkOf?.roundId ?? null,
  forkOfTeamId: forkOf?.teamId ?? null,
  forkMinute: forkOf?.minute ?? null,
});
