// The shock library of the payment switch's full shifts: a scenario lists episodes — a sale, a flash
// sale, card testers, a slow issuer, the backlog after it — each with the ranges its minutes, sizes and
// targets are drawn from; `drawShocks` turns the list into one round's episodes from the seed (kept in the
// state). The relations a shift adds to the seed's model are the scenario's `terms` (docs/models/
// payment-switch.md, "Full shifts"). Pure data and pure functions. The retired shifts' recipes stay in
// shift.ts, so that their stored rounds replay exactly.
import { uniform, type Rng } from '../rng.ts';
import type { ScenarioShocks, SimEvent } from '../types.ts';
import { ADAPT_FLOOR, ADAPT_MARGIN, ADAPT_TAU } from './shift.ts';
import { BASE_FRAUD_SHARE, D_PRIME, ISSUER_MEAN_S } from './constants.ts';

/** A range a figure is drawn from: uniform, whole numbers for minutes; noise off takes the middle. */
export type Range = readonly [number, number];
/**
 * A size drawn from a range, or from one of several ranges picked at random — with `notAs`, not the one episode
 * `notAs` picked (of two ranges: the other one). Noise off: the first range's middle (with `notAs`, the second's).
 */
export type SizeSpec = Range | { oneOf: readonly Range[]; notAs?: number };

/** When an episode starts: at a drawn minute, or a drawn number of minutes after another episode starts or ends. */
export type StartSpec = Range | { after: number; from: 'start' | 'end'; gap: Range };

/** The kinds of episode, what each does and which role leads on it. */
export type EpisodeSpec =
  /**
   * Traffic × `size` (the seed's 2-minute lag), announced `warn` minutes ahead (`sale-announced`, with its size
   * and start), from `surge-start`; its shoppers' scores and baskets as the terms say. Scaling (and fraud).
   */
  | { kind: 'sale'; start: StartSpec; length: Range; size: SizeSpec; warn: Range }
  /** A flash sale: + `size` × a normal day's traffic at once (`flash-sale-start`), too short for a boot. Shedding. */
  | { kind: 'flash'; start: StartSpec; length: Range; size: SizeSpec }
  /**
   * Scalper bots: + `size` × a normal day's traffic of bot attempts (`bots-start`), which bring nothing and
   * which shedding turns away; a limited drop announces them `warn` minutes ahead (`drop-announced`, with
   * the bots expected). Shedding.
   */
  | { kind: 'bots'; start: StartSpec; length: Range; size: SizeSpec; warn?: Range }
  /** Card testers: + `share` of the traffic, built up quadratically over `ramp` minutes (`card-testing-start`), learning the threshold after `learn`; `card-testing-over` when the issuers block the cards. Fraud. */
  | { kind: 'attack'; start: StartSpec; length: Range; share: SizeSpec; learn: Range; ramp: Range }
  /** Group B's issuers slow to a mean of `meanS` over `ramp` minutes (`issuer-slow`) and recover unannounced. Stand-in. */
  | { kind: 'issuer'; start: StartSpec; length: Range; meanS: SizeSpec; ramp: Range }
  /** Merchants re-send what they held back: + `size` × a normal day's traffic from the end of episode `after`. Shedding. */
  | { kind: 'backlog'; after: number; length: Range; size: SizeSpec };

/** A drawn episode: minutes are half-open [start, end). */
export interface Episode {
  kind: EpisodeSpec['kind'];
  start: number;
  end: number;
  /** Traffic multiplier (sale), extra traffic (flash, backlog), fraud share (attack) or group B's mean latency in s (issuer). */
  size: number;
  /** The sale's announcement; the attackers' learning minute. */
  at?: number;
  /** Minutes to full size (attack, issuer). */
  ramp?: number;
}

/**
 * What a full shift adds to the seed's relations [design]. `ownServers`: the switch's own fleet; servers
 * above it are rented at `burstPerHour` u an hour (the seed's 6 u below it). `shedRetry`: the share of the
 * seed's retry probability kept by a customer answered "try again later" by shedding; `backoffRetry`: kept by
 * a customer whose retry is backed off (they do not all wait). `lowPriority`: the share of new transactions
 * shedding turns away first, whatever the load (recurring billing, retried tomorrow: lost today).
 * `standInFee`: what the network charges for each transaction it stands in for (u). `exposureCap`: the
 * issuers' stand-in agreement for the day — once the exposure reaches it, nothing more is stood in.
 * `groupBMeanS`: group B answers this slowly on the shift's normal minutes (its issuers are a distant network).
 */
export interface ShiftTerms {
  /** Group B's issuers' mean latency on the shift's normal minutes (s): a distant network. */
  groupBMeanS: number;
  ownServers: number;
  burstPerHour: number;
  shedRetry: number;
  backoffRetry: number;
  lowPriority: number;
  standInFee: number;
  /** The retry probability after a technical failure (the seed's 0.95): a shift's shoppers go elsewhere sooner. */
  retryP: number;
  /** Whether a timed-out transaction declined "issuer unavailable" is retried (false: the decline says not to). */
  retryUnavailable: boolean;
  exposureCap?: number;
  /** How far a sale's shoppers' fraud scores rise (σ): they buy unusual baskets, so a screen tuned for an ordinary day declines and challenges them. */
  saleShopperShift?: number;
  /** A sale's baskets, in ordinary ones: a customer lost while a sale is on costs this many margins. */
  saleBasket?: number;
  /** The share of the approved fraud amount the switch bears (the seed's FRAUD_LIABILITY without it). */
  fraudLiability?: number;
}

