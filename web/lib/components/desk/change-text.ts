// One control change in words, with its author: "Ana set Servers to 10", "Eka pressed Roll back".
// Shared by the feed and the author labels of the trend charts' change markers.
import type { ChangeRecord } from '$shared/protocol/types.ts';
import { m } from '$lib/paraglide/messages.js';
import { fmtControl } from '$lib/format.ts';
import type { Sim } from '$lib/sims/types.ts';

export function changeText(sim: Sim, c: ChangeRecord): string {
  const def = sim.model.controls.find((d) => d.key === c.key);
  const control = sim.text.controls[c.key]?.label() ?? c.key;
  if (!def || def.kind === 'action') return m.feed_press({ name: c.author.name, control });
  return m.feed_set({ name: c.author.name, control, value: fmtControl(def, c.value, sim.text) });
}
