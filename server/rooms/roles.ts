// Who gets which role, as pure functions of the roster. Roles are stable: they change hands only
// when a newcomer takes roles nobody owns (and, outside a round, evens the team out), when the
// teacher assigns one, when their owner leaves the team (each goes to a named teammate), or when the
// lobby deals a new simulator's roles. Each is a list of moves; transitions/roles.ts applies them.
import { dealRoles } from '../../shared/classroom/roles.ts';
import { members } from './roster.ts';
import type { PlayerState, RoomState } from './state.ts';

type Roster = Pick<RoomState, 'teams' | 'players'>;

/** One role changing hands; null: nobody. */
export interface RoleMove {
  role: string;
  from: number | null;
  to: number | null;
}

/** The roles of the model that no member of the team owns, in the model's order. */
export function unowned(s: Roster, teamId: number, roleIds: readonly string[]): string[] {
  const owned = new Set(members(s, teamId).flatMap((p) => p.roles));
  return roleIds.filter((r) => !owned.has(r));
}

/**
 * Where a leaving member's roles go: each, in turn, to the teammate with the fewest roles among the
 * connected ones (any teammate when nobody is connected), the earliest to join on a tie. With
 * nobody left in the team, the roles go to nobody until someone joins.
 */
export function handOver(s: Roster, leaver: PlayerState, connected: (playerId: number) => boolean): RoleMove[] {
  if (leaver.teamId === null) return [];
  const mates = members(s, leaver.teamId).filter((p) => p.id !== leaver.id);
  const online = mates.filter((p) => connected(p.id));
  const pool = online.length ? online : mates;
  const held = pool.map((p) => ({ id: p.id, roles: p.roles.length }));
  return leaver.roles.map((role) => {
    let heir: { id: number; roles: number } | undefined;
    for (const h of held) if (!heir || h.roles < heir.roles) heir = h;
    if (heir) heir.roles++;
    return { role, from: leaver.id, to: heir?.id ?? null };
  });
}

/**
 * What a member new to the team takes: every role nobody owns and, when `even` (outside a round),
 * the roles the deal in join order gives their place — each from a teammate who holds more than the
 * newcomer has — then roles from the teammate with the most until nobody has two more than the
 * newcomer. A lobby filled one by one is thus dealt as in join order, and a role the teacher gave
 * stays where it is unless its holder has more than their share.
 */
export function takeIn(s: Roster, newcomer: PlayerState, roleIds: readonly string[], even: boolean): RoleMove[] {
  if (newcomer.teamId === null) return [];
  const moves: RoleMove[] = unowned(s, newcomer.teamId, roleIds).map((role) => ({ role, from: null, to: newcomer.id }));
  if (!even) return moves;
  const team = members(s, newcomer.teamId);
  let mine = moves.length + newcomer.roles.length;
  const held = new Map(team.filter((p) => p.id !== newcomer.id).map((p) => [p.id, [...p.roles]]));
  const take = ([from, list]: [number, string[]], role: string) => {
    list.splice(list.indexOf(role), 1);
    moves.push({ role, from, to: newcomer.id });
    mine++;
  };
  const place = team.findIndex((p) => p.id === newcomer.id);
  for (const role of dealRoles(roleIds, team.length)[place] ?? []) {
    const holder = [...held].find(([, roles]) => roles.includes(role));
    if (holder && holder[1].length > mine) take(holder, role);
  }
  const order = (r: string) => roleIds.indexOf(r);
  for (;;) {
    let richest: [number, string[]] | undefined;
    for (const e of held) if (!richest || e[1].length > richest[1].length) richest = e;
    if (!richest || richest[1].length - mine < 2) return moves;
    // The richest holds at least two roles here; it gives the last in the model's order.
    const sorted = [...richest[1]].sort((a, b) => order(a) - order(b));
    take(richest, sorted[sorted.length - 1]);
  }
}

/** A fresh deal of the model's roles to the team in join order (a new simulator in the lobby). */
export function dealAll(s: Roster, teamId: number, roleIds: readonly string[]): RoleMove[] {
  const list = members(s, teamId);
  const dealt = dealRoles(roleIds, list.length);
  return list.flatMap((p, i) => dealt[i].map((role) => ({ role, from: null, to: p.id })));
}