export interface Recipe {
  terms: ShiftTerms;
  episodes: readonly EpisodeSpec[];
}

/** One round's shocks and terms, in the state (plain JSON). */
export interface Shocks {
  terms: ShiftTerms;
  episodes: Episode[];
}

function drawRange(rng: Rng, noise: boolean, [lo, hi]: Range): number {
  return noise ? lo + uniform(rng) * (hi - lo) : (lo + hi) / 2;
}
function drawInt(rng: Rng, noise: boolean, [lo, hi]: Range): number {
  return noise ? lo + Math.floor(uniform(rng) * (hi - lo + 1)) : Math.round((lo + hi) / 2);
}
const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** Draws one round's episodes in the recipe's order (mutates `rng`; draws nothing with noise off). */
export function drawShocks(recipe: Recipe, rng: Rng, noise: boolean): Shocks {
  const out: Episode[] = [];
  // The range each episode's size was picked from (for `notAs`).
  const picked: number[] = [];
  const draw = (r: Rng, n: boolean, spec: SizeSpec): number => {
    if (!('oneOf' in spec)) {
      picked[out.length] = 0;
      return drawRange(r, n, spec);
    }
    const options = spec.oneOf.map((_, k) => k).filter((k) => spec.notAs === undefined || k !== picked[spec.notAs]);
    const k = n ? options[Math.floor(uniform(r) * options.length)] : options[0];
    picked[out.length] = k;
    return drawRange(r, n, spec.oneOf[k]);
  };
  const startOf = (s: StartSpec): number => {
    if (Array.isArray(s)) return drawInt(rng, noise, s as Range);
    const spec = s as Exclude<StartSpec, Range>;
    const ref = out[spec.after];
    if (!ref) throw new RangeError(`an episode starts after episode ${spec.after}, which comes later in the recipe`);
    return (spec.from === 'start' ? ref.start : ref.end) + drawInt(rng, noise, spec.gap);
  };
  for (const e of recipe.episodes) {
    if (e.kind === 'backlog') {
      const ref = out[e.after];
      if (!ref) throw new RangeError(`a backlog follows episode ${e.after}, which comes later in the recipe`);
      const end = ref.end + drawInt(rng, noise, e.length);
      out.push({ kind: 'backlog', start: ref.end, end, size: round3(draw(rng, noise, e.size)) });
      continue;
    }
    const start = startOf(e.start);
    const end = start + drawInt(rng, noise, e.length);
    switch (e.kind) {
      case 'sale': {
        const size = round3(draw(rng, noise, e.size));
        out.push({ kind: 'sale', start, end, size, at: start - drawInt(rng, noise, e.warn) });
        break;
      }
      case 'flash':
        out.push({ kind: e.kind, start, end, size: round3(draw(rng, noise, e.size)) });
        break;
      case 'bots': {
        const size = round3(draw(rng, noise, e.size));
        out.push({ kind: 'bots', start, end, size, ...(e.warn ? { at: start - drawInt(rng, noise, e.warn) } : {}) });
        break;
      }
      case 'attack': {
        const size = Math.round(draw(rng, noise, e.share) * 1e4) / 1e4;
        const at = start + drawInt(rng, noise, e.learn);
        out.push({ kind: 'attack', start, end, size, at, ramp: drawInt(rng, noise, e.ramp) });
        break;
      }
      case 'issuer': {
        const size = round3(draw(rng, noise, e.meanS));
        out.push({ kind: 'issuer', start, end, size, ramp: drawInt(rng, noise, e.ramp) });
        break;
      }
    }
  }
  return { terms: recipe.terms, episodes: out };
}

const within = (x: Episode, m: number): boolean => m >= x.start && m < x.end;

export interface ShockConditions {
  surgeTarget: number;
  /** Bot attempts, as a multiple of a normal day's traffic. */
  bots: number;
  fraudShare: number;
  /** Share of the fraud that is the adapting attack. */
  waveShare: number;
  groupBMeanS: number;
  /** Genuine customers' mean fraud score (σ): raised while a sale is on. */
  genuineMean: number;
  /** What a lost customer's basket is worth, in ordinary baskets: more while a sale is on. */
  basket: number;
}

