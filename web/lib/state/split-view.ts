// Split view on a student's desk (a teacher option): the server sends the headline figures, the ledger
// and the detail the student's roles see (shared/classroom/split.ts); the desk names what it left out
// and who sees it, so the team knows whom to ask. Pure: node tests load it.
import { rolesSeeing, visibleKeys } from '$shared/classroom/split.ts';
import type { SimMeta } from '$shared/sim/types.ts';

export interface SplitView {
  /** Indicator keys this desk does not receive. */
  hidden: ReadonlySet<string>;
  /** Who sees a hidden key, in words ("Only Fraud (Ana) sees this"). */
  who: (key: string) => string;
}

export const NO_SPLIT: SplitView = { hidden: new Set(), who: () => '' };

/** The indicators a student holding `roles` does not receive when split view is on (none when it is off). */
export function hiddenKeys(model: SimMeta, on: boolean, roles: readonly string[]): Set<string> {
  if (!on) return new Set();
  const seen = visibleKeys(model, roles);
  return new Set(model.indicators.map((i) => i.key).filter((k) => !seen.has(k)));
}

/** The roles that see a key, each with the teammates who own it now (none: nobody holds it). */
export function seersOf(
  model: SimMeta,
  key: string,
  ownersOf: (role: string) => string[],
): { role: string; owners: string[] }[] {
  return rolesSeeing(model, key).map((role) => ({ role, owners: ownersOf(role) }));
}
