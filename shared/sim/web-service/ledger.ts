// The team's ledger in $ (docs/models/web-service.md, "The ledger"): what the hour cost, line by line,
// each a cumulative indicator updated every minute from minute 1. Pure functions over plain numbers.
import {
  BUDGET_PRICE_USD,
  LOW_PRIORITY_VALUE,
  MINUTES_PER_MONTH,
  PRICE_PER_INSTANCE_HOUR,
  RECOMMENDATION_SHARE,
  REVENUE_PER_REQUEST_USD,
  SLO_BUDGET,
  STALE_USD_PER_ANSWER_MINUTE,
} from './constants.ts';

/** Ledger lines in the order the desk lists them; `ledgerTotal` is their sum. */
export const LEDGER_ITEMS = [
  'lostToErrors',
  'lostToShedding',
  'lostToFeatureOff',
  'stalePenalty',
  'costSoFar',
  'budgetBurnCost',
] as const;
export type LedgerItem = (typeof LEDGER_ITEMS)[number];
export const LEDGER_TOTAL = 'ledgerTotal';

export type Ledger = Record<LedgerItem, number>;

export const EMPTY_LEDGER: Ledger = {
  lostToErrors: 0,
  lostToShedding: 0,
  lostToFeatureOff: 0,
  stalePenalty: 0,
  costSoFar: 0,
  budgetBurnCost: 0,
};

export interface LedgerMinute {
  /** Requests that arrived this minute. */
  arrivals: number;
  /** Shares of the arrivals that are low priority (crawlers included) and that come from a crawler. */
  lowShare: number;
  crawlShare: number;
  /** Share of the arrivals rejected by shedding (low priority only, crawlers alike). */
  throttledShare: number;
  /** Share of the admitted requests that failed. */
  errorRate: number;
  /** Share of the admitted requests answered from the cache, and the answers' mean age in seconds. */
  hit: number;
  ageS: number;
  heavyFeature: boolean;
  /** Billed instance-minutes since minute 0 (whole numbers, so the bill has no rounding drift). */
  instanceMinutes: number;
}

/**
 * The ledger after one more minute. A high-priority request is worth REVENUE_PER_REQUEST_USD, a
 * low-priority one LOW_PRIORITY_VALUE of it, a crawler's nothing; shedding takes the same share of
 * every low-priority request, crawlers' or not, and failures strike the admitted mix alike.
 */
export function addMinute(prev: Ledger, x: LedgerMinute): Ledger {
  const shed = x.lowShare > 0 ? x.throttledShare / x.lowShare : 0;
  const high = x.arrivals * (1 - x.lowShare);
  const low = x.arrivals * (x.lowShare - x.crawlShare);
  const admitted = x.arrivals * (1 - x.throttledShare);
  // Revenue the admitted requests would bring if all were answered (before the recommendations' share).
  const admittedValue = (high + low * (1 - shed) * LOW_PRIORITY_VALUE) * REVENUE_PER_REQUEST_USD;
  const answered = admitted * (1 - x.errorRate);
  return {
    lostToErrors: prev.lostToErrors + admittedValue * x.errorRate,
    lostToShedding: prev.lostToShedding + low * shed * LOW_PRIORITY_VALUE * REVENUE_PER_REQUEST_USD,
    lostToFeatureOff:
      prev.lostToFeatureOff + (x.heavyFeature ? 0 : admittedValue * (1 - x.errorRate) * RECOMMENDATION_SHARE),
    stalePenalty: prev.stalePenalty + answered * x.hit * (x.ageS / 60) * STALE_USD_PER_ANSWER_MINUTE,
    costSoFar: (x.instanceMinutes * PRICE_PER_INSTANCE_HOUR) / 60,
    // The budget's price follows the burn itself, also past an exhausted budget (SLA credits keep accruing).
    budgetBurnCost: prev.budgetBurnCost + (x.errorRate / SLO_BUDGET / MINUTES_PER_MONTH) * BUDGET_PRICE_USD,
  };
}

export function ledgerTotal(l: Ledger): number {
  let sum = 0;
  for (const k of LEDGER_ITEMS) sum += l[k];
  return sum;
}
