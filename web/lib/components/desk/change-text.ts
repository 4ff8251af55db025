// One control change in words, with its author: "Ana set Servers to 10", "Eka pressed Roll back";
// and a simulation event in words. Shared by the feed, the banner and the charts' change markers.
import type { ChangeRecord } from '$shared/protocol/types.ts';
import type { SimEvent } from '$shared/sim/types.ts';
import { m } from '$lib/paraglide/messages.js';
import { fmtControl, fmtInt } from '$lib/format.ts';
import type { Sim } from '$lib/sims/types.ts';

export function changeText(sim: Sim, c: ChangeRecord): string {
  const def = sim.model.controls.find((d) => d.key === c.key);
  const control = sim.text.controls[c.key]?.label() ?? c.key;
  if (!def || def.kind === 'action') return m.feed_press({ name: c.author.name, control });
  return m.feed_set({ name: c.author.name, control, value: fmtControl(def, c.value, sim.text) });
}

/** A simulation event in words ("The sale opens: traffic is doubling"), its numbers formatted. */
export function eventText(sim: Sim, event: SimEvent): string {
  const { kind, ...fields } = event;
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) params[k] = typeof v === 'number' ? fmtInt(v) : String(v);
  return sim.text.events[kind]?.(params) ?? kind;
}
