// Full-shift scenarios: 60 minutes with several shocks whose minutes, sizes and targets are drawn
// from the seed when the round is created and kept in the state (docs/models/payment-switch.md,
// "Full-shift scenarios"). The seed's classic levels do not come through here.
import { uniform, type Rng } from '../rng.ts';
import { BASE_FRAUD_SHARE, D_PRIME, ISSUER_MEAN_S } from './constants.ts';

/** A range a shock's figure is drawn from: uniform, integers for minutes; noise off takes the middle. */
type Range = readonly [number, number];

interface Recipe {
  /** Traffic above a normal day: the multiplier's target from `start` for `length` minutes, announced `warn` minutes ahead. */
  surge?: { start: Range; length: Range; size: Range; warn: Range };
  /** A flash sale on top of the surge: minutes after the surge starts, its length and extra multiplier. */
  flash?: { after: Range; length: Range; size: Range };
  /** When the issuer recovers, merchants re-send what they held back: extra traffic for `length` minutes. */
  backlog?: { length: Range; size: Range };
  /** An attack with stolen card data: extra fraud share (reached after `ramp` minutes), how long it runs, when it starts to adapt. */
  fraud?: { start: Range; length: Range; share: Range; learn: Range; ramp: Range };
  /** Issuer group B slows to a mean of `meanS` seconds over `ramp` minutes and recovers `length` minutes after it began. */
  outage?: { start: Range; length: Range; meanS: Range; ramp: Range };
}

/** What one round's shocks turned out to be (plain JSON, in the state). Minutes are half-open [start, end). */
export interface ShiftPlan {
  surge?: { start: number; end: number; size: number; warnAt: number };
  flash?: { start: number; end: number; size: number };
  backlog?: { start: number; end: number; size: number };
  fraud?: { start: number; end: number; share: number; learnAt: number; ramp: number };
  outage?: { start: number; end: number; meanS: number; ramp: number };
}

/**
 * Fraud adaptation [design]: once the attackers have learnt (from `learnAt`), their mean score moves
 * toward `ADAPT_MARGIN` below the threshold in force — they see hard declines, not why a challenge
 * failed — with a time constant of `ADAPT_TAU` minutes, never below `ADAPT_FLOOR` nor above d′.
 */
export const ADAPT_MARGIN = 0.5;
export const ADAPT_FLOOR = 1.0;
export const ADAPT_TAU = 3;
const ADAPT_STEP = 1 - Math.exp(-1 / ADAPT_TAU);

export const RECIPES: Readonly<Record<string, Recipe>> = {
  // A sale day: the sale's surge with a flash sale on top, then card testers, then a slow issuer.
  'sale-day': {
    surge: { start: [9, 13], length: [16, 22], size: [1.9, 2.2], warn: [6, 8] },
    flash: { after: [5, 9], length: [4, 6], size: [1.0, 1.4] },
    fraud: { start: [28, 34], length: [8, 11], share: [0.022, 0.028], learn: [3, 5], ramp: [6, 8] },
    outage: { start: [42, 46], length: [10, 14], meanS: [10, 16], ramp: [6, 8] },
  },
  // Issuer trouble: group B slows and recovers at a minute nobody knows, payday traffic arrives on top,
  // and card testers strike after the recovery.
  'issuer-trouble': {
    outage: { start: [6, 10], length: [22, 28], meanS: [10, 16], ramp: [6, 8] },
    backlog: { length: [3, 4], size: [2.6, 3.2] },
    surge: { start: [13, 17], length: [8, 10], size: [1.5, 1.8], warn: [6, 8] },
    fraud: { start: [38, 44], length: [8, 11], share: [0.028, 0.034], learn: [3, 5], ramp: [7, 9] },
  },
};

