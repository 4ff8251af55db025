// One control change in words, with its author: "Ana set Servers to 10", "Eka pressed Roll back";
// a simulation event, and a role changing hands, in words. Shared by the feed, the banner and the
// charts' change markers.
import type { ChangeRecord, RoleChange, RoleChangeReason, SeatTurn } from '$shared/protocol/types.ts';
import type { SimEvent } from '$shared/sim/types.ts';
import { m } from '$lib/paraglide/messages.js';
import { getLocale } from '$lib/paraglide/runtime.js';
import { fmtControl, fmtInt } from '$lib/format.ts';
import type { Sim } from '$lib/sims/types.ts';

/** Who made a change, as the desk names them: the student, or the autopilot or the teacher in their seat. */
export function actorName(c: Pick<ChangeRecord, 'author' | 'actor'>): string {
  const name = c.author.name;
  switch (c.actor.kind) {
    case 'autopilot':
      return m.actor_autopilot({ name });
    case 'teacher':
      return m.actor_teacher({ name });
    default:
      return name;
  }
}

export function changeText(sim: Sim, c: ChangeRecord): string {
  const def = sim.model.controls.find((d) => d.key === c.key);
  const control = sim.text.controls[c.key]?.label() ?? c.key;
  const name = actorName(c);
  if (!def || def.kind === 'action') return m.feed_press({ name, control });
  return m.feed_set({ name, control, value: fmtControl(def, c.value, sim.text) });
}

/** A seat changing pilot, for the team's feed: "Autopilot took over Ana’s seat (Stand-in)". */
export function seatTurnText(sim: Sim, t: SeatTurn, me: number | null = null): string {
  const name = t.playerId !== null && t.playerId === me ? m.desk_you({ name: t.name }) : t.name;
  const roles = t.roles.map((r) => sim.text.roles[r]?.() ?? r).join(', ');
  if (t.pilot === null) return m.feed_seat_back({ name, roles });
  return t.pilot.kind === 'teacher' ? m.feed_seat_teacher({ name, roles }) : m.feed_seat_auto({ name, roles });
}

/** A simulation event in words ("The sale opens: traffic is doubling"), its numbers formatted. */
export function eventText(sim: Sim, event: SimEvent): string {
  // A scenario's own message carries its words (in the reader's language when the file has it).
  if (event.kind === 'scenario-message') return String(event[`text.${getLocale()}`] ?? event.text);
  const { kind, ...fields } = event;
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) params[k] = typeof v === 'number' ? fmtInt(v) : String(v);
  return sim.text.events[kind]?.(params) ?? kind;
}

const reasons: Record<RoleChangeReason, () => string> = {
  start: m.role_reason_start,
  deal: m.role_reason_deal,
  join: m.role_reason_join,
  assign: m.role_reason_assign,
  remove: m.role_reason_remove,
  move: m.role_reason_move,
  take: m.role_reason_take,
};

/**
 * A role that changed hands, in words: "Bo now owns Stand-in (from Ana, removed)". `me` names the
 * reader "(you)" where they are the new owner.
 */
export function roleChangeText(sim: Sim, c: RoleChange, me: number | null = null): string {
  const role = sim.text.roles[c.role]?.() ?? c.role;
  // A role nobody held is taken, not handed over (a newcomer, the dealing): say so.
  const reason = c.from === null && c.reason !== 'assign' ? m.role_reason_free() : reasons[c.reason]();
  if (!c.to) return m.role_change_nobody({ role, reason });
  const to = c.to.playerId === me ? m.desk_you({ name: c.to.name }) : c.to.name;
  return c.from ? m.role_change({ to, role, from: c.from.name, reason }) : m.role_change_new({ to, role, reason });
}
