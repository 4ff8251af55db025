// Slots and queue (spec §5–6): Erlang C below capacity, wasted work above it, joined by the seam rule
// so that the dropped share is continuous and never falls as the load rises.
import { erlangCFast } from '../math.ts';
import { KAPPA_PER_S, QUEUE_TIMEOUT_S, WASTED_WORK } from './constants.ts';

export interface QueueResult {
  /** Share of admitted attempts dropped in the queue (0–1). */
  drop: number;
  /** Mean wait for a slot of attempts that got one (s). */
  wait: number;
  /** Share of slots busy, min(1, a/N) (Little's law: busy = λ·S). */
  busy: number;
}

/**
 * The queue of one minute for admitted load `lambda` (attempts/s), slot holding time `holdS` (s) and
 * `slots` connection slots. Tail share C·e^(−max(μ − λ, κ)·2 s) with C taken at a ≤ N, overload share
 * 1 − goodput/λ with goodput = (μ − ωλ)/(1 − ω) ≥ 0; the dropped share is the larger of the two.
 */
export function queueMinute(lambda: number, holdS: number, slots: number): QueueResult {
  if (slots <= 0) return { drop: lambda > 0 ? 1 : 0, wait: lambda > 0 ? QUEUE_TIMEOUT_S : 0, busy: lambda > 0 ? 1 : 0 };
  if (lambda <= 0) return { drop: 0, wait: 0, busy: 0 };
  const mu = slots / holdS;
  const a = lambda * holdS;
  // erlangC is 1 at and above capacity: "C taken at a ≤ N".
  const c = erlangCFast(a, slots);
  const decay = Math.max(mu - lambda, KAPPA_PER_S);
  const tail = c * Math.exp(-decay * QUEUE_TIMEOUT_S);
  let overload = 0;
  if (lambda > mu) {
    const goodput = Math.max(0, (mu - WASTED_WORK * lambda) / (1 - WASTED_WORK));
    overload = 1 - goodput / lambda;
  }
  return {
    drop: Math.max(tail, overload),
    wait: Math.min(QUEUE_TIMEOUT_S, c / decay),
    busy: a < slots ? a / slots : 1,
  };
}