function draw(rng: Rng, noise: boolean, [lo, hi]: Range): number {
  return noise ? lo + uniform(rng) * (hi - lo) : (lo + hi) / 2;
}
function drawInt(rng: Rng, noise: boolean, [lo, hi]: Range): number {
  return noise ? lo + Math.floor(uniform(rng) * (hi - lo + 1)) : Math.round((lo + hi) / 2);
}
const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** Draws a full-shift round's shocks (mutates `rng`; draws nothing with noise off). */
export function drawPlan(scenario: string, rng: Rng, noise: boolean): ShiftPlan | undefined {
  const r = RECIPES[scenario];
  if (!r) return undefined;
  const plan: ShiftPlan = {};
  if (r.surge) {
    const start = drawInt(rng, noise, r.surge.start);
    const end = start + drawInt(rng, noise, r.surge.length);
    plan.surge = {
      start,
      end,
      size: round3(draw(rng, noise, r.surge.size)),
      warnAt: start - drawInt(rng, noise, r.surge.warn),
    };
    if (r.flash) {
      const fs = start + drawInt(rng, noise, r.flash.after);
      plan.flash = {
        start: fs,
        end: fs + drawInt(rng, noise, r.flash.length),
        size: round3(draw(rng, noise, r.flash.size)),
      };
    }
  }
  if (r.fraud) {
    const start = drawInt(rng, noise, r.fraud.start);
    const end = start + drawInt(rng, noise, r.fraud.length);
    const share = Math.round(draw(rng, noise, r.fraud.share) * 1e4) / 1e4;
    plan.fraud = {
      start,
      end,
      share,
      learnAt: start + drawInt(rng, noise, r.fraud.learn),
      ramp: drawInt(rng, noise, r.fraud.ramp),
    };
  }
  if (r.outage) {
    const start = drawInt(rng, noise, r.outage.start);
    const end = start + drawInt(rng, noise, r.outage.length);
    plan.outage = {
      start,
      end,
      meanS: round3(draw(rng, noise, r.outage.meanS)),
      ramp: drawInt(rng, noise, r.outage.ramp),
    };
    if (r.backlog)
      plan.backlog = {
        start: end,
        end: end + drawInt(rng, noise, r.backlog.length),
        size: round3(draw(rng, noise, r.backlog.size)),
      };
  }
  return plan;
}

const within = (x: { start: number; end: number } | undefined, m: number): boolean =>
  x !== undefined && m >= x.start && m < x.end;

export interface ShiftConditions {
  surgeTarget: number;
  fraudShare: number;
  /** Share of the fraud that is the adapting attack. */
  waveShare: number;
  groupBMeanS: number;
}

export function shiftConditions(plan: ShiftPlan, minute: number): ShiftConditions {
  let surgeTarget = 1;
  if (plan.surge && within(plan.surge, minute)) surgeTarget = plan.surge.size;
  if (plan.flash && within(plan.flash, minute)) surgeTarget += plan.flash.size;
  if (plan.backlog && within(plan.backlog, minute)) surgeTarget += plan.backlog.size;
  const f = plan.fraud;
  // Card testers first probe with a few cards, then build up (a quadratic ramp); a failing issuer
  // slows down over a few minutes (geometrically).
  const wave = f && within(f, minute) ? f.share * Math.min(1, ((minute - f.start + 1) / f.ramp) ** 2) : 0;
  const o = plan.outage;
  const slow =
    o && within(o, minute)
      ? ISSUER_MEAN_S * (o.meanS / ISSUER_MEAN_S) ** Math.min(1, (minute - o.start + 1) / o.ramp)
      : ISSUER_MEAN_S;
  return {
    surgeTarget,
    fraudShare: BASE_FRAUD_SHARE + wave,
    waveShare: wave / (BASE_FRAUD_SHARE + wave),
    groupBMeanS: slow,
  };
}

/** The attack's mean score next minute, given the threshold in force this minute. */
export function adaptWave(plan: ShiftPlan, minute: number, waveMean: number, threshold: number): number {
  const f = plan.fraud;
  if (!f || minute < f.learnAt) return waveMean;
  // After the attack the next one starts from scratch.
  if (minute >= f.end) return D_PRIME;
  const target = Math.min(D_PRIME, Math.max(ADAPT_FLOOR, threshold - ADAPT_MARGIN));
  return waveMean + (target - waveMean) * ADAPT_STEP;
}

/** What the desk is told this minute: the shocks' starts and the attack's end (other ends show in the indicators). */
export function shiftEvents(plan: ShiftPlan, minute: number): { kind: string; group?: string }[] {
  const out: { kind: string; group?: string }[] = [];
  if (plan.surge?.warnAt === minute) out.push({ kind: 'sale-announced' });
  if (plan.surge?.start === minute) out.push({ kind: 'surge-start' });
  if (plan.flash?.start === minute) out.push({ kind: 'flash-sale-start' });
  if (plan.fraud?.start === minute) out.push({ kind: 'card-testing-start' });
  // The issuers block the stolen cards: the end of the attack is announced (its start is seen in the fraud rate too).
  if (plan.fraud?.end === minute) out.push({ kind: 'card-testing-over' });
  if (plan.outage?.start === minute) out.push({ kind: 'issuer-slow', group: 'B' });
  return out;
}
