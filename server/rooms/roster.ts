// Who is in a room, read from its state: playing teams, members in join order, free seats, names
// that are unique in a team. Pure functions; the transitions that seat people are in
// transitions/roster.ts, the roles in roles.ts.
import { LIMITS } from '../../shared/protocol/types.ts';
import type { PlayerState, RoomState, TeamState } from './state.ts';

type Roster = Pick<RoomState, 'teams' | 'players'>;

/** The teams in play: the first `teamCount` by index. */
export function activeTeams(s: Roster, teamCount: number): TeamState[] {
  return s.teams.filter((t) => t.idx < teamCount);
}

export function activePlayers(s: Roster): PlayerState[] {
  return [...s.players.values()].filter((p) => !p.removed);
}

export function members(s: Roster, teamId: number): PlayerState[] {
  return activePlayers(s)
    .filter((p) => p.teamId === teamId)
    .sort((a, b) => a.seq - b.seq);
}

/** The playing team with the fewest members (lowest index on ties) that still has a seat. */
export function teamWithRoom(s: Roster, teamCount: number, maxTeamSize: number): TeamState | undefined {
  let best: TeamState | undefined;
  let bestSize = Infinity;
  for (const t of activeTeams(s, teamCount)) {
    const n = members(s, t.id).length;
    if (n < maxTeamSize && n < bestSize) {
      best = t;
      bestSize = n;
    }
  }
  return best;
}

export function nextSeq(s: Roster, teamId: number): number {
  return members(s, teamId).reduce((m, p) => Math.max(m, p.seq), 0) + 1;
}

/**
 * Letters of other scripts that look like Latin ones (Cyrillic, Greek), as Unicode's confusables list folds them:
 * "Аna" with a Cyrillic А reads as "Ana" on every screen.
 */
const LOOKALIKES: Record<string, string> = Object.fromEntries(
  [
    ['АВЕКМНОРСТУХІЈЅ', 'ABEKMHOPCTYXIJS'],
    ['аеорсухіјѕԁһӏ', 'aeopcyxijsdhl'],
    ['ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ', 'ABEZHIKMNOPTYX'],
    ['αοιρνκυ', 'aoipvku'],
  ].flatMap(([from, to]) => [...from].map((c, i) => [c, to[i]])),
);

/**
 * What a name reads as, for telling two apart: its compatibility form (full-width letters as letters), without the
 * characters no screen shows (zero-width joiners and spaces, variation selectors), look-alike letters of other
 * scripts as the Latin ones, and letter case aside. Only for comparing: the name is kept as it was typed.
 */
export function nameKey(name: string): string {
  const plain = name.normalize('NFKC').replace(/\p{Default_Ignorable_Code_Point}/gu, '');
  return [...plain]
    .map((c) => LOOKALIKES[c] ?? c)
    .join('')
    .toLowerCase();
}

/**
 * `name`, or with the first free suffix ("Ana 2", "Ana 3") when another member of the team already
 * has it — read as a person reads it (nameKey: letter case, invisible characters and look-alike letters aside) —
 * cut so that it stays within the name limit.
 */
export function uniqueName(s: Roster, teamId: number, name: string, self?: number): string {
  const key = nameKey;
  const taken = new Set(
    members(s, teamId)
      .filter((p) => p.id !== self)
      .map((p) => key(p.name)),
  );
  if (!taken.has(key(name))) return name;
  for (let n = 2; ; n++) {
    const suffix = ` ${n}`;
    const candidate = name.slice(0, LIMITS.nameLength - suffix.length).trimEnd() + suffix;
    if (!taken.has(key(candidate))) return candidate;
  }
}
