// Split view on the server: with the teacher's option on, each student's minute and history keep only
// the indicators their roles see (shared/classroom/split.ts). A team's minute is made and sent once per
// distinct set of roles among its members — one channel per team and role set ("view"), which a
// student's sockets follow as their roles change — never once per socket. The teacher, observers, the
// feed and replays are sent everything.
import { splitSnapshot, viewKey, visibleKeys } from '../../shared/classroom/split.ts';
import type { TeamHistory, TeamMinute } from '../../shared/protocol/types.ts';
import type { SimMeta, Snapshot } from '../../shared/sim/types.ts';
import { emit, type Emit } from './output.ts';
import type { Channel } from './output.ts';
import type { PlayerState, RoomState, RoundRun, TeamRun } from './state.ts';
import { teamHistory, teamMinute } from './views.ts';

/** A student's view channel: their team and their set of roles ('' for an analyst). */
export type ViewChannel = Extract<Channel, { kind: 'view' }>;

export function viewOf(model: SimMeta, p: Pick<PlayerState, 'teamId' | 'roles' | 'removed'>): ViewChannel | null {
  return p.teamId === null || p.removed ? null : { kind: 'view', teamId: p.teamId, view: viewKey(model, p.roles) };
}

/** The keys a view sees ('' for an analyst: no role). */
const keysOf = (model: SimMeta, view: string): ReadonlySet<string> =>
  visibleKeys(model, view === '' ? [] : view.split('+'));

const sameView = (a: ViewChannel | null, b: ViewChannel | null) => a?.teamId === b?.teamId && a?.view === b?.view;

/** Players whose view channel changed from `prev` to `next` (a join, a move, a role handed over, a removal). */
export function viewMoves(
  prev: RoomState,
  next: RoomState,
): { playerId: number; from: ViewChannel | null; to: ViewChannel | null }[] {
  if (prev.players === next.players && prev.round.model === next.round.model) return [];
  const out: { playerId: number; from: ViewChannel | null; to: ViewChannel | null }[] = [];
  for (const p of next.players.values()) {
    const before = prev.players.get(p.id);
    const from = before ? viewOf(prev.round.model, before) : null;
    const to = viewOf(next.round.model, p);
    if (!sameView(from, to)) out.push({ playerId: p.id, from, to });
  }
  return out;
}

/** The team's distinct views among its members now. */
function teamViews(s: RoomState): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>();
  for (const p of s.players.values()) {
    const v = viewOf(s.round.model, p);
    if (!v) continue;
    const set = out.get(v.teamId) ?? new Set<string>();
    out.set(v.teamId, set);
    set.add(v.view);
  }
  return out;
}

/**
 * Every team's minute to its members: the whole team's channel, or in split view one message per view
 * present in the team, each with what that view sees.
 */
export function teamMinutes(s: RoomState, r: RoundRun, sentAt: number): Emit<'minute'>[] {
  const minutes = [...r.teams.values()].map((t): TeamMinute => ({ roundId: r.id, sentAt, ...teamMinute(t) }));
  if (!s.config.splitView) return minutes.map((m) => emit({ kind: 'team', teamId: m.teamId }, 'minute', m));
  const views = teamViews(s);
  return minutes.flatMap((m) =>
    [...(views.get(m.teamId) ?? [])].map((view) =>
      emit({ kind: 'view', teamId: m.teamId, view }, 'minute', {
        ...m,
        snapshot: splitSnapshot(m.snapshot, keysOf(r.model, view)),
      }),
    ),
  );
}

/**
 * A team's history as one student may see it (every minute split to their view when split view is on).
 * `snapshots`: the team's minutes `0…` its latest.
 */
export function historyFor(
  s: RoomState,
  t: TeamRun,
  p: Pick<PlayerState, 'teamId' | 'roles' | 'removed'>,
  snapshots: Snapshot[],
): TeamHistory {
  const h = teamHistory(s.round, t, snapshots);
  if (!s.config.splitView) return h;
  const keys = keysOf(s.round.model, viewKey(s.round.model, p.roles));
  return { ...h, snapshots: h.snapshots.map((x) => splitSnapshot(x, keys)) };
}
