// Split view: what a student's desk receives when the teacher turns it on — the headline indicators, the
// ledger and the detail their roles see (`RoleDef.sees`); an analyst, who owns no control, sees it all. The server filters with it; the web reads the
// same lists to say who can see what is hidden ("the Fraud role sees this").
import type { SimMeta, Snapshot } from '../sim/types.ts';

/** Indicator keys every role sees: the headline figures and the ledger's lines and total. */
export function sharedKeys(model: SimMeta): Set<string> {
  return new Set([
    ...model.indicators.filter((i) => i.headline).map((i) => i.key),
    ...model.ledger.items,
    model.ledger.total,
  ]);
}

/**
 * Indicator keys a student holding `roles` sees in split view. An analyst (no role) sees every figure,
 * read-only: with no control of their own, their part is to watch the whole desk and tell the owners
 * what the owners' own views leave out.
 */
export function visibleKeys(model: SimMeta, roles: readonly string[]): Set<string> {
  if (roles.length === 0) return new Set(model.indicators.map((i) => i.key));
  const keys = sharedKeys(model);
  for (const r of model.roles) if (roles.includes(r.id)) for (const k of r.sees) keys.add(k);
  return keys;
}

/** The roles that see an indicator in split view; every role for a shared key. */
export function rolesSeeing(model: SimMeta, key: string): string[] {
  if (sharedKeys(model).has(key)) return model.roles.map((r) => r.id);
  return model.roles.filter((r) => r.sees.includes(key)).map((r) => r.id);
}

/** One name per distinct set of roles, in the model's order ('' for an analyst): a team's audiences. */
export function viewKey(model: SimMeta, roles: readonly string[]): string {
  return model.roles
    .filter((r) => roles.includes(r.id))
    .map((r) => r.id)
    .join('+');
}

/** The snapshot with only `keys` in its indicators, statuses and shares with nothing under them. */
export function splitSnapshot(s: Snapshot, keys: ReadonlySet<string>): Snapshot {
  const pick = <T>(rec: Record<string, T>): Record<string, T> => {
    const out: Record<string, T> = {};
    for (const k in rec) if (keys.has(k)) out[k] = rec[k];
    return out;
  };
  const out: Snapshot = { ...s, indicators: pick(s.indicators), status: pick(s.status) };
  if (s.na) out.na = s.na.filter((k) => keys.has(k));
  return out;
}
