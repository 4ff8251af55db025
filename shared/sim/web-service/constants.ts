// Constants of the web-service model (docs/models/web-service.md). The seed calls them
// "illustrative values for a mid-sized web service": every one is an assumption, not a measurement.

/** Requests per second at the daily mean; the daily cycle scales it by 1 ± 0.25 (peak at 12:00). */
export const BASE_RATE = 1000;
export const DAILY_AMPLITUDE = 0.25;
/** Burstiness of the per-minute arrival count: × (1 + N(0, 0.02)). */
export const ARRIVAL_BURST = 0.02;

export const WORKERS_PER_INSTANCE = 16;
export const MAX_INSTANCES = 40;
/** Application time per request, seconds (the heavy feature adds HEAVY_APP_S). */
export const APP_S = 0.05;
export const HEAVY_APP_S = 0.02;
/** Database queries per request (the heavy feature adds one). */
export const QUERIES = 2;
export const DB_CAPACITY_QPS = 4000;
/** Query time at an idle database and its ceiling, seconds. */
export const QUERY_BASE_S = 0.005;
export const QUERY_MAX_S = 0.25;
export const HOT_OBJECTS = 20000;
/** Cache refill time constant, minutes. */
export const REFILL_TAU_MIN = 30;
export const WARMUP_MINUTES = 6;
export const WARMUP_GAIN_PER_MIN = 0.12;
export const WARMUP_EXTRA_QPS = 600;
export const TIMEOUT_S = 2;
/** Seam rule shared with the payment switch: the waiting-time tail decays at least this fast (1/s). */
export const KAPPA = 2;
export const LOW_PRIORITY_SHARE = 0.3;
export const BAD_BUILD_ERROR = 0.05;
export const BAD_BUILD_CPU = 0.25;
/** The bad build reaches this much more traffic each minute of its rollout. */
export const ROLLOUT_PER_MIN = 0.2;
export const ROLLBACK_MINUTES = 5;
export const PRICE_PER_INSTANCE_HOUR = 0.4;
export const SCALE_IN_QUIET_MINUTES = 10;
export const SCALE_IN_MAX_SHARE = 0.2;
export const BOOT_MINUTES = 4;
/** Availability objective 99.9 %: the error budget is 0.1 % of requests. */
export const SLO_BUDGET = 0.001;
export const MINUTES_PER_MONTH = 43200;
/** Burn (1 h) window length in minutes, and the fast-burn page threshold. */
export const BURN_WINDOW = 60;
export const PAGE_BURN = 14.4;
/** The p99 of an exponential service time is S·ln 100. */
export const LN100 = Math.log(100);

// The ledger (docs/models/web-service.md, "The ledger"): our assumptions, not the seed's.
/** Revenue of one answered high-priority request: $0.005 per 1,000 requests. */
export const REVENUE_PER_REQUEST_USD = 0.000005;
/** A low-priority request (prefetch, batch, crawler) is worth this share of a high-priority one. */
export const LOW_PRIORITY_VALUE = 0.5;
/** Share of an answered request's revenue that the recommendations bring. */
export const RECOMMENDATION_SHARE = 0.2;
/** Price of a cached answer's staleness: $ per answer per minute of mean age. */
export const STALE_USD_PER_ANSWER_MINUTE = 0.000000125;
/** Price of the whole monthly error budget (SLA credits, a release freeze): burning 1 % of it costs 1 % of this. */
export const BUDGET_PRICE_USD = 75;
