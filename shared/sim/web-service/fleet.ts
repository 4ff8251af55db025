// The fleet: instances serving plus batches still booting, and the autoscaler (spec §10).
// Pure functions over plain data; each returns a new fleet.
import { MAX_INSTANCES, SCALE_IN_MAX_SHARE, SCALE_IN_QUIET_MINUTES } from './constants.ts';

export interface BootBatch {
  /** First minute in which these instances serve. */
  readyAt: number;
  count: number;
}

export interface Fleet {
  serving: number;
  /** Oldest batch first. */
  booting: BootBatch[];
}

export function bootingCount(f: Fleet): number {
  let n = 0;
  for (const b of f.booting) n += b.count;
  return n;
}

export function fleetSize(f: Fleet): number {
  return f.serving + bootingCount(f);
}

/** Starts `count` instances that serve from minute `readyAt`. */
export function startInstances(f: Fleet, count: number, readyAt: number): Fleet {
  if (count <= 0) return f;
  const last = f.booting[f.booting.length - 1];
  const booting =
    last && last.readyAt === readyAt
      ? [...f.booting.slice(0, -1), { readyAt, count: last.count + count }]
      : [...f.booting, { readyAt, count }];
  return { serving: f.serving, booting };
}

/** Removes `count` instances: the most recently started booting ones first, then serving ones. */
export function removeInstances(f: Fleet, count: number): Fleet {
  let left = count;
  const booting = f.booting.map((b) => ({ ...b }));
  for (let i = booting.length - 1; i >= 0 && left > 0; i--) {
    const take = Math.min(left, booting[i].count);
    booting[i].count -= take;
    left -= take;
  }
  return { serving: Math.max(0, f.serving - left), booting: booting.filter((b) => b.count > 0) };
}

/** Batches whose boot has finished by minute m join the fleet in service. */
export function completeBoots(f: Fleet, m: number): { fleet: Fleet; ready: number } {
  let ready = 0;
  for (const b of f.booting) if (b.readyAt <= m) ready += b.count;
  if (ready === 0) return { fleet: f, ready };
  return { fleet: { serving: f.serving + ready, booting: f.booting.filter((b) => b.readyAt > m) }, ready };
}

/** `minInstances` as a floor (autoscaling on) or as the exact size (off), applied at once. */
export function applyFloor(f: Fleet, minInstances: number, autoscaling: boolean, readyAt: number): Fleet {
  const size = fleetSize(f);
  if (size < minInstances) return startInstances(f, minInstances - size, readyAt);
  if (!autoscaling && size > minInstances) return removeInstances(f, size - minInstances);
  return f;
}

export interface ScaleDecision {
  fleet: Fleet;
  quietMinutes: number;
}

/**
 * Target tracking, run at the end of a minute on its measurement: desired = ⌈busy instances / target⌉
 * (busy = serving × utilization, utilization ≤ 100 %). Scale out to desired (≤ 40) only when nothing is
 * booting; after 10 consecutive minutes with desired below the fleet, remove at most 20 % of it, never
 * going below desired or `minInstances`.
 */
export function autoscale(
  f: Fleet,
  busyInstances: number,
  target: number,
  minInstances: number,
  quietMinutes: number,
  readyAt: number,
): ScaleDecision {
  // The epsilon keeps 6 busy / 0.6 from rounding up to 11 through floating-point noise.
  const desired = Math.ceil(busyInstances / target - 1e-9);
  const size = fleetSize(f);
  if (desired > size) {
    const nothingBooting = f.booting.length === 0;
    const fleet = nothingBooting ? startInstances(f, Math.min(desired, MAX_INSTANCES) - size, readyAt) : f;
    return { fleet, quietMinutes: 0 };
  }
  if (desired === size) return { fleet: f, quietMinutes: 0 };
  const quiet = quietMinutes + 1;
  if (quiet < SCALE_IN_QUIET_MINUTES) return { fleet: f, quietMinutes: quiet };
  const surplus = size - Math.max(desired, minInstances);
  const step = Math.max(1, Math.floor(SCALE_IN_MAX_SHARE * size));
  const remove = Math.min(surplus, step);
  return { fleet: remove > 0 ? removeInstances(f, remove) : f, quietMinutes: 0 };
}
