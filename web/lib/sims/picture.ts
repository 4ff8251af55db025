// What the pictures show, derived from a snapshot. Pure: node tests load it directly.

export type RackSlot = 'serving' | 'booting' | 'free';

/** The rack's positions: serving servers first, then booting ones, then free positions. */
export function rackSlots(serving: number, booting: number, positions = 24): RackSlot[] {
  const s = clampInt(serving, 0, positions);
  const b = clampInt(booting, 0, positions - s);
  return Array.from({ length: positions }, (_, i) => (i < s ? 'serving' : i < s + b ? 'booting' : 'free'));
}

function clampInt(x: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, Math.round(Number.isFinite(x) ? x : 0)));
}

/** Normal mean issuer latency (ms); group B counts as slow well above it. */
const NORMAL_LATENCY_MS = 250;
/** Timeouts below this share round to 0.0 % on the desk: not a visible problem. */
const VISIBLE_TIMEOUTS = 0.0005;

export interface IssuerPicture {
  groupA: 'ok' | 'slow';
  groupB: 'ok' | 'slow';
  standIn: boolean;
}

/**
 * Group B is slow when its mean latency is well above normal (twice: the ±15 % wobble stays clear)
 * or issuers time out while B is the slow one; when timeouts happen with B at normal speed, the
 * timeout is set too short for everyone, so both groups show it. Stand-in shows when it approves.
 */
export function issuerPicture(ind: Record<string, number>): IssuerPicture {
  const bLatency = ind.groupBLatencyMs ?? NORMAL_LATENCY_MS;
  const timeouts = (ind.issuerTimeoutShare ?? 0) > VISIBLE_TIMEOUTS;
  const bSlow = bLatency > 2 * NORMAL_LATENCY_MS || timeouts;
  const aSlow = timeouts && bLatency <= 2 * NORMAL_LATENCY_MS;
  return { groupA: aSlow ? 'slow' : 'ok', groupB: bSlow ? 'slow' : 'ok', standIn: (ind.standInTps ?? 0) > 0.05 };
}

/**
 * Seconds one dot takes to cross its lane: faster as the rate rises (400 tx/s → 3 s, 800 → 1.5 s),
 * kept between 0.6 s and 8 s so the picture stays readable; 0 when nothing flows.
 */
export function dotSeconds(rate: number, normalRate: number, normalSeconds = 3): number {
  if (!(rate > 0)) return 0;
  return Math.min(8, Math.max(0.6, (normalSeconds * normalRate) / rate));
}

export type FleetSlot = 'serving' | 'booting';

/** The fleet's instances, serving first, at most `max` drawn. */
export function fleetSlots(serving: number, booting: number, max = 40): FleetSlot[] {
  const s = clampInt(serving, 0, max);
  const b = clampInt(booting, 0, max - s);
  return [...Array<FleetSlot>(s).fill('serving'), ...Array<FleetSlot>(b).fill('booting')];
}

/** A share as a bar width in percent, clamped to [0, 100]. */
export function barPercent(share: number): number {
  return Math.max(0, Math.min(100, (Number.isFinite(share) ? share : 0) * 100));
}