/** What the episodes impose in minute m. */
export function shockConditions(sh: Shocks, m: number): ShockConditions {
  let sale = 1;
  let extra = 0;
  let bots = 0;
  let wave = 0;
  let slow = sh.terms.groupBMeanS;
  let shoppers = 0;
  let basket = 1;
  for (const e of sh.episodes) {
    if (!within(e, m)) continue;
    switch (e.kind) {
      case 'sale':
        sale = Math.max(sale, e.size);
        shoppers = sh.terms.saleShopperShift ?? 0;
        basket = sh.terms.saleBasket ?? 1;
        break;
      case 'flash':
      case 'backlog':
        extra += e.size;
        break;
      case 'bots':
        // A swarm builds up over its first minutes (a third of it a minute).
        bots += e.size * Math.min(1, (m - e.start + 1) / BOTS_RAMP);
        break;
      case 'attack':
        // Card testers first probe with a few cards, then build up (a quadratic ramp).
        wave += e.size * Math.min(1, ((m - e.start + 1) / (e.ramp ?? 1)) ** 2);
        break;
      case 'issuer':
        slow = Math.max(slow, issuerLatency(e, m, sh.terms.groupBMeanS));
        break;
    }
  }
  return {
    surgeTarget: sale + extra,
    bots,
    fraudShare: BASE_FRAUD_SHARE + wave,
    waveShare: wave / (BASE_FRAUD_SHARE + wave),
    groupBMeanS: slow,
    genuineMean: shoppers,
    basket,
  };
}

/**
 * A straining issuer first slows (geometrically, over its ramp) to a few seconds at most — ISSUER_STRAIN_S —
 * and holds there; one that is failing then falls over, ISSUER_HOLD minutes later, to its full latency over
 * ISSUER_ESCALATE minutes. So every slowdown looks alike at first, and the desk shows which kind it is.
 */
export const ISSUER_STRAIN_S = 3.5;
export const ISSUER_HOLD = 1;
export const ISSUER_ESCALATE = 3;

/** Group B's mean latency (s) in minute m of an issuer episode, from `base` on normal minutes. */
export function issuerLatency(e: Episode, m: number, base = ISSUER_MEAN_S): number {
  const k = m - e.start + 1;
  const strain = Math.min(e.size, ISSUER_STRAIN_S);
  const ramp = e.ramp ?? 1;
  if (k <= ramp) return base * (strain / base) ** (k / ramp);
  const j = k - ramp - ISSUER_HOLD;
  if (e.size <= strain || j <= 0) return strain;
  return strain * (e.size / strain) ** Math.min(1, j / ISSUER_ESCALATE);
}

/** Minutes over which a bot swarm builds up. */
export const BOTS_RAMP = 1;

const ADAPT_STEP = 1 - Math.exp(-1 / ADAPT_TAU);

/**
 * The adapting attackers' mean score next minute, given the threshold in force this minute: once an attack's
 * testers have learnt (from its `at`), toward ADAPT_MARGIN below the threshold; the next attack starts afresh.
 */
export function adaptShockWave(sh: Shocks, m: number, waveMean: number, threshold: number): number {
  const a = sh.episodes.find((e) => e.kind === 'attack' && m >= e.start && m < e.end);
  if (!a) return D_PRIME;
  if (m < (a.at ?? a.start)) return waveMean;
  const target = Math.min(D_PRIME, Math.max(ADAPT_FLOOR, threshold - ADAPT_MARGIN));
  return waveMean + (target - waveMean) * ADAPT_STEP;
}

/** What the desk is told in minute m: the episodes' starts and the attacks' ends (other ends show in the figures). */
export function shockEvents(sh: Shocks, m: number): SimEvent[] {
  const out: SimEvent[] = [];
  for (const e of sh.episodes) {
    if (e.kind === 'sale') {
      // Marketing says how big a sale they expect (to a tenth), and in how many minutes it starts.
      if (e.at === m) out.push({ kind: 'sale-announced', size: Math.round(e.size * 10) / 10, in: e.start - m });
      if (e.start === m) out.push({ kind: 'surge-start' });
      // Its end is on marketing's schedule too.
      if (e.end === m) out.push({ kind: 'sale-end' });
    } else if (e.kind === 'flash' && e.start === m) out.push({ kind: 'flash-sale-start' });
    else if (e.kind === 'bots') {
      if (e.at === m) out.push({ kind: 'drop-announced', bots: Math.round(e.size * 10) / 10 });
      if (e.start === m) out.push({ kind: 'bots-start' });
    } else if (e.kind === 'attack') {
      if (e.start === m) out.push({ kind: 'card-testing-start' });
      if (e.end === m) out.push({ kind: 'card-testing-over' });
    } else if (e.kind === 'issuer' && e.start === m) out.push({ kind: 'issuer-slow', group: 'B' });
  }
  return out;
}

/** The hourly server bill of `n` servers under a shift's terms (the seed's price without them). */
export function serverRate(n: number, perHour: number, terms: ShiftTerms | undefined): number {
  if (!terms) return perHour * n;
  return perHour * Math.min(n, terms.ownServers) + terms.burstPerHour * Math.max(0, n - terms.ownServers);
}

/** A scenario's shocks (checked by `shared/scenarios`) as the recipe `drawShocks` draws from. */
export function recipeOf(shocks: ScenarioShocks): Recipe {
  return { terms: shocks.setting as unknown as ShiftTerms, episodes: shocks.episodes as readonly EpisodeSpec[] };
}
