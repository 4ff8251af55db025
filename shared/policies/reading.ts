// What every role policy reads its desk with: the banners of the minute, its figures, its own small memory,
// and a change to one of its controls (never one the story has taken away).
import type { ControlChange } from '../sim/types.ts';
import type { Reading } from './types.ts';

export type Memo = Record<string, number | boolean | string>;

/** Whether a banner of `kind` shows this minute. */
export const has = (r: Reading, kind: string): boolean => r.view.events.some((e) => e.kind === kind);
/** A number the policy remembered (`dflt` when it remembered none). */
export const num = (memo: Memo, key: string, dflt = 0): number =>
  typeof memo[key] === 'number' ? (memo[key] as number) : dflt;
/** A figure of the role's desk (NaN when its split view does not show it). */
export const ind = (r: Reading, key: string): number => r.view.indicators[key] ?? Number.NaN;

/** A signal counts once it is seen (careful, careless) or seen two minutes running (late). */
export function steady(r: Reading, memo: Memo, key: string, now: boolean): boolean {
  const run = now ? num(memo, key) + 1 : 0;
  memo[key] = run;
  return r.skill === 'late' ? run >= 2 : run >= 1;
}

/** Sets `key` to `value` unless it is already so, or the story has taken the control away. */
export function set(r: Reading, out: ControlChange[], key: string, value: number | boolean | string): void {
  if (r.view.controls[key] !== value && !r.view.unavailable?.[key]) out.push({ key, value });
}
