// What the pictures show, derived from a snapshot. Pure: node tests load it directly.
import { ISSUER_MEAN_S } from '$shared/sim/payment-switch/constants.ts';

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

/** Group A's mean answer time, and group B's when it is well (ms): the model's constant (docs/models/payment-switch.md §4). */
const NORMAL_LATENCY_MS = ISSUER_MEAN_S * 1000;
/** A timeout that cuts off at least this share of a group's answers is shown as cutting them off. */
export const VISIBLE_CUT = 0.01;

/**
 * One issuer group as the picture shows it. `slow`: the issuer answers slowly (its mean well above
 * normal: twice, so the ±15 % wobble stays clear). `cut`: it answers at its normal speed, but our
 * timeout is shorter than many of its answers — the team's own setting, not the issuer. `ok` otherwise.
 * `cutShare` is the share of its answers that arrive after our timeout: P(L > T) = e^(−T/m) for the
 * exponential answer times of the model.
 */
export interface IssuerGroup {
  state: 'ok' | 'slow' | 'cut';
  meanMs: number;
  cutShare: number;
}

export interface IssuerPicture {
  groupA: IssuerGroup;
  groupB: IssuerGroup;
  /** Our timeout, in seconds. */
  timeoutS: number;
  standIn: boolean;
}

function issuerGroup(meanMs: number, timeoutS: number): IssuerGroup {
  const cutShare = meanMs > 0 ? Math.exp((-timeoutS * 1000) / meanMs) : 0;
  const state = meanMs > 2 * NORMAL_LATENCY_MS ? 'slow' : cutShare >= VISIBLE_CUT ? 'cut' : 'ok';
  return { state, meanMs, cutShare };
}

/**
 * The issuers from what the desk receives: group B's mean answer time (group A's is the model's
 * constant), our timeout, and stand-in's approvals — "the issuer is slow" told apart from "our timeout
 * is shorter than its answers".
 */
export function issuerPicture(ind: Record<string, number>, controls: Record<string, unknown>): IssuerPicture {
  const timeoutS = typeof controls.issuerTimeoutS === 'number' ? controls.issuerTimeoutS : 8;
  return {
    groupA: issuerGroup(NORMAL_LATENCY_MS, timeoutS),
    groupB: issuerGroup(ind.groupBLatencyMs ?? NORMAL_LATENCY_MS, timeoutS),
    timeoutS,
    standIn: (ind.standInTps ?? 0) > 0.05,
  };
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
